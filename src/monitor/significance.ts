/**
 * How far yesterday's clicks lie below normal, in standard deviations of day-to-day noise: the
 * figure `alerts.minSignificance` is compared with. docs/alert-quality.md has the measurement
 * that chose the rule and the numbers of the alternatives.
 *
 * Clicks of one day are a Poisson count, and so is each comparison day: the difference of two
 * counts with the same mean has variance equal to the sum of the two counts. Days 7 and 14 back
 * are the same weekday as yesterday, so both are fair comparisons; day 30 back is not.
 */

/** Yesterday's clicks and the same weekday one and two weeks before it. */
export interface ClickCounts {
  yesterday: number;
  d7: number;
  d14: number;
}

export type SignificanceRule = (counts: ClickCounts) => number;

/** z of a drop from `before` to `after`, two Poisson counts: (b - a) / sqrt(b + a). */
export function poissonZ(before: number, after: number): number {
  const total = before + after;
  return total > 0 ? (before - after) / Math.sqrt(total) : 0;
}

/**
 * The same with a continuity correction: counts move in whole clicks, so one click of the
 * difference is taken off before dividing (0 when the counts differ by at most one). It matters
 * only for small counts, where the plain z overstates the evidence.
 */
export function poissonZCorrected(before: number, after: number): number {
  // Share 1: the same sums (1 * 1 * b + a, 1 * b - a are exact), so the same figures.
  return poissonZBelowShare(before, 1, after);
}

/**
 * z of `after` lying below `share` of `before` (both Poisson counts): how far beyond noise a drop
 * from `before` to `after` is larger than 1 - share. `share * before` has variance
 * share^2 * before; one click is taken off the difference (the continuity correction above).
 */
export function poissonZBelowShare(before: number, share: number, after: number): number {
  const variance = share * share * before + after;
  if (variance <= 0) return 0;
  const diff = share * before - after;
  return (Math.sign(diff) * Math.max(0, Math.abs(diff) - 1)) / Math.sqrt(variance);
}

/**
 * The rule in use: the drop must stand out against BOTH weeks back, and the weaker of the two
 * z figures is the evidence. One comparison day that happened to be high (the usual source of
 * a noise alert) no longer suffices, while a real drop lies below both weeks and loses almost
 * nothing.
 */
export function significanceOf(counts: ClickCounts): number {
  return Math.min(
    poissonZCorrected(counts.d7, counts.yesterday),
    poissonZCorrected(counts.d14, counts.yesterday),
  );
}

/**
 * The alternatives measured with `npm run quality -- --compare` (docs/alert-quality.md), kept
 * so the measurement can be repeated; the monitor uses `significanceOf` only.
 */
export const SIGNIFICANCE_RULES: Readonly<Record<string, SignificanceRule>> = {
  /** The first version: treats the 7-days-back count as a known mean (overstates ~1.4x). */
  'baseline-only': ({ yesterday, d7 }) => (d7 > 0 ? (d7 - yesterday) / Math.sqrt(d7) : 0),
  /** Poisson difference against day 7 back only. */
  'poisson-d7': ({ yesterday, d7 }) => poissonZ(d7, yesterday),
  /** Against the mean m of days 7 and 14 back: (m - y) / sqrt(y + m / 2). */
  'poisson-pooled': ({ yesterday, d7, d14 }) => {
    const mean = (d7 + d14) / 2;
    const variance = yesterday + mean / 2;
    return variance > 0 ? (mean - yesterday) / Math.sqrt(variance) : 0;
  },
  /** The weaker of the two Poisson differences, no continuity correction. */
  'poisson-min': ({ yesterday, d7, d14 }) =>
    Math.min(poissonZ(d7, yesterday), poissonZ(d14, yesterday)),
  /** The rule in use. */
  'poisson-min-corrected': significanceOf,
};
