import { judgedShared } from './judged-variation.js';
import { normalDensity, normalTail } from './normal.js';
import type { Variation } from './types.js';
import { median } from './variation.js';

/**
 * A domain's move read from how many of its known ISPs are listed (monitor/common-move.ts reads
 * it for a domain most of whose ISPs are not listed; docs/alert-quality.md has the measurement).
 * The API lists a pair when yesterday is below each of days 7, 14 and 30 back. With no move and
 * the four days alike, yesterday is the lowest of them one time in four; a domain that moved
 * down lists more of its ISPs, one that moved up fewer. But day 30 back is another weekday:
 * behind a Monday it is a quieter weekend day, and few ISPs are listed with no move at all;
 * behind a Saturday a busier weekday, and only days 7 and 14 back cut the list. So the share
 * listed with no move is not a fixed quarter: it follows from where each comparison day lies
 * against yesterday's weekday, and from how much one ISP's day varies on its own (its own
 * variation, and chance at its clicks).
 *
 * For a move d of yesterday (log scale, against the mean of days 7 and 14 back), an ISP whose
 * days vary with variance v on their own is listed with chance
 *
 *   p(d) = P(d + e0 < s7 + e7  and  d + e0 < -s7 + e14  and  d + e0 < s30 + e30),
 *   each e ~ N(0, v),
 *
 * s7 being half of ln(day 7 / day 14 back) and s30 ln(day 30 back / their mean), the medians
 * over the domain's listed ISPs. The move is the one that makes the expected count of listed
 * ISPs equal the count listed, the known ISPs not listed saying "not below" at the listed ones'
 * typical clicks; its standard error is the binomial likelihood's, with what the medians s7 and
 * s30 leave uncertain.
 */

/** One ISP of the domain, or several alike. */
export interface CountedIsp {
  /** Its own variance of a day's clicks on the log scale: its own variation and chance. */
  variance: number;
  /** How many ISPs it stands for. */
  weight: number;
}

/** Where the comparison days lie against the mean of days 7 and 14 back (log scale). */
export interface ComparisonDays {
  /** Half of ln(day 7 / day 14 back): day 7 back lies at +s7, day 14 back at -s7. */
  s7: number;
  /** ln(day 30 back / the mean of days 7 and 14 back). */
  s30: number;
}

export interface CountedMove {
  /** Yesterday against the mean of days 7 and 14 back (log scale). */
  delta: number;
  /** Its standard error (log scale, from the binomial likelihood). */
  se: number;
  /** The count listed with no move (delta 0): what the list would show on an ordinary day. */
  expectedAtZero: number;
}

/** The standard normal grid a listing's chance is averaged over (midpoints, step 0.25). */
const GRID_STEP = 0.25;
const GRID: number[] = [];
const GRID_WEIGHTS: number[] = [];
{
  let total = 0;
  for (let z = -5 + GRID_STEP / 2; z < 5; z += GRID_STEP) {
    GRID.push(z);
    const w = normalDensity(z);
    GRID_WEIGHTS.push(w);
    total += w;
  }
  for (let i = 0; i < GRID_WEIGHTS.length; i++) GRID_WEIGHTS[i] = GRID_WEIGHTS[i]! / total;
}

/**
 * The chance that yesterday, moved by `delta`, is below all three comparison days, for an ISP
 * whose days each vary with `variance` on the log scale.
 */
export function listingChance(delta: number, variance: number, days: ComparisonDays): number {
  const sd = Math.sqrt(Math.max(variance, 1e-6));
  const a7 = (delta - days.s7) / sd;
  const a14 = (delta + days.s7) / sd;
  const a30 = (delta - days.s30) / sd;
  let p = 0;
  for (let i = 0; i < GRID.length; i++) {
    const z = GRID[i]!;
    p += GRID_WEIGHTS[i]! * normalTail(a7 + z) * normalTail(a14 + z) * normalTail(a30 + z);
  }
  return Math.min(1 - 1e-9, Math.max(1e-12, p));
}

