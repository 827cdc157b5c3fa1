import { PairMap } from './pair-map.js';
import type { ActivePair, IspTrend, WatchedRun } from './types.js';

/** Where one pair stands in a classification, found once for all of its phases. */
export interface PairSlot {
  /** Its record in the history before the run. */
  prev: ActivePair | undefined;
  /** Its listed run before the run (monitor/runs.ts). */
  watched: WatchedRun | undefined;
  /** Whether it is in today's list. */
  listed: boolean;
}

/** Every pair a classification reads, each once, and where it stands. */
export interface PairSlots {
  /** The pairs of the history, each once. */
  history: PairSlot[];
  /** Today's list, each pair once. */
  listed: IspTrend[];
  /** The slot of each pair of `listed`, index for index. */
  listedSlots: PairSlot[];
  /** The entries of today's list that repeat a pair listed before them (ignored). */
  duplicates: number;
}

/**
 * Where each pair stands: its record in the history (the first of a repeated pair counts), its
 * listed run (the last of a repeated one), whether it is in today's list (the first entry of a
 * repeated pair counts).
 */
export function findPairSlots(
  active: readonly ActivePair[],
  runs: readonly WatchedRun[],
  entries: readonly IspTrend[],
): PairSlots {
  const slots = new PairMap<PairSlot>();
  const slotOf = (domainId: number, isp: string): PairSlot => {
    let slot = slots.get(domainId, isp);
    if (slot === undefined) {
      slot = { prev: undefined, watched: undefined, listed: false };
      slots.set(domainId, isp, slot);
    }
    return slot;
  };
  const history: PairSlot[] = [];
  for (const pair of active) {
    const slot = slotOf(pair.domainId, pair.isp);
    if (slot.prev !== undefined) continue;
    slot.prev = pair;
    history.push(slot);
  }
  for (const run of runs) slotOf(run.domainId, run.isp).watched = run;

  const listed: IspTrend[] = [];
  const listedSlots: PairSlot[] = [];
  let duplicates = 0;
  for (const entry of entries) {
    const slot = slotOf(entry.network_tracking_domain_id, entry.isp);
    if (slot.listed) {
      duplicates++;
      continue;
    }
    slot.listed = true;
    listed.push(entry);
    listedSlots.push(slot);
  }
  return { history, listed, listedSlots, duplicates };
}
