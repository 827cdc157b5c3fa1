import type { AlertSettings } from './alert-settings.js';
import { daysBetween } from '../dates.js';
import { depressedAfterClear } from './depressed.js';
import { Day30Evidence, holdsListed, holdsUnlisted, keepsRunUnlisted } from './hold.js';
import { pairKey } from './pair-key.js';
import { PairTable } from './pair-table.js';
import { DomainRollupBuilder, HEADLINE_MIN_ISPS } from './rollup.js';
import { silenceMatcher } from './silences.js';
import { beginsRun, extendRun, isSteadyDecline } from './runs.js';
import { poissonZ, type SignificanceRule } from './significance.js';
import {
  emptyMeasure,
  isClearlyCritical,
  measureEntryInto,
  severityOf,
  type PairMeasure,
  type Thresholds,
} from './thresholds.js';
import {
  EMAILED_CLASSES,
  PAIR_CLASSES,
  type ActivePair,
  type AddedPair,
  type ClassCounts,
  type Classification,
  type ClassifiedPair,
  type DomainRollup,
  type IsoDate,
  type IspTrend,
  type PairClass,
  type Silence,
  type WatchedRun,
} from './types.js';

export { depressedAfterClear } from './depressed.js';
export { pairKey, parsePairKey, pairEvent } from './pair-key.js';

/*
 * The alert lifecycle (docs/design.md; words in the glossary of types.ts), as a
 * pure function: no clock, no I/O. Every pair of today's list that is alertable or active, and
 * every pair of the active history, gets exactly one class; `changes` is the history after
 * the run. One pass over the entries and one over the history: linear, nothing sorted but the
 * (few) domains.
 */

export type LifecycleSettings = Thresholds &
  Pick<AlertSettings, 'renotifyAfterDays' | 'clearAfterRuns'>;

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

/**
 * One pair's step through the lifecycle; `next` undefined = not (or no longer) in history, or
 * (class new) added to it by its ClassifiedPair (HistoryChange.added). The
 * step functions fill one Step per classifyPairs call, read before the next pair's step (one
 * object a run instead of one a pair; target P6, docs/performance.md).
 */
interface Step {
  pairClass: PairClass;
  next: ActivePair | undefined;
  /** Quiet runs after this run (0 when alertable; a held run leaves them as they were). */
  quietRuns: number;
}

/** An alertable pair: new, worse, reminder or ongoing (or silenced). */
function stepAlertable(
  out: Step,
  prev: ActivePair | undefined,
  today: PairMeasure,
  domainUrl: string,
  silenced: boolean,
  asOf: IsoDate,
  settings: LifecycleSettings,
  inPlace: boolean,
): Step {
  out.quietRuns = 0;
  if (prev === undefined) {
    // A silenced pair nobody was told about is not remembered: if it still declines when the
    // silence expires, it is news then.
    if (silenced) return setStep(out, 'silenced', undefined);
    // Active from now on, but no record is built: its ClassifiedPair stands for it
    // (HistoryChange.added, types.ts).
    return setStep(out, 'new', undefined);
  }
  // Read before `next` is written: with inPlace it is `prev` itself.
  const wasWarning = prev.notifiedSeverity === 'warning';
  const lastNotified = prev.lastNotified;
  const next: ActivePair = inPlace ? prev : { ...prev };
  next.domainUrl = domainUrl;
  next.lastSeen = asOf;
  next.quietRuns = 0;
  next.baseline = today.baseline;
  next.yesterday = today.yesterday;
  next.dropPercent = today.dropPercent;
  next.quietAsOf = undefined;
  if (silenced) return setStep(out, 'silenced', next);
  if (
    today.severity === 'critical' &&
    wasWarning &&
    isClearlyCritical({ yesterday: today.yesterday, d7: today.baseline, d14: today.d14 }, settings)
  ) {
    next.lastNotified = asOf;
    next.notifiedSeverity = 'critical';
    return setStep(out, 'worse', next);
  }
  const renotify = settings.renotifyAfterDays;
  if (renotify > 0 && daysBetween(lastNotified, asOf) >= renotify) {
    next.lastNotified = asOf;
    next.notifiedSeverity = today.severity;
    return setStep(out, 'reminder', next);
  }
  return setStep(out, 'ongoing', next);
}

