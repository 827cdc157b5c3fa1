import { logChiSquareDensity, normalTail } from './normal.js';
import type { LearnedVariation, Variation } from './types.js';
import {
  decayedSumGain,
  gridEstimates,
  MAX_EXTRA_SD,
  PRIOR_COMMON_SD,
  PRIOR_NETWORK_SD,
  VARIATION_GRID,
  variationOf,
} from './variation.js';

/**
 * The variation a run judges drops by: the learned one (monitor/variation.ts), widened by what
 * the network's days have not yet pinned down (glossary in types.ts: "learned variation").
 * docs/alert-quality.md has the measurement.
 *
 * The learned variation is an estimate, and early on it rests on few pairs: a network's first
 * Saturday lists 30-40 pairs while its estimate may still read half its true variance (two
 * thirds on average in the simulation's first week), and a drop that is ordinary for the
 * network passes as 4 standard deviations. Judging a drop against an
 * estimate as if it were the truth understates how often such a drop happens by chance; the
 * honest figure is the chance of the drop averaged over every variation the days seen so far
 * leave plausible (the predictive distribution: with an estimate from n comparisons of one
 * scale, that average is Student's t with n degrees of freedom).
 *
 * How plausible each variation is comes from the learned sums themselves. For each variation
 * V, the estimate made assuming it (`gridEstimates`, read between the grid's points as
 * variationOf reads them) rests on an effective count n of comparisons, and if V were the
 * truth, n x estimate / V would be a chi-square with n degrees of freedom: a variation whose
 * own estimate lies far below it is ruled out, as is one far above. Each V is weighed by that,
 * with the scale-free prior 1 / V (the textbook Student-t case). Unlike one count for every
 * variation, this knows that a network varying as chance does has ruled out large variations
 * even while its small estimate is uncertain in proportion: its comparisons weigh little at
 * the variation it has, but fully at one that would explain a real drop.
 *
 * The average chance is a mixture of normals, one per plausible variation; a drop is judged
 * against the variation at which a drop of `minSignificance` standard deviations is as
 * unlikely as the mixture says, for a comparison carrying as much chance as its own: a drop
 * beyond the threshold against it is beyond the threshold by the predictive chance. The more of
 * a pair's noise is chance, the less the variation's uncertainty moves it, so the run keeps a
 * curve of that variation by chance's variance (Variation.chance and .judged), which dropZ
 * reads per pair (monitor/significance.ts). It is never below the learned estimate, and falls
 * to it as the days pin the variation down.
 */

/** The sds at which the plausibility of the variation is read: 0.0025 apart up to the cap. */
const JUDGED_STEP_SD = 0.0025;
/** Variations weighing less than this share of the most plausible one are left out. */
const NEGLIGIBLE_WEIGHT = 1e-9;

/**
 * The variation to judge by at `minSignificance` (0: the learned estimate as it is), from the
 * learned sums `learned` (absent: the prior alone).
 */
export function judgedVariation(
  learned: LearnedVariation | undefined,
  minSignificance: number,
): Variation {
  const point = variationOf(learned);
  // No variation learned beyond chance (the estimate made assuming none is itself none): the
  // rule is the Poisson rule, exactly.
  if (!(minSignificance > 0) || point.extra <= 0) return point;
  const mixture = plausibleVariations(learned);
  const judgedAt = (chance: number) =>
    Math.min(
      MAX_EXTRA_SD ** 2,
      Math.max(point.extra, equivalentVariance(mixture, minSignificance, chance)),
    );
  const chance = CHANCE_STEPS.map((step) => 2 * point.extra * step);
  const judged = chance.map(judgedAt);
  return { ...point, extra: judged[0]!, chance, judged };
}

/**
 * Where the curve of the variance to judge by is read: chance variances of a comparison from
 * 1/64 to 256 times the network's own (2 x the learned extra), a factor of 2 apart. Below, the
 * variation is all (the first figure holds); above, chance is all and the variation barely
 * moves a pair's z.
 */
const CHANCE_STEPS: readonly number[] = Array.from({ length: 15 }, (_, i) => 2 ** (i - 6));

