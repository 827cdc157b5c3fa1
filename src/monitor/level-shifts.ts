import { daysBetween } from '../dates.js';
import type { ActiveDrop, IsoDate, LevelShift } from './types.js';

/**
 * The domains' drops of the last two weeks, remembered after they end, as level shifts the
 * learned variation must not read as noise (monitor/variation.ts). A domain whose campaign
 * ended is 40% lower for good: a week after, day 7 back lies after the step and day 14 back
 * before it, and every listed ISP of the domain compares the two levels. Its drop is held only
 * DROP_HOLD_DAYS (common-drops.ts), and at `heavy` the domain's median q does not stand out of
 * its learned common variation (variation.ts, SHIFT_GATE_Z): read as noise, the step inflated
 * the learned variation for weeks (moderate seed 39, 12.4% to 19.0% in six runs).
 */

/** A shift is remembered this many as-of days after it was first seen. */
export const SHIFT_MEMORY_DAYS = 14;

/**
 * As-of days after a drop was first seen during which its domain's comparison days straddle it:
 * day 7 back after it began (7 days on; a drop may be first seen the day after it began, so
 * one day earlier) and day 14 back before it (up to 13 days on).
 */
export const STRADDLE_FROM_DAYS = 6;
export const STRADDLE_TO_DAYS = 13;

/**
 * The shifts after today's run: the earlier ones first seen within SHIFT_MEMORY_DAYS, and each
 * active domain drop (`drops`, after the run) first seen within them. One per domain and day
 * first seen, and a domain's drop is first seen anew only after its last one ended
 * (common-drops.ts, DROP_HOLD_DAYS): a few per domain that dropped at most, about 42 bytes each
 * as the store keeps them.
 */
export function levelShiftsAfter(
  prev: readonly LevelShift[] | undefined,
  drops: readonly ActiveDrop[],
  asOf: IsoDate,
): LevelShift[] {
  const byKey = new Map<string, LevelShift>();
  const keep = (shift: LevelShift): void => {
    if (daysBetween(shift.firstSeen, asOf) > SHIFT_MEMORY_DAYS) return;
    byKey.set(`${shift.domainId} ${shift.firstSeen}`, shift);
  };
  for (const shift of prev ?? []) keep(shift);
  for (const drop of drops) {
    if (drop.scope === 'domain') keep({ domainId: drop.domainId, firstSeen: drop.firstSeen });
  }
  return [...byKey.values()];
}

/** The domains whose comparison days 7 and 14 back straddle one of their shifts today. */
export function straddledDomains(
  shifts: readonly LevelShift[] | undefined,
  asOf: IsoDate,
): Set<number> {
  const out = new Set<number>();
  for (const shift of shifts ?? []) {
    const since = daysBetween(shift.firstSeen, asOf);
    if (since >= STRADDLE_FROM_DAYS && since <= STRADDLE_TO_DAYS) out.add(shift.domainId);
  }
  return out;
}