function setStep(out: Step, pairClass: PairClass, next: ActivePair | undefined): Step {
  out.pairClass = pairClass;
  out.next = next;
  return out;
}

/**
 * An active pair that is not alertable today but held (monitor/hold.ts): its decline goes on by
 * the monitor's memory, so this is not a quiet run. Nothing about it changes.
 */
function stepHeld(out: Step, prev: ActivePair, silenced: boolean): Step {
  out.quietRuns = prev.quietRuns;
  return setStep(out, silenced ? 'silenced' : 'ongoing', prev);
}

/** An active pair that is not alertable today (absent, or listed under the thresholds). */
function stepQuiet(
  out: Step,
  prev: ActivePair,
  silenced: boolean,
  asOf: IsoDate,
  settings: LifecycleSettings,
  inPlace: boolean,
): Step {
  // Quiet runs count as-of dates: a forced re-run of the same date is not a second quiet run.
  const quietRuns = prev.quietAsOf === asOf ? prev.quietRuns : prev.quietRuns + 1;
  out.quietRuns = quietRuns;
  if (quietRuns >= settings.clearAfterRuns) {
    return setStep(out, silenced ? 'silenced' : 'cleared', undefined);
  }
  const next: ActivePair = inPlace ? prev : { ...prev };
  next.quietRuns = quietRuns;
  next.quietAsOf = asOf;
  return setStep(out, silenced ? 'silenced' : 'ongoing', next);
}

/** The one table of pairs classification uses (it is synchronous: one run at a time). */
const TABLE = new PairTable();

export function classifyPairs(input: ClassifyInput): Classification {
  // Indexed loops, not for...of: at 50,000 pairs the iterator's entry arrays and result objects
  // were megabytes of garbage a run (target P6, docs/performance.md).
  const active = input.active;
  const watched = input.runs ?? [];
  const table = TABLE;
  table.reset(active, watched, input.entries);
  try {
    for (let a = 0; a < active.length; a++) table.addPrev(a);
    for (let r = 0; r < watched.length; r++) table.addRun(r);
    return classifyFiled(input, table);
  } finally {
    table.release();
  }
}