/** Variances and their weights (summing to 1): how plausible each is by the learned sums. */
export function plausibleVariations(learned: LearnedVariation | undefined): {
  variances: number[];
  weights: number[];
} {
  const { estimates, weights: counts } = gridEstimates(learned);
  const gain = decayedSumGain(learned?.days ?? 0);
  const priorCounts = gridEstimates(undefined).weights;
  const gridVariances = VARIATION_GRID.map((sd) => sd * sd);
  const variances: number[] = [];
  const logWeights: number[] = [];
  for (let sd = JUDGED_STEP_SD; sd <= MAX_EXTRA_SD + 1e-9; sd += JUDGED_STEP_SD) {
    const v = sd * sd;
    let k = 1;
    while (k < gridVariances.length - 1 && gridVariances[k]! < v) k++;
    const t = (v - gridVariances[k - 1]!) / (gridVariances[k]! - gridVariances[k - 1]!);
    const estimate = estimates[k - 1]! + t * (estimates[k]! - estimates[k - 1]!);
    const prior = priorCounts[k - 1]! + t * (priorCounts[k]! - priorCounts[k - 1]!);
    const n = prior + gain * (counts[k - 1]! + t * (counts[k]! - counts[k - 1]!) - prior);
    // An estimate at or under nothing: as small as the ratio can be read.
    const ratio = Math.max(estimate / v, 1e-9);
    // The density of the estimate if v were the truth (n x ratio is chi-square with n df; the
    // estimate's scale is v / n), times the prior 1 / v, times the step in v (2 sd x step).
    logWeights.push(logChiSquareDensity(n * ratio, n) + Math.log(n) - 3 * Math.log(sd));
    variances.push(v);
  }
  const most = Math.max(...logWeights);
  const weights = logWeights.map((w) => Math.exp(w - most));
  const kept = weights.map((w) => w >= NEGLIGIBLE_WEIGHT);
  const total = weights.reduce((sum, w, i) => (kept[i] ? sum + w : sum), 0);
  return {
    variances: variances.filter((_, i) => kept[i]),
    weights: weights.filter((_, i) => kept[i]).map((w) => w / total),
  };
}

/**
 * The variance v at which a drop of `z` standard deviations is as likely as under the mixture,
 * for a pair whose comparison carries chance variance `chance` besides (its log ratio's sd
 * sqrt(chance + 2 v)): the mixture's point of tail chance P(Z > z), found by bisection. The
 * more of a pair's noise is chance, the less the variation's uncertainty moves its tail: v
 * runs from the tail's figure (no chance) toward the mixture's mean (all chance).
 */
export function equivalentVariance(
  mixture: { variances: readonly number[]; weights: readonly number[] },
  z: number,
  chance = 0,
): number {
  const target = normalTail(z);
  const tail = (x: number): number => {
    let p = 0;
    for (let i = 0; i < mixture.variances.length; i++) {
      p += mixture.weights[i]! * normalTail(x / Math.sqrt(chance + 2 * mixture.variances[i]!));
    }
    return p;
  };
  // The point lies between the smallest variance's and the largest's.
  let lo = z * Math.sqrt(chance + 2 * Math.min(...mixture.variances));
  let hi = z * Math.sqrt(chance + 2 * Math.max(...mixture.variances));
  for (let i = 0; i < BISECTIONS; i++) {
    const mid = (lo + hi) / 2;
    if (tail(mid) > target) lo = mid;
    else hi = mid;
  }
  const x = (lo + hi) / 2;
  return Math.max(0, ((x * x) / (z * z) - chance) / 2);
}

/** Halvings of the bisection: from a bracket of at most 30% / 0.25% sd, within 1e-8 of it. */
const BISECTIONS = 34;

/**
 * The learned shared parts are trusted as the days they rest on grow: a domain's move is judged
 * against at least the blend of the learned part and the prior's, the prior weighing this many
 * days against the days learned (variation.days).
 */
export const SHARED_TRUST_DAYS = 7;

/**
 * The shared parts a domain's move is judged by (common-drops.ts, domain-runs.ts): the part its
 * ISPs share (`common`: the domain's and the network's) and the domain's own (`domain`, beyond
 * the network's), each never below the blend of the learned one with the prior's
 * (SHARED_TRUST_DAYS), nor above the variation all together.
 *
 * Each domain's day adds one product of its pairs' comparisons to the shared sums, so in a
 * network's first week they rest on a dozen of them: the learned shared part then reads a third
 * of the truth or none (at `moderate` 2.5% and 0% against 8%; the domain's own part none at
 * `heavy` on day 10), and a domain's ordinary bad day of 21-27% passed as a drop of 3.6-4 sd
 * (held out seeds 19, 34, 40; seed 4 at `heavy`). The total (`extra`) is not read this way: it
 * rests on every listed pair, and widening it is judgedVariation's.
 */
export function judgedShared(variation: Variation): { common: number; domain: number } {
  const trust = variation.days / (variation.days + SHARED_TRUST_DAYS);
  const blend = (learned: number, prior: number): number =>
    Math.min(variation.extra, Math.max(learned, trust * learned + (1 - trust) * prior));
  const domain = Math.max(0, variation.common - variation.network);
  return {
    common: blend(variation.common, PRIOR_COMMON_SD ** 2),
    domain: blend(domain, PRIOR_COMMON_SD ** 2 - PRIOR_NETWORK_SD ** 2),
  };
}
