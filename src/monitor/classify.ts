import type { AlertSettings } from '../config/schema.js';
import { daysBetween } from '../dates.js';
import { depressedAfterClear } from './depressed.js';
import { pairKey } from './pair-key.js';
import { DomainRollupBuilder, HEADLINE_MIN_ISPS } from './rollup.js';
import { silenceMatcher } from './silences.js';
import { extendRun, isSteadyDecline, type ListedRun } from './runs.js';
import { poissonZ, type SignificanceRule } from './significance.js';
import { measureEntry, severityOf, type PairMeasure, type Thresholds } from './thresholds.js';
import {
  EMAILED_CLASSES,
  PAIR_CLASSES,
  type ActivePair,
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
  /** The history before the run, by pairKey. Not modified. */
  active: ReadonlyMap<string, ActivePair>;
  settings: LifecycleSettings;
  /** The network's silences unexpired at run time (the caller owns the clock). */
  silences: readonly Silence[];
  /** The listed runs before this run, by pairKey (monitor/runs.ts). Not modified. */
  runs?: ReadonlyMap<string, WatchedRun>;
  /** The significance rule; only the simulation (`npm run quality -- --compare`) sets it. */
  rule?: SignificanceRule;
}

/** The classes that put a pair into the e-mail under these settings. */
export function emailedClasses(settings: Pick<AlertSettings, 'notifyCleared'>): PairClass[] {
  return EMAILED_CLASSES.filter((c) => c !== 'cleared' || settings.notifyCleared);
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

/** One pair's step through the lifecycle; `next` undefined = not (or no longer) in history. */
interface Step {
  pairClass: PairClass;
  next: ActivePair | undefined;
  /** Quiet runs in a row after this run (0 when alertable). */
  quietRuns: number;
}

/** An alertable pair: new, worse, reminder or ongoing (or silenced). */
function stepAlertable(
  prev: ActivePair | undefined,
  today: PairMeasure,
  domainId: number,
  isp: string,
  domainUrl: string,
  silenced: boolean,
  asOf: IsoDate,
  settings: LifecycleSettings,
): Step {
  if (prev === undefined) {
    // A silenced pair nobody was told about is not remembered: if it still declines when the
    // silence expires, it is news then.
    if (silenced) return { pairClass: 'silenced', next: undefined, quietRuns: 0 };
    return {
      pairClass: 'new',
      quietRuns: 0,
      next: {
        domainId,
        isp,
        domainUrl,
        firstSeen: asOf,
        lastSeen: asOf,
        lastNotified: asOf,
        notifiedSeverity: today.severity,
        quietRuns: 0,
        baseline: today.baseline,
        yesterday: today.yesterday,
        dropPercent: today.dropPercent,
      },
    };
  }
  const next: ActivePair = {
    domainId,
    isp,
    domainUrl,
    firstSeen: prev.firstSeen,
    lastSeen: asOf,
    lastNotified: prev.lastNotified,
    notifiedSeverity: prev.notifiedSeverity,
    quietRuns: 0,
    baseline: today.baseline,
    yesterday: today.yesterday,
    dropPercent: today.dropPercent,
  };
  if (silenced) return { pairClass: 'silenced', next, quietRuns: 0 };
  if (today.severity === 'critical' && prev.notifiedSeverity === 'warning') {
    next.lastNotified = asOf;
    next.notifiedSeverity = 'critical';
    return { pairClass: 'worse', next, quietRuns: 0 };
  }
  const renotify = settings.renotifyAfterDays;
  if (renotify > 0 && daysBetween(prev.lastNotified, asOf) >= renotify) {
    next.lastNotified = asOf;
    next.notifiedSeverity = today.severity;
    return { pairClass: 'reminder', next, quietRuns: 0 };
  }
  return { pairClass: 'ongoing', next, quietRuns: 0 };
}

/** An active pair that is not alertable today (absent, or listed under the thresholds). */
function stepQuiet(
  prev: ActivePair,
  silenced: boolean,
  asOf: IsoDate,
  settings: LifecycleSettings,
): Step {
  // Quiet runs count as-of dates: a forced re-run of the same date is not a second quiet run.
  const quietRuns = prev.quietAsOf === asOf ? prev.quietRuns : prev.quietRuns + 1;
  if (quietRuns >= settings.clearAfterRuns) {
    return { pairClass: silenced ? 'silenced' : 'cleared', next: undefined, quietRuns };
  }
  return {
    pairClass: silenced ? 'silenced' : 'ongoing',
    next: { ...prev, quietRuns, quietAsOf: asOf },
    quietRuns,
  };
}

/**
 * Where a pair stands in this run. Pairs are found by domain id, then by the ISP string as
 * parsed: V8 caches a string's hash, so each ISP is hashed once, where a concatenated pairKey
 * would be a fresh string hashed on every lookup (measurably slower at 50,000 pairs).
 */
interface Slot {
  key: string;
  prev: ActivePair | undefined;
  listed: boolean;
  run: ListedRun | undefined;
}

class PairIndex {
  private readonly domains = new Map<number, Map<string, Slot>>();

  slot(domainId: number, isp: string): Slot {
    let byIsp = this.domains.get(domainId);
    if (byIsp === undefined) {
      byIsp = new Map();
      this.domains.set(domainId, byIsp);
    }
    let slot = byIsp.get(isp);
    if (slot === undefined) {
      slot = { key: '', prev: undefined, listed: false, run: undefined };
      byIsp.set(isp, slot);
    }
    return slot;
  }
}

export function classifyPairs(input: ClassifyInput): Classification {
  const { asOf, entries, settings } = input;
  const matchSilence = silenceMatcher(input.silences);
  const pairs: ClassifiedPair[] = [];
  const counts = emptyClassCounts();
  const upsert: ActivePair[] = [];
  const remove: string[] = [];
  const domains = new DomainRollupBuilder();
  const index = new PairIndex();
  const history: Slot[] = [];
  let belowThreshold = 0;
  let duplicates = 0;
  /** Pairs classified new, and the recently reported pairs still alertable (joinReported). */
  const fresh: ClassifiedPair[] = [];
  const reported = new Map<string, number>();

  for (const [key, prev] of input.active) {
    const slot = index.slot(prev.domainId, prev.isp);
    slot.key = key;
    slot.prev = prev;
    history.push(slot);
  }
  if (input.runs)
    for (const run of input.runs.values()) index.slot(run.domainId, run.isp).run = run;
  const runs: WatchedRun[] = [];

  const record = (
    key: string,
    prev: ActivePair | undefined,
    step: Step,
    pair: ClassifiedPair,
    baseline: number,
    yesterday: number,
  ): void => {
    if (step.next !== undefined) upsert.push(step.next);
    else if (prev !== undefined) remove.push(key);
    counts[pair.class]++;
    pairs.push(pair);
    if (pair.class === 'new') fresh.push(pair);
    else if (
      prev !== undefined &&
      pair.alertable &&
      pair.class !== 'silenced' &&
      daysBetween(prev.firstSeen, asOf) <= JOIN_WITHIN_DAYS
    ) {
      const outbreak = `${pair.domainId}|${prev.firstSeen}`;
      reported.set(outbreak, (reported.get(outbreak) ?? 0) + 1);
    }
    domains.add(pair, baseline, yesterday);
  };

  for (const entry of entries) {
    const domainId = entry.network_tracking_domain_id;
    const isp = entry.isp;
    const slot = index.slot(domainId, isp);
    if (slot.listed) {
      duplicates++;
      continue;
    }
    slot.listed = true;
    const domainUrl = entry.relationship.url;
    domains.listed(domainId, domainUrl);

    const today = measureEntry(entry, settings, input.rule);
    const prev = slot.prev;
    const extended = extendRun(
      slot.run,
      asOf,
      { yesterday: today.yesterday, d7: today.baseline, d14: today.d14 },
      today.significance,
    );
    let run: WatchedRun | undefined;
    if (extended !== undefined) {
      run = extended === slot.run ? (slot.run as WatchedRun) : { domainId, isp, ...extended };
      runs.push(run);
    }
    if (prev !== undefined) today.alertable = today.sustained;
    const steady = !today.alertable && isSteadyDecline(run, today, settings);
    if (steady) today.alertable = true;
    if (prev === undefined && !today.alertable) {
      belowThreshold++;
      continue;
    }
    const key = slot.key || pairKey(domainId, isp);
    const silence = matchSilence(domainId, isp);
    const step = today.alertable
      ? stepAlertable(prev, today, domainId, isp, domainUrl, silence !== undefined, asOf, settings)
      : stepQuiet(prev as ActivePair, silence !== undefined, asOf, settings);
    const pair: ClassifiedPair = {
      key,
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
    };
    // The e-mail builds its figures from the entry, for the pairs it lists only.
    pair.entry = entry;
    if (run !== undefined) pair.run = run;
    if (steady) pair.steady = true;
    if (step.pairClass === 'cleared' && prev !== undefined) {
      pair.mayStillBeDepressed = depressedAfterClear(prev);
    }
    if (silence !== undefined) pair.silenceId = silence.id;
    record(key, prev, step, pair, today.baseline, today.yesterday);
  }

  for (const slot of history) {
    if (slot.listed) continue;
    const prev = slot.prev as ActivePair;
    const key = slot.key;
    const silence = matchSilence(prev.domainId, prev.isp);
    const step = stepQuiet(prev, silence !== undefined, asOf, settings);
    const pair: ClassifiedPair = {
      key,
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
    record(key, prev, step, pair, prev.baseline, prev.yesterday);
  }

  const rollup = domains.build();
  joinReported(fresh, reported, rollup, counts);
  return {
    asOf,
    pairs,
    counts,
    domains: rollup,
    changes: { upsert, remove, runs },
    belowThreshold,
    duplicates,
  };
}

/** How recent a domain's outage must be for an ISP to join its report (as-of days). */
export const JOIN_WITHIN_DAYS = 2;

/**
 * A domain that is down was reported whole on its first day; an ISP of it that crosses the
 * thresholds a day or two later (its comparison day was just under minBaselineClicks, say)
 * joins that report instead of sending "1 new" on its own: it becomes active as ongoing. Only
 * while the domain is a headline today and at least HEADLINE_MIN_ISPS of its pairs, first seen
 * on the same day within the last JOIN_WITHIN_DAYS, are still alertable: an outage, not a
 * domain that happens to have several unrelated declines.
 */
function joinReported(
  fresh: readonly ClassifiedPair[],
  reported: ReadonlyMap<string, number>,
  rollup: readonly DomainRollup[],
  counts: ClassCounts,
): void {
  if (fresh.length === 0 || reported.size === 0) return;
  const outbreaks = new Set<number>();
  for (const [outbreak, pairs] of reported) {
    if (pairs >= HEADLINE_MIN_ISPS) outbreaks.add(Number(outbreak.slice(0, outbreak.indexOf('|'))));
  }
  const joinable = new Set<number>();
  for (const domain of rollup) {
    if (domain.headline && outbreaks.has(domain.domainId)) joinable.add(domain.domainId);
  }
  for (const pair of fresh) {
    if (!joinable.has(pair.domainId)) continue;
    pair.class = 'ongoing';
    counts.new--;
    counts.ongoing++;
  }
}
