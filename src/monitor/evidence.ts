import { runSignificance } from './runs.js';
import type { ClassifiedPair } from './types.js';

/**
 * Why a pair is in the e-mail and how strong the evidence is, in words a person reads: the
 * renderer shows these as they are (src/notify/render/alert.ts). Pure; docs/alert-quality.md
 * explains the figure.
 */

export interface PairEvidence {
  /** The drop in standard deviations of day-to-day noise (significanceOf), one decimal. */
  z: number;
  /** How strong that is, in words. */
  strength: string;
  /** Why the pair is here beyond today's numbers: its listed run, when it has one. */
  reason?: string;
  /** One line: strength, z and reason together. */
  line: string;
}

/** Shown once under the pairs, so "z" never stands unexplained. */
export const EVIDENCE_LEGEND =
  'z: how many standard deviations of normal day-to-day variation the drop is (against the same weekday 7 and 14 days back, the weaker of the two); alerts.minSignificance sets where alerting starts.';

/** Strength bands, strongest first. */
const BANDS: ReadonlyArray<readonly [number, string]> = [
  [10, 'far beyond normal day-to-day variation'],
  [5, 'well beyond normal day-to-day variation'],
  [3, 'beyond normal day-to-day variation'],
  [2, 'at the edge of normal day-to-day variation'],
];

export function strengthOf(z: number): string {
  for (const [min, words] of BANDS) if (z >= min) return words;
  return 'within normal day-to-day variation';
}

/** "-31%": a drop shown as a signed whole percent. */
function minusPercent(dropPercent: number): string {
  const rounded = Math.round(dropPercent);
  return rounded === 0 ? '0%' : `${rounded > 0 ? '-' : '+'}${Math.abs(rounded)}%`;
}

/**
 * A run of up to 7 days began after the day 7 back, so today's drop against that day is the
 * whole decline so far ("in total"); a longer run has its comparison day inside it.
 */
export function runReason(pair: Pick<ClassifiedPair, 'run' | 'dropPercent'>): string | undefined {
  const run = pair.run;
  if (run === undefined || run.days < 2) return undefined;
  if (run.days <= 7)
    return `down ${run.days} days running, ${minusPercent(pair.dropPercent)} in total`;
  return `down ${run.days} days running`;
}

export function evidenceOf(
  pair: Pick<ClassifiedPair, 'significance' | 'dropPercent' | 'run' | 'steady'>,
): PairEvidence {
  const z = round1(pair.significance);
  const reason = runReason(pair);
  const tail = reason ? `; ${reason}` : '';
  if (pair.steady && pair.run !== undefined) {
    // Alerted on the run's days together: say so, and what yesterday alone would have said.
    const together = round1(runSignificance(pair.run));
    const strength = `${strengthOf(together)} over ${pair.run.days} days in a row`;
    const line = `${capitalise(strength)} (z ${together.toFixed(1)}; yesterday alone z ${z.toFixed(1)})${tail}.`;
    return reason === undefined ? { z, strength, line } : { z, strength, reason, line };
  }
  const strength = strengthOf(pair.significance);
  const line = `${capitalise(strength)} (z ${z.toFixed(1)})${tail}.`;
  return reason === undefined ? { z, strength, line } : { z, strength, reason, line };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function capitalise(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}
