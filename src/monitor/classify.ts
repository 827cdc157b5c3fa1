import type { AlertSettings } from './alert-settings.js';
import { daysBetween } from '../dates.js';
import { classifyDrops, judgedShare } from './common-drops.js';
import { depressedAfterClear } from './depressed.js';
import { judgedUpToDip, withWeekShare } from './dip-week.js';
import {
  stepAlertable,
  stepHeld,
  stepQuiet,
  type LifecycleSettings,
  type Step,
} from './lifecycle-step.js';
import { day30SharesAfter, holdsListed, holdsUnlisted, keepsRunUnlisted } from './hold.js';
import { pairKey } from './pair-key.js';
import { findPairSlots } from './pair-slots.js';
import { DomainRollupBuilder, HEADLINE_MIN_ISPS } from './rollup.js';
import { silenceMatcher } from './silences.js';
import { beginsRun, extendRun, isSteadyDecline, runAfterClear } from './runs.js';
import { dropZ, poissonZ, type DropNoise, type SignificanceRule } from './significance.js';
import { emptyMeasure, measureEntryInto, severityOf, type PairMeasure } from './thresholds.js';
import {
  EMAILED_CLASSES,
  PAIR_CLASSES,
  type ActivePair,
  type AddedPair,
  type ClassCounts,
  type Classification,
  type ClassifiedPair,
  type DomainRollup,
  type DropScope,
  type IsoDate,
  type IspTrend,
  type LearnedState,
  type PairClass,
  type Silence,
  type WatchedRun,
} from './types.js';
import { domainRunsAfter } from './domain-runs.js';
import { learnVariationToday } from './variation-today.js';
import { outagesAfter } from './outages.js';
import { networkDipsAfter } from './network-dips.js';
import { readTodaysMoves } from './todays-moves.js';
import { leftWithNetwork } from './with-network.js';
import { levelShiftsAfter } from './level-shifts.js';

export { depressedAfterClear } from './depressed.js';
export { pairKey, parsePairKey, pairEvent } from './pair-key.js';

