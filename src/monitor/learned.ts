import type { ActiveDrop } from './common-drops.js';
import type { KnownDomain } from './known-isps.js';
import type { LearnedVariation } from './variation.js';

/**
 * What the monitor has learned of a network across runs, beside its history of pairs: the
 * network's own day-to-day variation (monitor/variation.ts), the ISPs each domain has shown
 * (monitor/known-isps.ts) and the common drops it has reported and not yet seen end
 * (monitor/common-drops.ts). A plain value: the store keeps it as one field, a replay carries
 * it from run to run, and a decision is a function of it, the history, the entries and the
 * settings alone.
 */
export interface LearnedState {
  /** Absent until a run has listed a pair that says something about the variation. */
  variation?: LearnedVariation;
  known: KnownDomain[];
  drops: ActiveDrop[];
}
