import { daysBetween } from '../dates.js';
import type { AlertSettings } from './alert-settings.js';
import type { DropNoise } from './significance.js';
import { isClearlyCritical, type PairMeasure, type Thresholds } from './thresholds.js';
import type { ActivePair, IsoDate, PairClass } from './types.js';

/*
 * One pair's step through the alert lifecycle (docs/design.md; words in the glossary of
 * types.ts): from its record in the history before the run, and how it stands today, to its
 * class and its record after.
 */

export type LifecycleSettings = Thresholds &
  Pick<AlertSettings, 'renotifyAfterDays' | 'clearAfterRuns'>;

/**
 * One pair's step through the lifecycle; `next` undefined = not (or no longer) in history, or
 * (class new) added to it by its ClassifiedPair (HistoryChange.added).
 */
export interface Step {
  pairClass: PairClass;
  next: ActivePair | undefined;
  /** Quiet runs after this run (0 when alertable; a held run leaves them as they were). */
  quietRuns: number;
}

/** An alertable pair: new, worse, reminder or ongoing (or silenced). */
export function stepAlertable(
  out: Step,
  prev: ActivePair | undefined,
  today: PairMeasure,
  noise: DropNoise,
  /** Judged against day 7 back as it would have been without the network's dip (dip-week.ts). */
  upToDip: boolean,
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
  const lastDropPercent = prev.dropPercent;
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
    (!upToDip || today.dropPercent - lastDropPercent >= settings.minDropPercent) &&
    isClearlyCritical(
      { yesterday: today.yesterday, d7: today.baseline, d14: today.d14 },
      settings,
      noise,
    )
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
export function stepHeld(out: Step, prev: ActivePair, silenced: boolean): Step {
  out.quietRuns = prev.quietRuns;
  return setStep(out, silenced ? 'silenced' : 'ongoing', prev);
}

/** An active pair that is not alertable today (absent, or listed under the thresholds). */
export function stepQuiet(
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
