import { addDays, daysBetween } from '../dates.js';
import type { IsoDate, NetworkDip } from './types.js';

/**
 * The network's dips of the last month, remembered after their drops have ended: each run that
 * saw the whole network move down together (a holiday), the share of its day 7 back the network
 * kept, and whether its drop was told (active and seen that run). A week and two weeks later,
 * day 7 or 14 back is that day, and a pair judged against it as listed reads too shallow
 * (monitor/dip-week.ts). The drop itself is held only DROP_HOLD_DAYS after it was first seen
 * (common-drops.ts), so it no longer tells day 14 back, and a dip short of a headline was never
 * a drop: a holiday of 18% at `mild` day 14 back read an escalation's deeper drop a warning.
 */

/** A dip is remembered this many as-of days after the run that saw it. */
export const DIP_MEMORY_DAYS = 31;

/**
 * The dips after today's run: the earlier ones seen within DIP_MEMORY_DAYS, and today's when the
 * network moved down (`log7`: its move against day 7 back, commonMoves; undefined: it did not
 * move together), `told` when its drop was told or went on today. One per as-of date: a forced
 * re-run replaces its own.
 */
export function networkDipsAfter(
  prev: readonly NetworkDip[] | undefined,
  log7: number | undefined,
  told: boolean,
  asOf: IsoDate,
): NetworkDip[] {
  const after = (prev ?? []).filter(
    (dip) => dip.seen !== asOf && daysBetween(dip.seen, asOf) <= DIP_MEMORY_DAYS,
  );
  if (log7 !== undefined && log7 < 0) {
    const dip: NetworkDip = { seen: asOf, kept: Math.exp(log7) };
    if (told) dip.told = true;
    after.push(dip);
  }
  return after;
}

/**
 * The share of its day `back` days back the network kept, when that day was one of its dips (the
 * run that saw it is `back` runs before today's), a told one only when `toldOnly`; undefined on
 * other days.
 */
export function networkKeptDaysBack(
  dips: readonly NetworkDip[] | undefined,
  asOf: IsoDate,
  back: number,
  toldOnly = false,
): number | undefined {
  const seen = addDays(asOf, -back);
  const dip = dips?.find((d) => d.seen === seen);
  return dip === undefined || (toldOnly && dip.told !== true) ? undefined : dip.kept;
}
