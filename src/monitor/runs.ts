import { daysBetween, type IsoDate } from '../dates.js';
import { dropZ, type ClickCounts, type ExtraVariance } from './significance.js';
import { dropPercentFromTotals, type Thresholds } from './thresholds.js';
import type { ListedRun, WatchedRun } from './types.js';

/**
 * The monitor's memory of the days a pair was listed (glossary in types.ts: "listed run").
 *
 * The partner API lists a pair every day its clicks are below the days 7, 14 and 30 back, so a
 * slow slide is in the list for days before any single day's drop is both large and certain
 * enough to alert on. Summing its listed days against the same weekdays one and two weeks
 * earlier gathers that evidence: four days of a 6%-a-day slide are as certain together as its
 * sixth day alone. docs/alert-quality.md has the measurement behind every constant here.
 */

/** A day joins (or starts) a run only with at least this much evidence of its own. */
export const RUN_MIN_DAY_SIGNIFICANCE = 0.5;
/**
 * On a day the network's dip is told (a holiday), a day starts a run only with this much
 * evidence beyond the dip; it joins a run listed the day before as on any other day. The list
 * holds a pair on such a day for the dip more than for itself, and a pair a little below the
 * dip is chance around it: such a day began a run that two chance days after it made a steady
 * decline, told the week after a holiday and cleared two days later (`poisson`, held out). A
 * slide that begins its run on the dip day is more than 2 sd beyond it.
 */
export const DIP_DAY_RUN_MIN_SIGNIFICANCE = 2;
/** A steady decline needs this many days in a row in the list, today included ... */
export const STEADY_MIN_DAYS = 3;
/**
 * ... or this many, when the run's days together dropped criticalDropPercent or more on average
 * against both weeks back (`runDropBothWeeks`), or today's drop alone is beyond minSignificance
 * (certain, only not yet minDropPercent deep).
 */
export const STEADY_SHORT_MIN_DAYS = 2;
/**
 * ... or when the run's days together are this far beyond minSignificance: the list does not
 * show the Mondays and Tuesdays of a pair with a quieter weekend (day 30 back is a weekend day,
 * so a weekday is not below it), and a slide that begins Saturday to Monday has two listed days
 * on Thursday, each short of minSignificance against the learned variation, together certain.
 * Not at the margin 0: two days just beyond it were chance often enough to add noise e-mails.
 */
export const STEADY_SHORT_RUN_MARGIN = 1;
/** ... today's drop is at least this share of minDropPercent ... */
export const STEADY_DROP_SHARE = 0.75;
/** ... and at least this share of the run's own average drop (deepening, not receding). */
export const STEADY_HOLD_SHARE = 0.75;

/**
 * The run of the pair (domainId, isp) after today's entry. A day with less evidence than
 * RUN_MIN_DAY_SIGNIFICANCE ends the run (undefined); a missed day starts a new one. A forced
 * re-run of the same as-of date keeps the run as it was (its numbers are already in). The pair's
 * WatchedRun is built here, in one object: a ListedRun and then a copy with the pair were two
 * objects a listed pair a run (target P6, docs/performance.md).
 */
export function extendRun(
  prev: WatchedRun | undefined,
  domainId: number,
  isp: string,
  asOf: IsoDate,
  today: ClickCounts,
  significance: number,
  /** Whether `prev` may be updated and returned (ClassifyInput.inPlace, monitor/classify.ts). */
  inPlace = false,
  /** Whether the network's dip is told today (DIP_DAY_RUN_MIN_SIGNIFICANCE). */
  networkDip = false,
): WatchedRun | undefined {
  switch (runStep(prev, asOf, significance, networkDip)) {
    case 'kept':
      return prev;
    case 'ended':
      return undefined;
    case 'begun':
      return begunRun(domainId, isp, asOf, today);
    case 'extended': {
      const run: WatchedRun = inPlace ? prev! : { ...prev! };
      run.last = asOf;
      run.days += 1;
      run.clicks += today.yesterday;
      run.d7 += today.d7;
      run.d14 += today.d14;
      return run;
    }
  }
}

/**
 * Whether today's entry begins a run of its own: `extendRun` would build a new one (no run
 * today yet, evidence enough, and no run that ended yesterday to extend).
 */
export function beginsRun(
  prev: WatchedRun | undefined,
  asOf: IsoDate,
  significance: number,
  networkDip = false,
): boolean {
  return runStep(prev, asOf, significance, networkDip) === 'begun';
}

/**
 * What today's entry does to the pair's run: nothing on a forced re-run of the same as-of date
 * (its numbers are already in), ends it with too little evidence, extends a run that was listed
 * yesterday, else begins a new one (on the network's dip day only with
 * DIP_DAY_RUN_MIN_SIGNIFICANCE). The one decision of `extendRun` and `beginsRun`.
 */
function runStep(
  prev: WatchedRun | undefined,
  asOf: IsoDate,
  significance: number,
  networkDip: boolean,
): 'kept' | 'ended' | 'extended' | 'begun' {
  if (prev !== undefined && prev.last === asOf) return 'kept';
  if (significance < RUN_MIN_DAY_SIGNIFICANCE) return 'ended';
  if (prev !== undefined && daysBetween(prev.last, asOf) === 1) return 'extended';
  return networkDip && significance < DIP_DAY_RUN_MIN_SIGNIFICANCE ? 'ended' : 'begun';
}

