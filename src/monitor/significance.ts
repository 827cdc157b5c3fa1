/**
 * How far yesterday's clicks lie below normal, in standard deviations of day-to-day noise: the
 * figure `alerts.minSignificance` is compared with. docs/alert-quality.md has the measurement
 * that chose the rule and the numbers of the alternatives.
 *
 * Two kinds of noise move a pair's day. Chance: clicks are counts, and the difference of two
 * Poisson counts with the same mean has variance equal to their sum. And the network's own
 * variation: campaigns, mailings and bots move a day by a share of its clicks, which on the
 * log scale is a variance of its own, learned per network (monitor/variation.ts). Both days of
 * a comparison carry both kinds. A drop is judged against each separately and the two are
 * combined as independent noises combine: 1/z^2 = 1/z_chance^2 + 1/z_variation^2. A small
 * pair is judged mostly by chance, a large one mostly by the network's variation, and with no
 * learned variation the rule is the Poisson rule exactly.
 *
 * Days 7 and 14 back are the same weekday as yesterday, so both are fair comparisons (day 30
 * back is not); the drop must stand out against both. When most ISPs of the pair's domain are
 * down together today, the pair is judged against that common move (monitor/common-move.ts):
 * only what it lost beyond its domain is its own.
 */

/** Yesterday's clicks and the same weekday one and two weeks before it. */
export interface ClickCounts {
  yesterday: number;
  d7: number;
  d14: number;
}

/**
 * The network's variance of a day's clicks on the log scale a drop is judged by (0: chance
 * alone): one figure, or a curve of it by how much of the pair's noise is chance (Variation,
 * monitor/judged-variation.ts).
 */
export type ExtraVariance =
  number | { extra: number; chance?: readonly number[]; judged?: readonly number[] };

/** The noise a pair's drop is judged against today. */
export interface DropNoise {
  extra: ExtraVariance;
  /**
   * The share of each comparison day the pair's domain kept today by its common move (1:
   * none): the pair is judged against that share of its comparison day.
   */
  share7: number;
  share14: number;
}

/** Chance alone, no common move: the Poisson rule. */
export const POISSON_ONLY: DropNoise = { extra: 0, share7: 1, share14: 1 };

export type SignificanceRule = (counts: ClickCounts, noise: DropNoise) => number;

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
  return poissonZBelowShare(before, 1, after);
}

/**
 * z of `after` lying below `share` of `before` (both Poisson counts): how far beyond chance a
 * drop from `before` to `after` is larger than 1 - share. Under that share the two counts'
 * means are in the ratio share : 1, so their sum estimates them together and share * before -
 * after has variance share * (before + after) (with share 1, the Poisson difference above).
 * One click is taken off the difference (the continuity correction above).
 */
export function poissonZBelowShare(before: number, share: number, after: number): number {
  const variance = share * (before + after);
  if (variance <= 0) return 0;
  const diff = share * before - after;
  return (Math.sign(diff) * Math.max(0, Math.abs(diff) - 1)) / Math.sqrt(variance);
}

/**
 * z of `after` lying below `share` of `before`, against chance and against a day-to-day
 * variation of variance `extra` (log scale) on both days, combined. `days`: the counts are sums
 * over that many days, whose variations are independent (a listed run, monitor/runs.ts).
 */
export function dropZ(
  before: number,
  share: number,
  after: number,
  extra: ExtraVariance,
  days = 1,
): number {
  const chance = poissonZBelowShare(before, share, after);
  if (chance <= 0 || extraOf(extra) <= 0) return chance;
  const log = Math.log((share * before + 0.5) / (after + 0.5));
  if (log <= 0) return 0;
  // Chance's variance of the log ratio, on the scale of one day's comparison.
  const variance = varianceFor(extra, (days * log * log) / (chance * chance));
  return 1 / Math.sqrt(1 / (chance * chance) + (2 * variance) / (days * log * log));
}

/** The one figure of an ExtraVariance (a curve's: for a pair with no chance part). */
export function extraOf(extra: ExtraVariance): number {
  return typeof extra === 'number' ? extra : extra.extra;
}

/**
 * The variance to judge a drop by when chance's variance of its log ratio is `chanceVariance`:
 * read off the curve on the log scale of chance (its ends beyond them).
 */
export function varianceFor(extra: ExtraVariance, chanceVariance: number): number {
  if (typeof extra === 'number') return extra;
  const { chance, judged } = extra;
  if (chance === undefined || judged === undefined || chance.length === 0) return extra.extra;
  const last = chance.length - 1;
  if (!(chanceVariance > chance[0]!)) return judged[0]!;
  if (chanceVariance >= chance[last]!) return judged[last]!;
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (chance[mid]! <= chanceVariance) lo = mid;
    else hi = mid;
  }
  const t = Math.log(chanceVariance / chance[lo]!) / Math.log(chance[hi]! / chance[lo]!);
  return judged[lo]! + t * (judged[hi]! - judged[lo]!);
}

/**
 * The rule in use: the drop must stand out against BOTH weeks back, and the weaker of the two
 * z figures is the evidence. One comparison day that happened to be high (the usual source of
 * a noise alert) no longer suffices, while a real drop lies below both weeks and loses almost
 * nothing.
 */
export function significanceOf(counts: ClickCounts, noise: DropNoise = POISSON_ONLY): number {
  return Math.min(
    dropZ(counts.d7, noise.share7, counts.yesterday, noise.extra),
    dropZ(counts.d14, noise.share14, counts.yesterday, noise.extra),
  );
}

/**
 * The alternatives measured with `npm run quality -- --compare` (docs/alert-quality.md), kept
 * so the measurement can be repeated; the monitor uses `significanceOf` only.
 */
export const SIGNIFICANCE_RULES: Readonly<Record<string, SignificanceRule>> = {
  /** The previous rule: chance alone, against both weeks (continuity-corrected). */
  poisson: (counts) => significanceOf(counts, POISSON_ONLY),
  /** The learned variation, but no common move: every pair judged by its own clicks. */
  'learned-own': (counts, noise) =>
    significanceOf(counts, { extra: noise.extra, share7: 1, share14: 1 }),
  /** The rule in use. */
  learned: significanceOf,
  /** Against the two weeks pooled (their geometric mean), learned variation and common move. */
  'learned-pooled': (counts, noise) => pooledZ(counts, noise),
};

/**
 * z of yesterday below the geometric mean of the two weeks back (each as the common move left
 * it): the comparison's variation is 1.5 x a day's (yesterday's, and half of each week's).
 */
function pooledZ(counts: ClickCounts, noise: DropNoise): number {
  const base = Math.sqrt(noise.share7 * counts.d7 * noise.share14 * counts.d14);
  const chance = poissonZBelowShare(base * 2, 0.5, counts.yesterday);
  const extra = extraOf(noise.extra);
  if (chance <= 0 || extra <= 0) return chance;
  const log = Math.log((base + 0.5) / (counts.yesterday + 0.5));
  if (log <= 0) return 0;
  return 1 / Math.sqrt(1 / (chance * chance) + (1.5 * extra) / (log * log));
}
