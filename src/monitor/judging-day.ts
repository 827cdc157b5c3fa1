import type { LifecycleSettings } from './lifecycle-step.js';
import { dropZ, type SignificanceRule } from './significance.js';
import type { SilenceMatcher } from './silences.js';
import type { ActiveDrop, ActivePair, IsoDate, Variation } from './types.js';
import { leftWithNetwork } from './with-network.js';

/** What every pair of a classification is judged with, listed today or not. */
export interface JudgingDay {
  asOf: IsoDate;
  settings: LifecycleSettings;
  /** The significance rule; only the simulation sets it (ClassifyInput.rule). */
  rule: SignificanceRule | undefined;
  /** Whether the history's pairs and runs may be updated in place (ClassifyInput.inPlace). */
  inPlace: boolean;
  /** The network's variation as today is judged against it (learnVariationToday). */
  variation: Variation;
  /** The silence of a pair, if one is unexpired. */
  matchSilence: SilenceMatcher;
  /** The common drops active before this run (readTodaysMoves). */
  activeDrops: readonly ActiveDrop[];
}

/** A card that recovered with the network's dip it was told beside leaves quietly. */
export function leavesWithNetwork(day: JudgingDay, prev: ActivePair): boolean {
  return leftWithNetwork(
    prev,
    day.activeDrops,
    dropZ(prev.baseline, 1, prev.yesterday, day.variation) < day.settings.minSignificance,
  );
}