/**
 * The run a listed pair keeps on the run it is cleared: today's day alone. Its decline was told
 * and has ended, so the days before say nothing of a next one; summed on through the clear they
 * told a block for good again as a steady decline three runs after it was cleared (day 7 back
 * inside the block, day 14 back before it: 12 days of 355 clicks against 1,525). It stays a run
 * (not none): a pair listed in a run the day before is left out of what the network's variation
 * is learned from (variation-today.ts), and its days straddling a block for good would read as
 * noise.
 */
export function runAfterClear(run: WatchedRun, today: ClickCounts): WatchedRun {
  return begunRun(run.domainId, run.isp, run.last, today);
}

/** A run of one listed day, `asOf`, with that day's clicks. */
export function begunRun(
  domainId: number,
  isp: string,
  asOf: IsoDate,
  today: ClickCounts,
): WatchedRun {
  return {
    domainId,
    isp,
    since: asOf,
    last: asOf,
    days: 1,
    clicks: today.yesterday,
    d7: today.d7,
    d14: today.d14,
  };
}

/**
 * The run's evidence: significanceOf's rule applied to its summed clicks, against the learned
 * variation `extra` of one day (monitor/variation.ts): a sum of `days` days varies by 1/days of
 * it, as the days vary independently.
 */
export function runSignificance(run: ListedRun, extra: ExtraVariance = 0): number {
  return Math.min(
    dropZ(run.d7, 1, run.clicks, extra, run.days),
    dropZ(run.d14, 1, run.clicks, extra, run.days),
  );
}

/** The run's drop in percent against the same weekdays a week before (its summed days). */
export function runDropPercent(run: ListedRun): number {
  return dropPercentFromTotals(run.d7, run.clicks);
}

/**
 * The run's drop in percent against both weeks back, their average: what a run of
 * STEADY_SHORT_MIN_DAYS must have dropped to be told for its depth. Against day 7 back alone, two
 * chance days of a 300-click pair whose day 7 back was high (a day of 476 clicks) read 50.0%
 * (47.2% against day 14 back) and were told, and cleared two days later.
 */
export function runDropBothWeeks(run: ListedRun): number {
  return (runDropPercent(run) + dropPercentFromTotals(run.d14, run.clicks)) / 2;
}

/**
 * A steady decline: alertable although today's numbers alone are not enough. Not while the
 * common move the pair is judged against today is itself an outage, down criticalDropPercent or
 * more (`today.inOutage`): a domain down whole puts half its ISPs below its median move, and
 * their runs (a day of their own before it, two days of it) are no news of their own; the
 * domain's headline tells them, and a pair far below it is alertable on today's numbers. Listed
 * STEADY_MIN_DAYS runs in a row (each day with some evidence of its own; STEADY_SHORT_MIN_DAYS
 * when the run's days together dropped criticalDropPercent or more against both weeks back on
 * average, or when today's drop alone is beyond minSignificance and only its size keeps it from
 * an e-mail: a slide of a large pair is certain on the day it is 15-20% down, and the day before
 * in the list says it is a decline, not one bad day; or when the run's days together are
 * STEADY_SHORT_RUN_MARGIN beyond minSignificance); the run's summed days clear minSignificance
 * (what counts as certain does not change); the pair is of a size worth an e-mail: one of
 * today's comparison days (7, 14 or 30 back) meets minBaselineClicks (a weekend can put both
 * same-weekday days of a pair of 55 clicks a weekday under 50), or it was told before
 * (`today.told`: the floor is for a first e-mail, as isSustained); and today's drop is at least
 * STEADY_DROP_SHARE of minDropPercent (three days of a decline that is still deepening will
 * cross it: the run is why it is told now) and at least STEADY_HOLD_SHARE of the run's average
 * drop (still as deep: not the tail of an outage that has passed).
 */
export function isSteadyDecline(
  run: ListedRun | undefined,
  today: {
    baseline: number;
    d14: number;
    d30: number;
    dropPercent: number;
    /** Today's own evidence (significanceOf's rule, as the pair is judged today). */
    significance: number;
    /** The common move the pair is judged against today is down criticalDropPercent or more. */
    inOutage?: boolean;
    /** The pair is active (told before): no floor of minBaselineClicks, as isSustained. */
    told?: boolean;
  },
  settings: Thresholds,
  extra: ExtraVariance = 0,
): boolean {
  if (run === undefined) return false;
  const together = runSignificance(run, extra);
  const runDrop = runDropPercent(run);
  const short =
    runDropBothWeeks(run) >= settings.criticalDropPercent ||
    today.significance >= settings.minSignificance ||
    together >= settings.minSignificance + STEADY_SHORT_RUN_MARGIN;
  return (
    today.inOutage !== true &&
    settings.minSignificance > 0 &&
    run.days >= (short ? STEADY_SHORT_MIN_DAYS : STEADY_MIN_DAYS) &&
    today.baseline > 0 &&
    (today.told === true ||
      Math.max(today.baseline, today.d14, today.d30) >= settings.minBaselineClicks) &&
    today.dropPercent >= settings.minDropPercent * STEADY_DROP_SHARE &&
    today.dropPercent >= runDrop * STEADY_HOLD_SHARE &&
    together >= settings.minSignificance
  );
}