/** The moves searched (log scale): about -95% to +170%. */
const DELTA_LOW = -3;
const DELTA_HIGH = 1;
const BISECTIONS = 30;
/** The step of the numeric derivatives (log scale). */
const SLOPE_STEP = 0.01;

function expectedCount(isps: readonly CountedIsp[], delta: number, days: ComparisonDays): number {
  let sum = 0;
  for (const isp of isps) sum += isp.weight * listingChance(delta, isp.variance, days);
  return sum;
}

function listingSlope(delta: number, variance: number, days: ComparisonDays): number {
  return (
    (listingChance(delta + SLOPE_STEP, variance, days) -
      listingChance(delta - SLOPE_STEP, variance, days)) /
    (2 * SLOPE_STEP)
  );
}

/**
 * The move that makes the expected count of listed ISPs equal `listed` (the weight of those
 * listed), over every known ISP in `isps`, listed or not. The count is kept half an ISP from
 * none and from all (a continuity correction), so that every estimate is finite: none listed
 * reads a move up, all listed a deep move down. Undefined when no ISP is known.
 */
export function countedMove(
  isps: readonly CountedIsp[],
  listed: number,
  days: ComparisonDays,
): CountedMove | undefined {
  let known = 0;
  for (const isp of isps) known += isp.weight;
  if (known <= 0) return undefined;
  const target = Math.min(known - 0.5, Math.max(0.5, listed));
  // The expected count falls as the move rises.
  let low = DELTA_LOW;
  let high = DELTA_HIGH;
  for (let step = 0; step < BISECTIONS; step++) {
    const mid = (low + high) / 2;
    if (expectedCount(isps, mid, days) > target) low = mid;
    else high = mid;
  }
  const delta = (low + high) / 2;
  // Each ISP listed or not on its own chance: the binomial likelihood's Fisher information.
  let information = 0;
  for (const isp of isps) {
    const p = listingChance(delta, isp.variance, days);
    const slope = listingSlope(delta, isp.variance, days);
    information += (isp.weight * slope * slope) / (p * (1 - p));
  }
  return {
    delta,
    se: information > 0 ? 1 / Math.sqrt(information) : Infinity,
    expectedAtZero: expectedCount(isps, 0, days),
  };
}

/** A listed known ISP of the domain, as countedDomainMove reads it. */
export interface CountedPoint {
  hash: number;
  /** Its typical clicks: the mean of days 7 and 14 back. */
  size: number;
  /** ln(day 30 back / the mean of days 7 and 14 back), and half of ln(day 7 / day 14 back). */
  log30: number;
  half7: number;
  /** Active on its own (told before): listed by its own decline, not counted. */
  active: boolean;
}

/** The comparison days are read from at least this many listed ISPs of some size. */
export const COUNTED_MIN_ISPS = 3;
/** ... of at least this many clicks (smaller ones' comparison days are mostly chance). */
export const COUNTED_MIN_CLICKS = 20;
/**
 * An ISP is judged beyond the move its other ISPs show only when that move lies at least this
 * many standard errors below none: a domain's count moves by chance too (docs/alert-quality.md:
 * at 0 a `moderate` slide was told a day later, at 1 weekend dips at `mild` were told less).
 */
export const COUNTED_MIN_Z = 1.5;

/** A domain's counted move: each listed ISP's, as the domain's other ISPs show it. */
export interface CountedDomainMove {
  /** By ispHash: yesterday against the mean of days 7 and 14 back, shrunk (log scale). */
  without: Map<number, number>;
  /** The deepest of them, its standard error, and half of ln(day 7 / day 14 back). */
  deepest: number;
  se: number;
  s7: number;
}

/**
 * The move of a domain with no move of most of its ISPs, read from its count of listed ISPs
 * (`points`, of `known` ISPs in the same units), for each listed ISP without that ISP: a listed
 * ISP is judged against what the others show, not against its own listing. Each is shrunk toward
 * none by the domain's shared variation as judged (judgedShared; on yesterday against two
 * comparison days, 1.5 times a day's), the prior's weight against the count's: the move's most
 * likely size given both. Undefined when fewer than COUNTED_MIN_ISPS listed ISPs of some size
 * show where the comparison days lie (a domain known little, a day the list is cut short), or
 * when no ISP reads a move down COUNTED_MIN_Z beyond none.
 */
