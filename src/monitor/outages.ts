import { daysBetween } from '../dates.js';
import { comparesInside } from './common-move.js';
import type { Thresholds } from './thresholds.js';
import type { ActiveDrop, DomainOutage, IsoDate } from './types.js';

/**
 * The domains' outages of the last month, remembered after their drops have ended. A domain
 * down criticalDropPercent or more on a day 7, 14 or 30 back has almost no clicks that day, and
 * the API lists an ISP only while yesterday is below each of those days: on such a day the list
 * holds none of its ISPs, whatever yesterday was, so it shows nothing of the network's dip
 * either (commonMoves reads it as "blind", not as a domain that did not move). An active drop
 * tells this while it is kept (comparesInside); its outage is remembered for OUTAGE_MEMORY_DAYS
 * after it was last seen, as day 30 back still lies inside it.
 */

/** An outage is remembered this many as-of days after it was last seen. */
export const OUTAGE_MEMORY_DAYS = 31;

/** The comparison days of a listed pair: an outage on any of them lists nothing of the domain. */
const COMPARISON_DAYS = [7, 14, 30] as const;

/**
 * The outages after today's run: the domains' active drops down criticalDropPercent or more
 * (`drops`: the active drops after the run), each as first and last seen, and the earlier ones
 * last seen within OUTAGE_MEMORY_DAYS. One per domain and first day.
 */
export function outagesAfter(
  prev: readonly DomainOutage[] | undefined,
  drops: readonly ActiveDrop[],
  asOf: IsoDate,
  settings: Pick<Thresholds, 'criticalDropPercent'>,
): DomainOutage[] {
  const byKey = new Map<string, DomainOutage>();
  for (const outage of prev ?? []) {
    if (daysBetween(outage.lastSeen, asOf) > OUTAGE_MEMORY_DAYS) continue;
    byKey.set(`${outage.domainId} ${outage.firstSeen}`, outage);
  }
  for (const drop of drops) {
    if (drop.scope !== 'domain' || drop.dropPercent < settings.criticalDropPercent) continue;
    byKey.set(`${drop.domainId} ${drop.firstSeen}`, {
      domainId: drop.domainId,
      firstSeen: drop.firstSeen,
      lastSeen: drop.lastSeen,
    });
  }
  return [...byKey.values()];
}

/**
 * The domains whose list today can show nothing of them: a comparison day (7 or 14 back) inside
 * an active drop of their own, or a comparison day (7, 14 or 30 back) inside a remembered outage.
 */
export function blindDomains(
  drops: readonly ActiveDrop[],
  outages: readonly DomainOutage[] | undefined,
  asOf: IsoDate,
): Set<number> {
  const blind = new Set<number>();
  for (const drop of drops) {
    if (drop.scope === 'domain' && comparesInside(drop, asOf)) blind.add(drop.domainId);
  }
  for (const outage of outages ?? []) {
    if (comparesInside(outage, asOf, COMPARISON_DAYS)) blind.add(outage.domainId);
  }
  return blind;
}