/*
 * The alert lifecycle (docs/design.md; words in the glossary of types.ts), as a
 * pure function: no clock, no I/O. Every pair of today's list that is alertable or active, and
 * every pair of the active history, gets exactly one class; `changes` is the history after
 * the run, and what was learned of the network with it. Each pair is judged against the
 * network's learned variation (monitor/variation.ts) and its domain's common move today
 * (monitor/common-move.ts); most of a domain or of the network down together is one common
 * drop (monitor/common-drops.ts). One pass over the entries and one over the history: linear,
 * nothing sorted but the (few) domains and their known ISPs.
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

export function emptyClassCounts(): ClassCounts {
  const counts = {} as ClassCounts;
  for (const c of PAIR_CLASSES) counts[c] = 0;
  return counts;
}

export function classifyPairs(input: ClassifyInput): Classification {
  const { asOf, entries, settings } = input;
  const listOngoing = input.listOngoing ?? true;
  const inPlace = input.inPlace ?? false;
  const matchSilence = silenceMatcher(input.silences);
  const learned = input.learned;

  const {
    history: historySlots,
    listed,
    listedSlots,
    duplicates,
  } = findPairSlots(input.active, input.runs ?? [], entries);

  const { learned: learnedVariation, judged: variation } = learnVariationToday(
    listed,
    listedSlots,
    learned,
    asOf,
    settings.minSignificance,
  );

  const {
    hashes,
    known,
    moves,
    shares,
    activeDrops,
    day30Share,
    day30Remembered,
    dipShare,
    dip14Share,
    networkDip,
  } = readTodaysMoves({
    asOf,
    listed,
    listedSlots,
    learned,
    variation,
    settings,
    rule: input.rule,
  });

  /** The noise each entry is judged against and its day for its run, refilled per entry. */
  const noise: DropNoise = { extra: variation, share7: 1, share14: 1 };
  const runDay = { yesterday: 0, d7: 0, d14: 0 };
  /** The entry as isSteadyDecline reads it, refilled per entry (no object per entry). */
  const forSteady = {
    baseline: 0,
    d14: 0,
    d30: 0,
    dropPercent: 0,
    significance: 0,
    inOutage: false,
    told: false,
  };
  const steadyDay = (today: PairMeasure, judged: DropNoise, told: boolean): typeof forSteady => {
    forSteady.told = told;
    forSteady.baseline = today.baseline;
    forSteady.d14 = today.d14;
    forSteady.d30 = today.d30;
    forSteady.dropPercent = today.dropPercent;
    forSteady.significance = today.significance;
    const outage = 1 - settings.criticalDropPercent / 100;
    forSteady.inOutage = judged.share7 <= outage || judged.share14 <= outage;
    return forSteady;
  };
  const measure = emptyMeasure();
  /** A card that recovered with the network's dip it was told beside leaves quietly. */
  const leavesWithNetwork = (prev: ActivePair): boolean =>
    leftWithNetwork(
      prev,
      activeDrops,
      dropZ(prev.baseline, 1, prev.yesterday, variation) < settings.minSignificance,
    );
  const pairs: ClassifiedPair[] = [];
  const counts = emptyClassCounts();
  const upsert: ActivePair[] = [];
  const remove: string[] = [];
  const domains = new DomainRollupBuilder();
  /** Per domain: its URL, and clicks lost and 7-days-back clicks over its listed pairs. */
  const domainClicks = new Map<
    number,
    { url: string; clicksLost: number; baselineClicks: number }
  >();
  let belowThreshold = 0;
  /** By domain, then by firstSeen: how many of its pairs first seen that day are still alertable. */
  const reported = new Map<number, Map<IsoDate, number>>();
  const runs: WatchedRun[] = [];
  const runsStarted: IspTrend[] = [];
  /** The domains that moved today with an ISP told before that the move explains. */
  const explained = new Set<number>();

  /**
   * What a pair's step changes besides its result object: the history, the counts, the
   * domains, and the recent reports an ISP may join. Returns whether `pairs` lists the pair.
   */
  const record = (
    prev: ActivePair | undefined,
    step: Step,
    domainId: number,
    isp: string,
    domainUrl: string,
    alertable: boolean,
    baseline: number,
    yesterday: number,
  ): boolean => {
    const pairClass = step.pairClass;
    if (step.next !== undefined) upsert.push(step.next);
    else if (prev !== undefined) remove.push(pairKey(domainId, isp));
    counts[pairClass]++;
    if (
      pairClass !== 'new' &&
      prev !== undefined &&
      alertable &&
      pairClass !== 'silenced' &&
      daysBetween(prev.firstSeen, asOf) <= JOIN_WITHIN_DAYS
    ) {
      let byDay = reported.get(domainId);
      if (byDay === undefined) {
        byDay = new Map();
        reported.set(domainId, byDay);
      }
      byDay.set(prev.firstSeen, (byDay.get(prev.firstSeen) ?? 0) + 1);
    }
    domains.add(domainId, domainUrl, pairClass, alertable, baseline, yesterday);
    return listOngoing || pairClass !== 'ongoing';
  };

  for (let i = 0; i < listed.length; i++) {
    const { prev, watched } = listedSlots[i]!;
    const weekShare = dipShare !== undefined && judgedUpToDip(prev, asOf) ? 1 / dipShare : 1;
    const entry = weekShare === 1 ? listed[i]! : withWeekShare(listed[i]!, weekShare);
    const domainId = entry.network_tracking_domain_id;
    const isp = entry.isp;
    const domainUrl = entry.relationship.url;
    domains.listed(domainId, domainUrl);
    let tally = domainClicks.get(domainId);
    if (tally === undefined) {
      tally = { url: domainUrl, clicksLost: 0, baselineClicks: 0 };
      domainClicks.set(domainId, tally);
    }
    tally.clicksLost += Math.max(
      0,
      entry.seven_days_ago_total_clicks - entry.yesterday_total_clicks,
    );
    tally.baselineClicks += entry.seven_days_ago_total_clicks;

    const share = judgedShare(shares, moves, domainId, hashes[i]!);
    // A domain's move a week after the network's dip is against day 7 back as it would have
    // been without the dip (common-move.ts): a pair judged as listed reads it against that day.
    const afterDip = moves.domains.get(domainId)?.weekBackShare;
    noise.share7 =
      share.share7 * (weekShare === 1 && afterDip !== undefined ? 1 / afterDip : weekShare);
    noise.share14 =
      dip14Share !== undefined && judgedUpToDip(prev, asOf, 14)
        ? share.share14 / dip14Share
        : share.share14;
    const today = measureEntryInto(measure, entry, settings, noise, input.rule);
    // The run sums its days against the comparison days as the domain's common move left them.
    runDay.yesterday = today.yesterday;
    runDay.d7 = today.baseline * noise.share7;
    runDay.d14 = today.d14 * noise.share14;
    let run: WatchedRun | undefined;
    if (
      prev === undefined &&
      noise.share7 === 1 &&
      noise.share14 === 1 &&
      beginsRun(watched, asOf, today.significance, networkDip)
    ) {
      // A run of one day for a pair without history: nothing reads it today (a steady decline
      // takes STEADY_MIN_DAYS, an e-mail tells a run from 2 days), so its entry stands for it
      // (HistoryChange.runsStarted). Not on a day of a common move: its days are the entry's
      // as the move left them.
      runsStarted.push(entry);
    } else {
      run = extendRun(
        watched,
        domainId,
        isp,
        asOf,
        runDay,
        today.significance,
        inPlace,
        networkDip,
      );
      if (run !== undefined) runs.push(run);
    }
    if (prev !== undefined) today.alertable = today.sustained;
    const steady =
      !today.alertable &&
      isSteadyDecline(run, steadyDay(today, noise, prev !== undefined), settings, variation);
    if (steady) today.alertable = true;
    // An ISP told before, no longer down beyond its domain's move today: its drop was the
    // domain's, told in part (monitor/domain-runs.ts).
    if (prev !== undefined && !today.alertable && moves.domains.has(domainId)) {
      explained.add(domainId);
    }
    if (prev === undefined && !today.alertable) {
      belowThreshold++;
      continue;
    }
    const silence = matchSilence(domainId, isp);
    const silenced = silence !== undefined;
    const stepped: Step = { pairClass: 'new', next: undefined, quietRuns: 0 };
    let step: Step;
    if (today.alertable) {
      step = stepAlertable(
        stepped,
        prev,
        today,
        noise,
        weekShare !== 1,
        domainUrl,
        silenced,
        asOf,
        settings,
        inPlace,
      );
    } else {
      const active = prev as ActivePair;
      step = holdsListed(run, today.dropPercent, active.dropPercent, settings)
        ? stepHeld(stepped, active, silenced)
        : stepQuiet(stepped, active, silenced, asOf, settings, inPlace);
    }
    // A cleared pair's run begins anew with today (runAfterClear, monitor/runs.ts).
    if (step.pairClass === 'cleared' && run !== undefined) {
      runs[runs.length - 1] = runAfterClear(run, runDay);
    }
    if (step.pairClass === 'cleared' && prev !== undefined && leavesWithNetwork(prev)) {
      remove.push(pairKey(domainId, isp));
      continue;
    }
    const shown = record(
      prev,
      step,
      domainId,
      isp,
      domainUrl,
      today.alertable,
      today.baseline,
      today.yesterday,
    );
    if (!shown) continue;
    const pair: ClassifiedPair = {
      domainId,
      isp,
      domainUrl,
      class: step.pairClass,
      alertable: today.alertable,
      severity: today.severity,
      dropPercent: today.dropPercent,
      significance: today.significance,
      firstSeen: prev?.firstSeen ?? asOf,
      quietRuns: step.quietRuns,
      // The e-mail builds its figures from the entry, for the pairs it lists only.
      entry: listed[i]!,
      run,
    };
    if (share.share7 < 1) pair.commonShare = share.share7;
    if (steady) pair.steady = true;
    if (step.pairClass === 'cleared' && prev !== undefined) {
      pair.mayStillBeDepressed = depressedAfterClear(prev);
    }
    if (silence !== undefined) pair.silenceId = silence.id;
    pairs.push(pair);
  }

  for (const slot of historySlots) {
    if (slot.listed) continue;
    const prev = slot.prev!;
    const watchedRun = slot.watched;
    const silence = matchSilence(prev.domainId, prev.isp);
    const silenced = silence !== undefined;
    const stepped: Step = { pairClass: 'new', next: undefined, quietRuns: 0 };
    const step = holdsUnlisted(
      watchedRun,
      asOf,
      prev.dropPercent,
      day30Share,
      day30Remembered,
      settings,
    )
      ? stepHeld(stepped, prev, silenced)
      : stepQuiet(stepped, prev, silenced, asOf, settings, inPlace);
    if (step.next !== undefined && watchedRun !== undefined && keepsRunUnlisted(watchedRun, asOf)) {
      runs.push(watchedRun);
    }
    if (step.pairClass === 'cleared' && leavesWithNetwork(prev)) {
      remove.push(pairKey(prev.domainId, prev.isp));
      continue;
    }
    const shown = record(
      prev,
      step,
      prev.domainId,
      prev.isp,
      prev.domainUrl,
      false,
      prev.baseline,
      prev.yesterday,
    );
    if (!shown) continue;
    const pair: ClassifiedPair = {
      domainId: prev.domainId,
      isp: prev.isp,
      domainUrl: prev.domainUrl,
      class: step.pairClass,
      alertable: false,
      severity: severityOf(prev.dropPercent, settings),
      dropPercent: prev.dropPercent,
      // Not in today's list: the last alertable numbers (day 7 back only; 14 is not stored).
      significance: poissonZ(prev.baseline, prev.yesterday),
      firstSeen: prev.firstSeen,
      quietRuns: step.quietRuns,
    };
    if (step.pairClass === 'cleared') pair.mayStillBeDepressed = depressedAfterClear(prev);
    if (silence !== undefined) pair.silenceId = silence.id;
    pairs.push(pair);
  }

  const added = newPairs(pairs, counts.new);
  const rollup = domains.build();
  const joined = joinReported(added, reported, rollup, counts);
  const domainRuns = domainRunsAfter(learned?.domainRuns, moves, variation, asOf, explained);
  const drops = classifyDrops({
    asOf,
    moves,
    variation,
    domainRuns,
    settings,
    active: activeDrops,
    isSilenced: (scope, domainId) => silencesWhole(input.silences, scope, domainId),
    domains: domainClicks,
  });
  const learnedAfter: LearnedState = {
    variation: learnedVariation,
    known,
    drops: drops.active,
    day30Shares: day30SharesAfter(learned?.day30Shares, asOf, day30Share),
  };
  if (domainRuns.length > 0) learnedAfter.domainRuns = domainRuns;
  const outages = outagesAfter(learned?.outages, drops.active, asOf, settings);
  if (outages.length > 0) learnedAfter.outages = outages;
  const networkDips = networkDipsAfter(
    learned?.networkDips,
    moves.network?.log7,
    drops.active.some((d) => d.scope === 'network' && d.lastSeen === asOf),
    asOf,
  );
  if (networkDips.length > 0) learnedAfter.networkDips = networkDips;
  const levelShifts = levelShiftsAfter(learned?.levelShifts, drops.active, asOf);
  if (levelShifts.length > 0) learnedAfter.levelShifts = levelShifts;
  return {
    asOf,
    // The pairs that joined a report are ongoing now: listed only with the ongoing ones.
    pairs: joined > 0 && !listOngoing ? pairs.filter((p) => p.class !== 'ongoing') : pairs,
    counts,
    domains: rollup,
    drops: drops.drops,
    variation,
    changes: {
      upsert,
      added,
      remove,
      runs,
      runsStarted: { asOf, entries: runsStarted },
      learned: learnedAfter,
    },
    belowThreshold,
    duplicates,
  };
}

