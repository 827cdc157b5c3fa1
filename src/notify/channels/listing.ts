import { EMAILED_DROP_CLASSES } from '../../monitor/common-drops.js';
import { pairFigures } from '../../monitor/figures.js';
import {
  isDecliningClass,
  type ClassifiedDrop,
  type ClassifiedPair,
  type Classification,
  type DayFigures,
} from '../../monitor/types.js';

/**
 * The pairs a channel message carries, in the order the alert e-mail shows them: declining
 * pairs (new, worse, reminder) by tracking domain, worst domain first by clicks lost, and within
 * a domain critical first, then most clicks lost; then the cleared pairs (with notifyCleared).
 * These are exactly the pairs whose events the notification carries (`pairEvents`).
 */
export interface ListedDomain {
  domainId: number;
  domainUrl: string;
  /** Alertable pairs of the domain today (the roll-up's count, else its listed pairs). */
  ispsAffected: number;
  clicksLost: number;
  /** Many ISPs declining together: the domain looks blocked (`DomainRollup.headline`). */
  headline: boolean;
}

export interface ChannelListing {
  /** The common drops that are news (a network's or a domain's), the network's first. */
  drops: ClassifiedDrop[];
  /** Declining pairs, worst domain first, then cleared pairs. */
  pairs: ClassifiedPair[];
  /** Domains with declining pairs, worst first. */
  domains: ListedDomain[];
}

export function channelListing(
  classification: Classification,
  notifyCleared: boolean,
): ChannelListing {
  const byDomain = new Map<number, ClassifiedPair[]>();
  const cleared: ClassifiedPair[] = [];
  for (const pair of classification.pairs) {
    if (isDecliningClass(pair.class)) {
      const list = byDomain.get(pair.domainId);
      if (list) list.push(pair);
      else byDomain.set(pair.domainId, [pair]);
    } else if (notifyCleared && pair.class === 'cleared') {
      cleared.push(pair);
    }
  }
  const rollups = new Map(classification.domains.map((d) => [d.domainId, d]));
  const groups = [...byDomain].map(([domainId, pairs]) => {
    pairs.sort(comparePairs);
    const rollup = rollups.get(domainId);
    const domain: ListedDomain = {
      domainId,
      domainUrl: rollup?.domainUrl || pairs[0]?.domainUrl || `domain ${domainId}`,
      ispsAffected: rollup?.ispsAffected ?? pairs.length,
      clicksLost: rollup?.clicksLost ?? pairs.reduce((sum, p) => sum + clicksLost(p), 0),
      headline: rollup?.headline ?? false,
    };
    return { domain, pairs };
  });
  groups.sort(
    (a, b) => b.domain.clicksLost - a.domain.clicksLost || a.domain.domainId - b.domain.domainId,
  );
  cleared.sort((a, b) => a.domainId - b.domainId || (a.isp < b.isp ? -1 : a.isp > b.isp ? 1 : 0));
  return {
    drops: (classification.drops ?? []).filter((d) => EMAILED_DROP_CLASSES.includes(d.class)),
    pairs: [...groups.flatMap((g) => g.pairs), ...cleared],
    domains: groups.map((g) => g.domain),
  };
}

/** Clicks yesterday and 7, 14 and 30 days back; undefined for a pair not in today's list. */
export function clicksOf(pair: ClassifiedPair): DayFigures | undefined {
  if (pair.figures) return pair.figures.clicks;
  return pair.entry ? pairFigures(pair.entry).clicks : undefined;
}

function clicksLost(pair: ClassifiedPair): number {
  const clicks = clicksOf(pair);
  return clicks ? Math.max(0, clicks.d7 - clicks.yesterday) : 0;
}

function comparePairs(a: ClassifiedPair, b: ClassifiedPair): number {
  if (a.severity !== b.severity) return a.severity === 'critical' ? -1 : 1;
  const lost = clicksLost(b) - clicksLost(a);
  if (lost !== 0) return lost;
  return a.isp < b.isp ? -1 : a.isp > b.isp ? 1 : 0;
}
