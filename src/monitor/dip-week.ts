import { daysBetween } from '../dates.js';
import type { ActivePair, IsoDate, IspTrend } from './types.js';

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
 *
 * Two weeks after the network's dip, told or not (a move short of a headline lowers day 14 back
 * as well), an ISP told before is judged against day 14 back the same way: an escalation's
 * deeper drop read 64% against day 7 back but 44% against the holiday of day 14 back, not
 * critical beyond noise, and was told "worse" a day late. The days are the network's memory of
 * its dips (network-dips.ts).
 */

/**
 * Whether a listed ISP is judged up to the network's dip of day `back` back (7 or 14): one told
 * before (an active pair), unless its own drop began after day `back` + 7 back and by day `back`
 * back (first seen `back` to `back` + 6 runs before today's): that day is then inside its own
 * drop too, and judged up to the dip it reads that drop again (a small block told the day after
 * a holiday read 87% a week later, a reminder, though day 7 back, blocked too, showed it had not
 * moved).
 */
export function judgedUpToDip(
  pair: Pick<ActivePair, 'firstSeen'> | undefined,
  asOf: IsoDate,
  back = 7,
): boolean {
  if (pair === undefined) return false;
  const runsAgo = daysBetween(pair.firstSeen, asOf);
  return runsAgo < back || runsAgo >= back + 7;
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