/**
 * A domain's common drop is silenced by a silence of the whole domain (no ISP, or `*`); the
 * network's, by one of everything.
 */
function silencesWhole(silences: readonly Silence[], scope: DropScope, domainId: number): boolean {
  return silences.some(
    (s) =>
      (s.isp === undefined || s.isp === '*') &&
      (s.domainId === undefined || (scope === 'domain' && s.domainId === domainId)),
  );
}

/**
 * The pairs classified new (only today's entries are), `count` of them: the pairs added to the
 * history, and those that may join a recent report (joinReported). Gathered at the end, in an
 * array of their number.
 */
function newPairs(pairs: readonly ClassifiedPair[], count: number): AddedPair[] {
  const added = new Array<AddedPair>(count);
  let at = 0;
  for (let i = 0; i < pairs.length && at < count; i++) {
    const pair = pairs[i]!;
    if (pair.class === 'new') added[at++] = pair as AddedPair;
  }
  added.length = at;
  return added;
}

/** How recent a domain's outage must be for an ISP to join its report (as-of days). */
export const JOIN_WITHIN_DAYS = 2;

/**
 * A domain that is down was reported whole on its first day; an ISP of it that crosses the
 * thresholds a day or two later (its comparison day was just under minBaselineClicks, say)
 * joins that report instead of sending "1 new" on its own: it becomes active as ongoing. Only
 * while the domain is a headline today and at least HEADLINE_MIN_ISPS of its pairs, first seen
 * on the same day within the last JOIN_WITHIN_DAYS, are still alertable: an outage, not a
 * domain that happens to have several unrelated declines. Returns how many joined.
 */
function joinReported(
  fresh: readonly ClassifiedPair[],
  reported: ReadonlyMap<number, ReadonlyMap<IsoDate, number>>,
  rollup: readonly DomainRollup[],
  counts: ClassCounts,
): number {
  if (fresh.length === 0 || reported.size === 0) return 0;
  const outbreaks = new Set<number>();
  reported.forEach((byDay, domainId) => {
    byDay.forEach((pairs) => {
      if (pairs >= HEADLINE_MIN_ISPS) outbreaks.add(domainId);
    });
  });
  const joinable = new Set<number>();
  for (const domain of rollup) {
    if (domain.headline && outbreaks.has(domain.domainId)) joinable.add(domain.domainId);
  }
  let joined = 0;
  for (const pair of fresh) {
    if (!joinable.has(pair.domainId)) continue;
    pair.class = 'ongoing';
    counts.new--;
    counts.ongoing++;
    joined++;
  }
  return joined;
}
