import { addDays, daysBetween } from '../dates.js';
import type { ActiveDrop, ActivePair, IsoDate, IspTrend } from './types.js';

/*
 * A week after the network's dip. When yesterday's day 7 back was a day the network was told
 * down (a holiday a week ago), a pair reads too shallow against it: an escalation's deeper drop
 * read 44% (a warning) against the holiday, 63% against day 14 back, and was told "worse" a day
 * late. An ISP told before is then judged against day 7 back as it would have been without the
 * dip: that day's clicks over the share the network kept that day. Its evidence stays the
 * counts as listed (significance.ts judges them against the share), and it turns from warning
 * to critical ("worse") only when it is also minDropPercent points deeper than the day before:
 * the dip's share is the network's, and one ISP's holiday is not exactly it (a weekend dip read
 * 58% against the scaled day after 50% the day before, though it had not moved).
 */

/**
 * The share of its day 7 back the network kept, when today's day 7 back was a day a told drop
 * of the whole network was seen: the run it was first or last seen (as-of dates; the drop's day
 * is the day before each). Not the days between: a drop is held on days it is not seen, and
 * two holidays five days apart are one drop seen on two days, the days between ordinary.
 * Undefined on any other day.
 */
export function weekBackInNetworkDip(
  drops: readonly Pick<ActiveDrop, 'scope' | 'firstSeen' | 'lastSeen' | 'dropPercent'>[],
  asOf: IsoDate,
): number | undefined {
  const day = addDays(asOf, -7);
  const drop = drops.find(
    (d) => d.scope === 'network' && (d.firstSeen === day || d.lastSeen === day),
  );
  if (drop === undefined || drop.dropPercent <= 0 || drop.dropPercent >= 100) return undefined;
  return 1 - drop.dropPercent / 100;
}

/**
 * Whether a listed ISP is judged up to the network's dip of day 7 back: one told before (an
 * active pair), unless its own drop began after day 14 back and by day 7 back (first seen 7 to
 * 13 runs before today's): day 7 back is then inside its own drop too, and judged up to the
 * dip it reads that drop again (a small block told the day after a holiday read 87% a week
 * later, a reminder, though day 7 back, blocked too, showed it had not moved).
 */
export function judgedUpToDip(
  pair: Pick<ActivePair, 'firstSeen'> | undefined,
  asOf: IsoDate,
): boolean {
  if (pair === undefined) return false;
  const runsAgo = daysBetween(pair.firstSeen, asOf);
  return runsAgo < 7 || runsAgo >= 14;
}

/**
 * The entry as judged against `share` of its day 7 back: its 7-day click trend (what its drop
 * in percent reads) against that share; the click counts stay as listed.
 */
export function withWeekShare(entry: IspTrend, share: number): IspTrend {
  const expected = entry.seven_days_ago_total_clicks * share;
  return {
    ...entry,
    yesterday_seven_days_ago_total_clicks_trend:
      expected > 0
        ? Math.round(((entry.yesterday_total_clicks - expected) / expected) * 10_000) / 100
        : null,
  };
}
