import { HEADLINE_MIN_ISPS } from './rollup.js';
import type { AddedPair, ClassCounts, ClassifiedPair, DomainRollup, IsoDate } from './types.js';

/**
 * The pairs classified new (only today's entries are), `count` of them: the pairs added to the
 * history, and those that may join a recent report (joinReported). Gathered at the end, in an
 * array of their number.
 */
export function newPairs(pairs: readonly ClassifiedPair[], count: number): AddedPair[] {
  const added = new Array<AddedPair>(count);
  let at = 0;
  for (let i = 0; i < pairs.length && at < count; i++) {
    const pair = pairs[i]!;
    if (pair.class === 'new') added[at++] = pair as AddedPair;
  }
  added.length = at;
  return added;
}

/** How recent a domain's outage must be for an ISP to join its report (as-of days). */
export const JOIN_WITHIN_DAYS = 2;

/**
 * A domain that is down was reported whole on its first day; an ISP of it that crosses the
 * thresholds a day or two later (its comparison day was just under minBaselineClicks, say)
 * joins that report instead of sending "1 new" on its own: it becomes active as ongoing. Only
 * while the domain is a headline today and at least HEADLINE_MIN_ISPS of its pairs, first seen
 * on the same day within the last JOIN_WITHIN_DAYS, are still alertable: an outage, not a
 * domain that happens to have several unrelated declines. Returns how many joined.
 */
export function joinReported(
  fresh: readonly ClassifiedPair[],
  reported: ReadonlyMap<number, ReadonlyMap<IsoDate, number>>,
  rollup: readonly DomainRollup[],
  counts: ClassCounts,
): number {
  if (fresh.length === 0 || reported.size === 0) return 0;
  const outbreaks = new Set<number>();
  reported.forEach((byDay, domainId) => {
    byDay.forEach((pairs) => {
      if (pairs >= HEADLINE_MIN_ISPS) outbreaks.add(domainId);
    });
  });
  const joinable = new Set<number>();
  for (const domain of rollup) {
    if (domain.headline && outbreaks.has(domain.domainId)) joinable.add(domain.domainId);
  }
  let joined = 0;
  for (const pair of fresh) {
    if (!joinable.has(pair.domainId)) continue;
    pair.class = 'ongoing';
    counts.new--;
    counts.ongoing++;
    joined++;
  }
  return joined;
}
