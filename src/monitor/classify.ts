import type { AlertSettings } from './alert-settings.js';
import { classifyDrops } from './common-drops.js';
import { domainRunsAfter } from './domain-runs.js';
import { judgeListedPairs } from './judge-listed.js';
import { judgeUnlistedPairs } from './judge-unlisted.js';
import type { JudgingDay } from './judging-day.js';
import { joinReported, newPairs } from './join-reported.js';
import { learnedStateAfter } from './learned-after.js';
import type { LifecycleSettings } from './lifecycle-step.js';
import { PairOutcomes } from './pair-outcomes.js';
import { findPairSlots } from './pair-slots.js';
import type { SignificanceRule } from './significance.js';
import { silenceMatcher, silencesWhole } from './silences.js';
import { readTodaysMoves } from './todays-moves.js';
import {
  EMAILED_CLASSES,
  type ActivePair,
  type Classification,
  type IsoDate,
  type IspTrend,
  type LearnedState,
  type PairClass,
  type Silence,
  type WatchedRun,
} from './types.js';
import { learnVariationToday } from './variation-today.js';

export { depressedAfterClear } from './depressed.js';
export { emptyClassCounts } from './class-counts.js';
export { JOIN_WITHIN_DAYS } from './join-reported.js';
export { pairKey, parsePairKey, pairEvent } from './pair-key.js';

/*
 * The alert lifecycle (docs/design.md; words in the glossary of types.ts), as a
 * pure function: no clock, no I/O. Every pair of today's list that is alertable or active, and
 * every pair of the active history, gets exactly one class; `changes` is the history after
 * the run, and what was learned of the network with it. classifyPairs runs in phases, each
 * reading what the ones before it return:
 * 1. where each pair stands: its record, its listed run, today's entry (findPairSlots);
 * 2. the network's variation, learned with today's list (learnVariationToday,
 *    monitor/variation.ts);
 * 3. what the list says of the domains and the network as a whole: their common moves today
 *    (readTodaysMoves, monitor/common-move.ts);
 * 4. each pair judged against both and stepped through the lifecycle
 *    (monitor/lifecycle-step.ts): today's list (judgeListedPairs), then the history's pairs it
 *    leaves out (judgeUnlistedPairs), into one PairOutcomes;
 * 5. a new ISP of a domain reported down joins that report (joinReported);
 * 6. most of a domain or of the network down together is one common drop
 *    (monitor/common-drops.ts);
 * 7. what was learned of the network after the run (learnedStateAfter).
 * One pass over the entries and one over the history: linear, nothing sorted but the (few)
 * domains and their known ISPs.
 */

export type { LifecycleSettings } from './lifecycle-step.js';

export interface ClassifyInput {
  asOf: IsoDate;
  /** Today's validated entries (a successful, complete 200 response; [] = nothing declines). */
  entries: readonly IspTrend[];
  /** The history before the run, each pair once (a repeat is ignored). Not modified (but see `inPlace`). */
  active: readonly ActivePair[];
  settings: LifecycleSettings;
  /** The network's silences unexpired at run time (the caller owns the clock). */
  silences: readonly Silence[];
  /** The listed runs before this run, each pair's once (monitor/runs.ts). Not modified (but see `inPlace`). */
  runs?: readonly WatchedRun[];
  /** What was learned of the network by the runs before (absent: nothing yet). */
  learned?: LearnedState;
  /** The significance rule; only the simulation (`npm run quality -- --compare`) sets it. */
  rule?: SignificanceRule;
  /**
   * Whether `pairs` lists the ongoing pairs too (default: true). A run passes false: nothing is
   * said about an ongoing pair but its count, and in a steady state of 10,000 declining pairs
   * their result objects were about half of classification's time and most of its garbage
   * (targets P1 and P6, docs/performance.md). Counts, changes and domains are the same either way.
   */
  listOngoing?: boolean;
  /**
   * Whether the pairs of `active` and `runs` may be updated in place and handed back in
   * `changes` (default: false, they are not modified). A run's history is decoded for it alone,
   * and a new object for each of 50,000 ongoing pairs and their listed runs was ~12 MiB of
   * garbage a run (target P6, docs/performance.md).
   */
  inPlace?: boolean;
}

export function isEmailedClass(
  pairClass: PairClass,
  settings: Pick<AlertSettings, 'notifyCleared'>,
): boolean {
  return pairClass === 'cleared' ? settings.notifyCleared : EMAILED_CLASSES.includes(pairClass);
}

export function classifyPairs(input: ClassifyInput): Classification {
  const { asOf, settings, learned } = input;
  const listOngoing = input.listOngoing ?? true;

  const slots = findPairSlots(input.active, input.runs ?? [], input.entries);
  const { listed, listedSlots } = slots;
  const variation = learnVariationToday(
    listed,
    listedSlots,
    learned,
    asOf,
    settings.minSignificance,
  );
  const todays = readTodaysMoves({
    asOf,
    listed,
    listedSlots,
    learned,
    variation: variation.judged,
    settings,
    rule: input.rule,
  });

  const day: JudgingDay = {
    asOf,
    settings,
    rule: input.rule,
    inPlace: input.inPlace ?? false,
    variation: variation.judged,
    matchSilence: silenceMatcher(input.silences),
    activeDrops: todays.activeDrops,
  };
  const out = new PairOutcomes(asOf, listOngoing);
  judgeListedPairs(day, listed, listedSlots, todays, out);
  judgeUnlistedPairs(day, slots.history, todays, out);

  const added = newPairs(out.pairs, out.counts.new);
  const rollup = out.domains.build();
  const joined = joinReported(added, out.reported, rollup, out.counts);
  const domainRuns = domainRunsAfter(
    learned?.domainRuns,
    todays.moves,
    variation.judged,
    asOf,
    out.explained,
  );
  const drops = classifyDrops({
    asOf,
    moves: todays.moves,
    variation: variation.judged,
    domainRuns,
    settings,
    active: todays.activeDrops,
    isSilenced: (scope, domainId) => silencesWhole(input.silences, scope, domainId),
    domains: out.domainClicks,
  });
  const learnedAfter = learnedStateAfter(
    learned,
    {
      variation: variation.learned,
      known: todays.known,
      drops: drops.active,
      domainRuns,
      day30Share: todays.day30Share,
      networkLog7: todays.moves.network?.log7,
    },
    asOf,
    settings,
  );

  const pairs = out.pairs;
  return {
    asOf,
    // The pairs that joined a report are ongoing now: listed only with the ongoing ones.
    pairs: joined > 0 && !listOngoing ? pairs.filter((p) => p.class !== 'ongoing') : pairs,
    counts: out.counts,
    domains: rollup,
    drops: drops.drops,
    variation: variation.judged,
    changes: {
      upsert: out.upsert,
      added,
      remove: out.remove,
      runs: out.runs,
      runsStarted: { asOf, entries: out.runsStarted },
      learned: learnedAfter,
    },
    belowThreshold: out.belowThreshold,
    duplicates: slots.duplicates,
  };
}
