import type { ActiveDrop, ActivePair } from './types.js';

/**
 * A card told on the day the network's dip was told, and down that day only, recovered with
 * the network: its end is the dip's end, and the dip's end is never e-mailed (common-drops.ts),
 * so the card leaves quietly instead of being "cleared" (a holiday's ISP listed beside the
 * network's headline). So does one down on later days too, never e-mailed again, whose last day
 * down was within noise on its own (`lastDayWithinNoise`): a small pair's slow way back from
 * the dip, not a decline of its own. A card down beyond noise on its last day down is its own
 * decline and clears as usual.
 */
export function leftWithNetwork(
  pair: Pick<ActivePair, 'firstSeen' | 'lastSeen' | 'lastNotified'>,
  drops: readonly Pick<ActiveDrop, 'scope' | 'firstSeen' | 'lastNotified'>[],
  lastDayWithinNoise = false,
): boolean {
  const downThatDayOnly = pair.lastSeen === pair.firstSeen;
  const wayBack = lastDayWithinNoise && pair.lastNotified === pair.firstSeen;
  if (!downThatDayOnly && !wayBack) return false;
  return drops.some(
    (drop) =>
      drop.scope === 'network' &&
      drop.lastNotified !== undefined &&
      drop.firstSeen === pair.firstSeen,
  );
}
