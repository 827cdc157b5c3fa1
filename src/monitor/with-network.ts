import type { ActiveDrop, ActivePair } from './types.js';

/**
 * A card told on the day the network's dip was told, and down that day only, recovered with
 * the network: its end is the dip's end, and the dip's end is never e-mailed (common-drops.ts),
 * so the card leaves quietly instead of being "cleared" (a holiday's ISP listed beside the
 * network's headline). A card still down on a later day is its own decline and clears as usual.
 */
export function leftWithNetwork(
  pair: Pick<ActivePair, 'firstSeen' | 'lastSeen'>,
  drops: readonly Pick<ActiveDrop, 'scope' | 'firstSeen' | 'lastNotified'>[],
): boolean {
  if (pair.lastSeen !== pair.firstSeen) return false;
  return drops.some(
    (drop) =>
      drop.scope === 'network' &&
      drop.lastNotified !== undefined &&
      drop.firstSeen === pair.firstSeen,
  );
}