/** classifyPairs, once the history and the listed runs are filed in `table`. */
function classifyFiled(input: ClassifyInput, table: PairTable): Classification {
  const { asOf, entries, settings } = input;
  const listOngoing = input.listOngoing ?? true;
  const inPlace = input.inPlace ?? false;
  const matchSilence = silenceMatcher(input.silences);
  const pairs: ClassifiedPair[] = [];
  const counts = emptyClassCounts();
  // The history after the run and the runs carried over: sized for the most they can hold (each
  // holds at most one of each pair before the run, plus the runs that begin for them) and cut
  // to length at the end, not grown item by item: at 50,000 pairs the arrays a push leaves
  // behind were ~1.6 MiB of garbage a run (target P6, docs/performance.md).
  const upsert = new Array<ActivePair>(input.active.length);
  let upserted = 0;
  const remove: string[] = [];
  const domains = new DomainRollupBuilder();
  let belowThreshold = 0;
  let duplicates = 0;
  /** By domain, then by firstSeen: how many of its pairs first seen that day are still alertable. */
  const reported = new Map<number, Map<IsoDate, number>>();
  /** The measure of the entry at hand and its step, refilled per pair (none is kept). */
  const today: PairMeasure = emptyMeasure();
  const stepped: Step = { pairClass: 'new', next: undefined, quietRuns: 0 };
  const runs = new Array<WatchedRun>(input.runs?.length ?? 0);
  let kept = 0;
  const runsStarted: IspTrend[] = [];
  /** extendRun's input, refilled per entry (it reads it, never keeps it). */
  const clicks = { yesterday: 0, d7: 0, d14: 0 };
  const day30 = new Day30Evidence(settings.minBaselineClicks);

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
    if (step.next !== undefined) upsert[upserted++] = step.next;
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

  for (let e = 0; e < entries.length; e++) {
    const slot = table.addEntry(e);
    if (slot < 0) {
      duplicates++;
      continue;
    }
    const entry = entries[e]!;
    const domainId = entry.network_tracking_domain_id;
    const isp = entry.isp;
    const domainUrl = entry.relationship.url;
    domains.listed(domainId, domainUrl);
    day30.add(entry);

    measureEntryInto(today, entry, settings, input.rule);
    const prev = table.prevOf(slot);
    clicks.yesterday = today.yesterday;
    clicks.d7 = today.baseline;
    clicks.d14 = today.d14;
    const watched = table.runOf(slot);
    let run: WatchedRun | undefined;
    if (prev === undefined && beginsRun(watched, asOf, today.significance)) {
      // A run of one day for a pair without history: nothing reads it today (a steady decline
      // takes STEADY_MIN_DAYS, an e-mail tells a run from 2 days), so its entry stands for it
      // (HistoryChange.runsStarted).
      runsStarted.push(entry);
    } else {
      run = extendRun(watched, domainId, isp, asOf, clicks, today.significance, inPlace);
      if (run !== undefined) runs[kept++] = run;
    }
    if (prev !== undefined) today.alertable = today.sustained;
    const steady = !today.alertable && isSteadyDecline(run, today, settings);
    if (steady) today.alertable = true;
    if (prev === undefined && !today.alertable) {
      belowThreshold++;
      continue;
    }
    const silence = matchSilence(domainId, isp);
    const silenced = silence !== undefined;
    let step: Step;
    if (today.alertable) {
      step = stepAlertable(stepped, prev, today, domainUrl, silenced, asOf, settings, inPlace);
    } else {
      const active = prev as ActivePair;
      step = holdsListed(run, today.dropPercent, active.dropPercent, settings)
        ? stepHeld(stepped, active, silenced)
        : stepQuiet(stepped, active, silenced, asOf, settings, inPlace);
    }
    const listed = record(
      prev,
      step,
      domainId,
      isp,
      domainUrl,
      today.alertable,
      today.baseline,
      today.yesterday,
    );
    if (!listed) continue;
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
      entry,
      // In the literal, not added after: a property added later costs each of 50,000 pairs a
      // second allocation (its out-of-object property store; target P6).
      run,
    };
    if (steady) pair.steady = true;
    if (step.pairClass === 'cleared' && prev !== undefined) {
      pair.mayStillBeDepressed = depressedAfterClear(prev);
    }
    if (silence !== undefined) pair.silenceId = silence.id;
    pairs.push(pair);
  }

  const day30Share = day30.share();
  for (let h = 0; h < table.historySize; h++) {
    const slot = table.historySlot(h);
    if (table.listed(slot)) continue;
    const prev = table.prevOf(slot)!;
    const watchedRun = table.runOf(slot);
    const silence = matchSilence(prev.domainId, prev.isp);
    const silenced = silence !== undefined;
    const step = holdsUnlisted(watchedRun, asOf, prev.dropPercent, day30Share, settings)
      ? stepHeld(stepped, prev, silenced)
      : stepQuiet(stepped, prev, silenced, asOf, settings, inPlace);
    if (step.next !== undefined && watchedRun !== undefined && keepsRunUnlisted(watchedRun, asOf)) {
      runs[kept++] = watchedRun;
    }
    const listed = record(
      prev,
      step,
      prev.domainId,
      prev.isp,
      prev.domainUrl,
      false,
      prev.baseline,
      prev.yesterday,
    );
    if (!listed) continue;
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

  upsert.length = upserted;
  runs.length = kept;
  const added = newPairs(pairs, counts.new);
  const rollup = domains.build();
  const joined = joinReported(added, reported, rollup, counts);
  return {
    asOf,
    // The pairs that joined a report are ongoing now: listed only with the ongoing ones.
    pairs: joined > 0 && !listOngoing ? pairs.filter((p) => p.class !== 'ongoing') : pairs,
    counts,
    domains: rollup,
    changes: { upsert, added, remove, runs, runsStarted: { asOf, entries: runsStarted } },
    belowThreshold,
    duplicates,
  };
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