export function countedDomainMove(
  points: readonly CountedPoint[],
  known: number,
  variation: Variation,
): CountedDomainMove | undefined {
  const read = comparisonDaysOf(points);
  if (read === undefined) return undefined;
  const { days } = read;
  const counting = points.filter((p) => !p.active);
  if (counting.length === 0) return undefined;
  const own = Math.max(0, variation.extra - variation.common);
  const isps: CountedIsp[] = counting.map((p) => ({
    variance: own + 1 / (p.size + 0.5),
    weight: 1,
  }));
  const unlisted = known - points.length;
  if (unlisted > 0) {
    const size = median(counting.map((p) => p.size));
    isps.push({ variance: own + 1 / (size + 0.5), weight: unlisted });
  }
  const found = countedMove(isps, counting.length, days);
  if (found === undefined) return undefined;
  // The count's slope at the move, over all ISPs and without each (leaveOneOut).
  const slopes = isps.map((isp) => isp.weight * listingSlope(found.delta, isp.variance, days));
  let slope = 0;
  for (const s of slopes) slope += s;
  // What the medians s30 and s7 leave uncertain, added to the count's own: the move that keeps
  // the expected count with each moved by its standard error (one Newton step).
  const at = expectedCount(isps, found.delta, days);
  const shift = (moved: ComparisonDays): number =>
    slope < 0 ? (expectedCount(isps, found.delta, moved) - at) / -slope : 0;
  const se = Math.sqrt(
    found.se ** 2 +
      shift({ ...days, s30: days.s30 + read.se30 }) ** 2 +
      shift({ ...days, s7: days.s7 + read.se7 }) ** 2,
  );
  const prior = 1.5 * judgedShared(variation).common;
  const keep = prior / (prior + se * se);
  const without = new Map<number, number>();
  let deepest = 0;
  for (let i = 0; i < counting.length; i++) {
    const delta = leaveOneOut(found.delta, isps[i]!, slope - slopes[i]!, days);
    if (!(delta < -COUNTED_MIN_Z * se)) continue;
    without.set(counting[i]!.hash, delta * keep);
    deepest = Math.min(deepest, delta * keep);
  }
  return without.size === 0 ? undefined : { without, deepest, se, s7: days.s7 };
}

/** s7 and s30 as the listed ISPs of some size show them, with their medians' standard errors. */
function comparisonDaysOf(
  points: readonly CountedPoint[],
): { days: ComparisonDays; se7: number; se30: number } | undefined {
  const sized = points.filter((p) => p.size >= COUNTED_MIN_CLICKS);
  if (sized.length < COUNTED_MIN_ISPS) return undefined;
  const half7 = sized.map((p) => p.half7);
  const log30 = sized.map((p) => p.log30);
  const s7 = median(half7);
  const s30 = median(log30);
  return { days: { s7, s30 }, se7: medianSe(half7, s7), se30: medianSe(log30, s30) };
}

/** A median of n varies about 1.25 of their spread / sqrt(n). */
function medianSe(values: readonly number[], at: number): number {
  let squares = 0;
  for (const v of values) squares += (v - at) ** 2;
  return (1.2533 * Math.sqrt(squares / values.length)) / Math.sqrt(values.length);
}

/**
 * The move without one listed ISP (`isp`, of weight 1): one Newton step from the move of all,
 * the count one less and that ISP's chance left out of the expected count (`slope`: the others'
 * slope at the move). Infinity when the others' count cannot move (no slope).
 */
function leaveOneOut(delta: number, isp: CountedIsp, slope: number, days: ComparisonDays): number {
  const p = listingChance(delta, isp.variance, days);
  return slope < 0 ? delta + (1 - p) / -slope : Infinity;
}
