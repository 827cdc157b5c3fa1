import { daysBetween } from '../dates.js';
import type { ActivePair } from './types.js';

/**
 * "May still be depressed, not healed" (glossary in types.ts). The API lists a pair only while
 * yesterday is below the day 7 back; a block starting on day B is first seen on as-of B+1 and
 * last listed on as-of B+7, a span of 6 days, after which the comparison day itself lies inside
 * the block and the pair leaves the list with its clicks still down.
 */
export const DEPRESSED_SPAN_DAYS = { min: 5, max: 8 } as const;
/** The last alertable drop must still have been at least this large (yesterday <= half). */
export const DEPRESSED_MIN_DROP_PERCENT = 50;

/**
 * For a pair that clears now, from its history entry before this run: its last alertable run
 * came 5..8 days after it was first seen, and it was still down >= 50% then.
 */
export function depressedAfterClear(
  pair: Pick<ActivePair, 'firstSeen' | 'lastSeen' | 'dropPercent'>,
): boolean {
  const span = daysBetween(pair.firstSeen, pair.lastSeen);
  return (
    span >= DEPRESSED_SPAN_DAYS.min &&
    span <= DEPRESSED_SPAN_DAYS.max &&
    pair.dropPercent >= DEPRESSED_MIN_DROP_PERCENT
  );
}
