import { depressedAfterClear } from './depressed.js';
import { holdsUnlisted, keepsRunUnlisted } from './hold.js';
import { leavesWithNetwork, type JudgingDay } from './judging-day.js';
import { stepHeld, stepQuiet, type Step } from './lifecycle-step.js';
import { pairKey } from './pair-key.js';
import type { PairOutcomes } from './pair-outcomes.js';
import type { PairSlot } from './pair-slots.js';
import { poissonZ } from './significance.js';
import { severityOf } from './thresholds.js';
import type { TodaysMoves } from './todays-moves.js';
import type { ClassifiedPair } from './types.js';

/**
 * Judges each pair of the history that today's list leaves out: held by the monitor's memory
 * (monitor/hold.ts) or quiet; what that changes goes to `out`.
 */
export function judgeUnlistedPairs(
  day: JudgingDay,
  /** The pairs of the history, each once (findPairSlots); the listed ones are skipped. */
  history: readonly PairSlot[],
  /** How much quieter day 30 back is, today and as remembered (readTodaysMoves). */
  day30: Pick<TodaysMoves, 'day30Share' | 'day30Remembered'>,
  out: PairOutcomes,
): void {
  const { asOf, settings, inPlace } = day;
  for (const slot of history) {
    if (slot.listed) continue;
    const prev = slot.prev!;
    const watchedRun = slot.watched;
    const silence = day.matchSilence(prev.domainId, prev.isp);
    const silenced = silence !== undefined;
    const stepped: Step = { pairClass: 'new', next: undefined, quietRuns: 0 };
    const step = holdsUnlisted(
      watchedRun,
      asOf,
      prev.dropPercent,
      day30.day30Share,
      day30.day30Remembered,
      settings,
    )
      ? stepHeld(stepped, prev, silenced)
      : stepQuiet(stepped, prev, silenced, asOf, settings, inPlace);
    if (step.next !== undefined && watchedRun !== undefined && keepsRunUnlisted(watchedRun, asOf)) {
      out.runs.push(watchedRun);
    }
    if (step.pairClass === 'cleared' && leavesWithNetwork(day, prev)) {
      out.remove.push(pairKey(prev.domainId, prev.isp));
      continue;
    }
    const shown = out.record(
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
    out.pairs.push(pair);
  }
}
