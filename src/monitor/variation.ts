import { daysBetween, type IsoDate } from '../dates.js';
import { normalDensity, normalTail } from './normal.js';
import type { LearnedVariation, Variation } from './types.js';

/**
 * The network's own day-to-day variation, learned from what the API shows (glossary in
 * types.ts: "learned variation"). docs/alert-quality.md has the measurement behind every
 * constant here.
 *
 * Clicks vary from day to day far more than chance (a Poisson count) does: campaigns, mailings,
 * bots, paused offers. On the log scale a day's clicks are the pair's usual level times a
 * factor of the pair's own, one its domain shares with its other ISPs, and one the whole
 * network shares. What is learned is the variance of those factors' product (`extra`), of the
 * part the ISPs of a domain share (`common`: the domain's and the network's) and of the part the
 * whole network shares (`network`).
 *
 * Where it is seen: every listed pair shows its clicks on days 7 and 14 back, the same weekday
 * one week apart. Their log ratio q = ln(d7 / d14) has variance 2 x extra + the Poisson part
 * 1/d7 + 1/d14, and for two pairs of one domain the product of their q's has mean 2 x common
 * (their own parts are independent, the shared one is not); for two pairs of different domains,
 * 2 x network. Three corrections:
 *
 * - Selection: the API lists a pair only when yesterday is below each comparison day, so the
 *   days seen are not a fair draw: given yesterday, days 7 and 14 back are two draws from the
 *   pair's days cut off below yesterday, whose spread is smaller the closer yesterday lies to
 *   the pair's usual level. How close is read from how far above yesterday the two lie, in the
 *   pair's sd, and each pair's q^2 is divided by the share of spread such a cut leaves
 *   (`listedShare`). Whether a pair is listed at all also depends on day 30 back, a different
 *   weekday; the cut at yesterday carries all of it. For the shared part the same correction
 *   leaves a fixed share (LISTED_SHARED_SHARE), found by simulating the listing rule.
 * - What moved already: a pair the monitor holds active, or listed the day before with
 *   evidence (a decline under way), says more about its decline than about noise: left out.
 *   (Listing on consecutive days uses disjoint days, so leaving those out biases nothing.)
 * - Events in the comparison days: a holiday 7 days back, or a domain whose campaign ended
 *   between the two days, moves every listed pair of the domain at once. Such a domain's day
 *   is left out when its pairs' median q lies far outside what the learned common variation
 *   allows (SHIFT_GATE_Z), and the whole day when the median q of all the network's listed
 *   pairs lies far outside what its network variation allows (a holiday moves every domain
 *   alike, where at heavy variation one domain's median cannot tell it from noise); so is a
 *   pair whose q lies beyond OUTLIER_Z of its standard deviations (its level changed between
 *   the two days: a block that ended, a weekend dip).
 *
 * The correction needs the pair's sd, which needs the variation being learned. So each day's
 * estimates are made for each variation of a small grid (VARIATION_GRID) and added to
 * exponentially weighted sums kept per grid point (HALF_LIFE_DAYS): a few numbers however
 * large the network. The learned variation is where the estimate equals the variation it was
 * made with. Until the sums hold much, a prior pulls the estimate toward a typical variation
 * (shrinkage), and no estimate exceeds MAX_EXTRA_SD: a step from 900 to 100 clicks stays news
 * at any learned variation.
 *
 * The network's part rests on one estimate a day, the products of a few domains' q's, and a
 * day's estimate varies ten times as much as the part itself: over the days it rests on, its
 * mean wanders below zero on a fifth of a network's days at `moderate`, where a part read as
 * none would judge a move of the whole network against its domains' parts alone. A variance is
 * not below zero, so it is read as the middle of what its days leave plausible above zero: the
 * median of the normal of their mean and standard error (their own spread over how many they
 * are), cut at zero (networkPart). Where the days cannot tell it from zero it reads about two
 * thirds of a standard error, and it falls to their mean as the days pin it down.
 */

/** Half-life of what a run adds, in as-of days. */
export const HALF_LIFE_DAYS = 28;
/** The prior: a typical network's variation, sd of a day's clicks (all parts; the shared part). */
export const PRIOR_EXTRA_SD = 0.15;
export const PRIOR_COMMON_SD = 0.08;
export const PRIOR_NETWORK_SD = 0.03;
/** How much the prior weighs: large pairs' comparisons, domains' days, days. */
export const PRIOR_SPREAD_WEIGHT = 3;
export const PRIOR_SHARED_WEIGHT = 5;
export const PRIOR_NETWORK_WEIGHT = 5;
/** No learned sd above this: no plausible network varies more from day to day. */
export const MAX_EXTRA_SD = 0.3;
/** The sds a day's estimates are made with (the last is MAX_EXTRA_SD). */
export const VARIATION_GRID: readonly number[] = [0, 0.05, 0.1, 0.15, 0.2, MAX_EXTRA_SD];
/** Comparison days under this many clicks say more about chance than about variation. */
export const SAMPLE_MIN_CLICKS = 20;
/**
 * The share of two listed pairs' shared spread left after each pair's correction for the cut
 * at yesterday (listedShare): measured by simulating the listing rule with log-normal days.
 */
export const LISTED_SHARED_SHARE = 0.68;
/** A pair whose q lies beyond this many of its standard deviations is left out. */
export const OUTLIER_Z = 3.5;
/** A domain's day is left out when its median q is this many sd from 0 ... */
export const SHIFT_GATE_Z = 3;
/** ... and at least this far (log scale): a holiday or a campaign's end moves it further. */
export const SHIFT_GATE_MIN = 0.25;
/** ... measured over at least this many of its pairs. */
export const SHIFT_GATE_MIN_PAIRS = 3;
/**
 * A pair's weight is the inverse variance of its q^2 at the grid's variation, scaled so that a
 * pair with no Poisson part weighs 1: 1 / (1 + chance / (2 x extra))^2. Near no variation only
 * the largest pairs say anything; the variation weights are reckoned with is at least this sd.
 */
const WEIGHT_FLOOR_SD = 0.02;
/** The prior's pairs are this size (their two days' Poisson part): about 400 clicks a day. */
const PRIOR_PAIR_CHANCE = 0.005;

/** The weight scale of grid variation k: 2 x its variance (at least WEIGHT_FLOOR_SD's). */
function weightSpread(k: number): number {
  return 2 * Math.max(VARIATION_GRID[k]!, WEIGHT_FLOOR_SD) ** 2;
}

/**
 * How many more comparisons a decayed sum rests on than its weight says. The learned sums halve
 * every HALF_LIFE_DAYS, so a day's comparisons count with a weight w under 1, and a sum of
 * weighted terms varies as (sum of w^2), not (sum of w): its effective count is (sum w)^2 /
 * sum w^2. Read with every day weighing alike, from the decayed count of days: 1 while nothing
 * has decayed yet, about 1.6 after 60 days, 2 in the long run.
 */
export function decayedSumGain(days: number): number {
  const keep = 0.5 ** (1 / HALF_LIFE_DAYS);
  // days = (1 - keep^N) / (1 - keep) after N days, each day added with weight 1; never more
  // than 1 / (1 - keep), what a long run of days leaves.
  const weight = Math.min(days, 1 / (1 - keep));
  const left = Math.max(0, 1 - weight * (1 - keep));
  const squares = (1 - left * left) / (1 - keep * keep);
  return squares > 0 ? Math.max(1, weight / squares) : 1;
}

/** One listed pair's clicks yesterday and on its comparison days, as the estimator reads them. */
export interface ComparisonDays {
  domainId: number;
  yesterday: number;
  d7: number;
  d14: number;
}

/**
 * Per variation of VARIATION_GRID: the estimate of `extra` made with it (the learned sums with
 * the prior) and the effective count of large pairs' comparisons it rests on, prior included.
 */
export function gridEstimates(learned: LearnedVariation | undefined): {
  estimates: number[];
  weights: number[];
} {
  const estimates: number[] = [];
  const weights: number[] = [];
  VARIATION_GRID.forEach((_, k) => {
    const prior = PRIOR_SPREAD_WEIGHT / (1 + PRIOR_PAIR_CHANCE / weightSpread(k)) ** 2;
    const weight = (learned?.spreadWeight[k] ?? 0) + prior;
    weights.push(weight);
    estimates.push(((learned?.spread[k] ?? 0) + prior * 2 * PRIOR_EXTRA_SD ** 2) / weight / 2);
  });
  return { estimates, weights };
}

/** The variation to judge by: the learned sums with the prior, at their fixed point, capped. */
export function variationOf(learned: LearnedVariation | undefined): Variation {
  const at = (
    sums: readonly number[] | undefined,
    weights: readonly number[] | undefined,
    sd: number,
    prior: number,
  ) =>
    VARIATION_GRID.map(
      (_, k) => ((sums?.[k] ?? 0) + prior * 2 * sd * sd) / ((weights?.[k] ?? 0) + prior) / 2,
    );
  const { estimates } = gridEstimates(learned);
  const commons = at(learned?.shared, learned?.sharedWeight, PRIOR_COMMON_SD, PRIOR_SHARED_WEIGHT);
  const networks = VARIATION_GRID.map((_, k) => networkPart(learned, k));
  // The estimate grows more slowly than the variation it is made with: where the two meet.
  let point = VARIATION_GRID.length - 1;
  let t = 0;
  for (let k = 0; k < VARIATION_GRID.length; k++) {
    const gap = estimates[k]! - VARIATION_GRID[k]! ** 2;
    if (gap > 0) continue;
    if (k > 0) {
      const gapBefore = estimates[k - 1]! - VARIATION_GRID[k - 1]! ** 2;
      point = k - 1;
      t = gapBefore / (gapBefore - gap);
    } else {
      point = 0;
    }
    break;
  }
  const read = (values: readonly number[]) =>
    point + 1 < values.length
      ? values[point]! + t * (values[point + 1]! - values[point]!)
      : values[point]!;
  const extra =
    point === 0 && t === 0 && estimates[0]! <= 0
      ? 0
      : Math.min(MAX_EXTRA_SD ** 2, Math.max(0, read(VARIATION_GRID.map((sd) => sd * sd))));
  const common = Math.min(extra, Math.max(0, read(commons)));
  return {
    extra,
    common,
    network: Math.min(common, Math.max(0, read(networks))),
    days: learned?.days ?? 0,
  };
}

/**
 * The network's part at grid variation k (the module's comment): its days' estimates of
 * 2 x network with the prior's PRIOR_NETWORK_WEIGHT days, as the median of a normal of their
 * mean and standard error cut at zero (aboveZero). The standard error is their spread, the
 * prior's days counted as days at the prior, over their effective count (the decayed days',
 * decayedSumGain, and the prior's).
 */
export function networkPart(learned: LearnedVariation | undefined, k: number): number {
  const days = learned?.networkWeight[k] ?? 0;
  const prior = 2 * PRIOR_NETWORK_SD ** 2;
  const weight = days + PRIOR_NETWORK_WEIGHT;
  const mean = ((learned?.network[k] ?? 0) + PRIOR_NETWORK_WEIGHT * prior) / weight;
  const squares = (learned?.networkSquares?.[k] ?? 0) + PRIOR_NETWORK_WEIGHT * prior * prior;
  const spread = Math.max(0, squares / weight - mean * mean);
  const count = days * decayedSumGain(days) + PRIOR_NETWORK_WEIGHT;
  return aboveZero(mean, Math.sqrt(spread / count)) / 2;
}

/**
 * The median of a normal of mean `mean` and sd `se` cut off below zero: what a variance whose
 * estimate is `mean`, uncertain by `se`, is at the middle of what is plausible when it cannot
 * be negative. About 0.67 se for a mean of zero; the mean itself when se is none or small
 * against it. (Its mean would read higher still: where se exceeds the variance, it reads the
 * network's part at 5.3% on average at `moderate`, true 4%, and tells fewer holidays.)
 */
export function aboveZero(mean: number, se: number): number {
  if (!(se > 0)) return Math.max(0, mean);
  const cut = -mean / se;
  // Half the normal's tail above zero lies above the median: z, in sd from the mean.
  const half = normalTail(cut) / 2;
  // Far below zero the cut normal is an exponential of rate cut / se.
  if (!(half > 1e-300)) return (se * Math.LN2) / cut;
  let lo = cut;
  let hi = Math.max(cut, 0) + 40;
  for (let i = 0; i < MEDIAN_BISECTIONS; i++) {
    const mid = (lo + hi) / 2;
    if (normalTail(mid) > half) lo = mid;
    else hi = mid;
  }
  return Math.max(0, mean + se * ((lo + hi) / 2));
}

/** Halvings of aboveZero's bisection: a bracket of 40 sd to within 1e-12 sd. */
const MEDIAN_BISECTIONS = 46;

/**
 * The variation as a person reads it: the typical change of a pair's clicks from one day to
 * the same weekday a week later, as a percent dip (one standard deviation of the log ratio of
 * two days: 1 - e^-sqrt(2 x extra)), and the same of the part a domain's ISPs share.
 */
export function dayToDayPercent(variation: Pick<Variation, 'extra' | 'common'>): {
  all: number;
  shared: number;
} {
  const dip = (variance: number) => (1 - Math.exp(-Math.sqrt(2 * variance))) * 100;
  return { all: dip(variation.extra), shared: dip(variation.common) };
}

/**
 * The learned variation after a run that listed `samples` (the listed pairs that say something
 * about noise: see the module's comment). `current` is the variation the run judged by
 * (variationOf of `prev`). A forced re-run of the same as-of date adds nothing: its days are
 * already in.
 */
export function learnVariation(
  prev: LearnedVariation | undefined,
  samples: readonly ComparisonDays[],
  current: Variation,
  asOf: IsoDate,
): LearnedVariation {
  if (prev !== undefined && prev.asOf === asOf) return prev;
  const decay =
    prev === undefined ? 0 : 0.5 ** (Math.max(0, daysBetween(prev.asOf, asOf)) / HALF_LIFE_DAYS);
  const today = dayEstimates(samples, current);
  const added = today.spreadWeight.some((w) => w > 0) ? 1 : 0;
  const sum = (before: readonly number[] | undefined, now: readonly number[]) =>
    VARIATION_GRID.map((_, k) => (before?.[k] ?? 0) * decay + now[k]!);
  return {
    asOf,
    spread: sum(prev?.spread, today.spread),
    spreadWeight: sum(prev?.spreadWeight, today.spreadWeight),
    shared: sum(prev?.shared, today.shared),
    sharedWeight: sum(prev?.sharedWeight, today.sharedWeight),
    network: sum(prev?.network, today.network),
    networkSquares: sum(
      prev?.networkSquares,
      today.network.map((estimate) => estimate * estimate),
    ),
    networkWeight: sum(prev?.networkWeight, today.networkWeight),
    days: (prev?.days ?? 0) * decay + added,
  };
}

/** One day's sums, kept as the learned variation keeps them (before decay). */
type DayEstimates = Omit<LearnedVariation, 'asOf' | 'days' | 'networkSquares'>;

/** One day's weighted estimates per grid variation, domain by domain (the module's comment). */
export function dayEstimates(samples: readonly ComparisonDays[], current: Variation): DayEstimates {
  const grid = VARIATION_GRID.length;
  const out: DayEstimates = {
    spread: new Array<number>(grid).fill(0),
    spreadWeight: new Array<number>(grid).fill(0),
    shared: new Array<number>(grid).fill(0),
    sharedWeight: new Array<number>(grid).fill(0),
    network: new Array<number>(grid).fill(0),
    networkWeight: new Array<number>(grid).fill(0),
  };
  // Per grid variation: the sums over domains of each domain's weighted q sum (and of their
  // squares), for the products of pairs of different domains.
  const across = VARIATION_GRID.map(() => ({ s: 0, ss: 0, u: 0, uu: 0, domains: 0 }));
  const byDomain = new Map<number, ComparisonDays[]>();
  for (const sample of samples) {
    if (sample.d7 < SAMPLE_MIN_CLICKS || sample.d14 < SAMPLE_MIN_CLICKS) continue;
    const list = byDomain.get(sample.domainId);
    if (list === undefined) byDomain.set(sample.domainId, [sample]);
    else list.push(sample);
  }
  const days = [...byDomain.values()].map(domainDay);
  // A holiday 7 or 14 days back moves every domain at once; its day says nothing of noise.
  if (networkShifted(days, current)) return out;
  for (const day of days) {
    const { q, chance, excess } = day;
    const n = q.length;
    if (n >= SHIFT_GATE_MIN_PAIRS && shiftedDay(day, current)) continue;
    for (let k = 0; k < grid; k++) {
      const assumed = VARIATION_GRID[k]! ** 2;
      let s1 = 0;
      let s2 = 0;
      let u1 = 0;
      let u2 = 0;
      let kept = 0;
      for (let i = 0; i < n; i++) {
        const p = chance[i]!;
        // A day's sd: the variation and chance (half the pair's two-day Poisson part).
        const share = listedShare(excess[i]! / Math.sqrt(assumed + p / 2));
        // q / sqrt(share): what q would be without the cut at yesterday.
        const fair = q[i]! / Math.sqrt(share);
        if (fair * fair > OUTLIER_Z * OUTLIER_Z * (2 * assumed + p)) continue;
        kept++;
        const u = 1 / (1 + p / weightSpread(k));
        out.spread[k]! += u * u * (fair * fair - p);
        out.spreadWeight[k]! += u * u;
        s1 += u * fair;
        s2 += u * u * fair * fair;
        u1 += u;
        u2 += u * u;
      }
      if (kept >= 2) {
        out.shared[k]! += (s1 * s1 - s2) / (u1 * u1 - u2) / LISTED_SHARED_SHARE;
        out.sharedWeight[k]! += 1;
      }
      if (kept > 0) {
        const a = across[k]!;
        a.s += s1;
        a.ss += s1 * s1;
        a.u += u1;
        a.uu += u1 * u1;
        a.domains++;
      }
    }
  }
  for (let k = 0; k < grid; k++) {
    const { s, ss, u, uu, domains } = across[k]!;
    if (domains < 2) continue;
    out.network[k] = (s * s - ss) / (u * u - uu) / LISTED_SHARED_SHARE;
    out.networkWeight[k] = 1;
  }
  return out;
}

/** A domain's listed pairs of the day, each one's q, chance and excess (the module's comment). */
interface DomainDay {
  q: number[];
  chance: number[];
  excess: number[];
}

function domainDay(pairs: readonly ComparisonDays[]): DomainDay {
  const n = pairs.length;
  const day: DomainDay = {
    q: new Array<number>(n),
    chance: new Array<number>(n),
    excess: new Array<number>(n),
  };
  for (let i = 0; i < n; i++) {
    const p = pairs[i]!;
    const d7 = Math.log(p.d7 + 0.5);
    const d14 = Math.log(p.d14 + 0.5);
    day.q[i] = d7 - d14;
    day.chance[i] = 1 / (p.d7 + 0.5) + 1 / (p.d14 + 0.5);
    // The API lists a pair when yesterday is below each comparison day in whole clicks: a
    // listed day is at least yesterday + 1, so the cut lies halfway (yesterday + 1 on this
    // half-click scale). Read at yesterday itself, pairs whose chance is as large as their
    // variation read 10-25% low, and the fixed point below doubles that.
    day.excess[i] = (d7 + d14) / 2 - Math.log(p.yesterday + 1);
  }
  return day;
}

/**
 * Whether a domain's day moved as a whole between its comparison days (a holiday or a
 * campaign's end 7 or 14 days back): its median q beyond what the common variation and the
 * median's own noise allow (movedBeyond).
 */
function shiftedDay(day: DomainDay, current: Variation): boolean {
  return movedBeyond(day.q, day.chance, LISTED_SHARED_SHARE * 2 * current.common, current);
}

/**
 * Whether the whole network moved between its comparison days (a holiday 7 or 14 days back):
 * the median q of all its listed pairs beyond what the network's shared variation, its
 * domains' (a few domains, so averaged over few) and the median's own noise allow
 * (movedBeyond). A holiday of 25-40% moves every domain alike, and at `heavy` one domain's
 * median alone is too noisy to stand out from its common variation: left in, the network's
 * holidays read as shared variation, and a campaign's end as noise.
 */
function networkShifted(days: readonly DomainDay[], current: Variation): boolean {
  if (days.length < 2) return false;
  // concat, not flatMap: V8 copies arrays of numbers whole, where flatMap takes every listed
  // pair one at a time, and `thm replay` does this once a day of its range (docs/performance.md).
  const q = ([] as number[]).concat(...days.map((day) => day.q));
  if (q.length < SHIFT_GATE_MIN_PAIRS) return false;
  const chance = ([] as number[]).concat(...days.map((day) => day.chance));
  const shared =
    LISTED_SHARED_SHARE * 2 * (current.network + (current.common - current.network) / days.length);
  return movedBeyond(q, chance, shared, current);
}

/**
 * Whether the median of n listed pairs' q lies beyond SHIFT_GATE_MIN and SHIFT_GATE_Z sd of
 * what their shared variance and the median's own noise allow. That noise: each pair's own
 * variation and chance, of which a listed pair keeps a typical share, summed as `spread`; a
 * median of n draws varies about pi/2 times as much as their mean, `spread` / n^2.
 */
function movedBeyond(
  q: readonly number[],
  chance: readonly number[],
  shared: number,
  current: Variation,
): boolean {
  const own = 2 * (current.extra - current.common);
  let spread = 0;
  for (const p of chance) spread += LISTED_SHARE_TYPICAL * (own + p);
  const n = q.length;
  const sd = Math.sqrt(shared + ((Math.PI / 2) * spread) / (n * n));
  return Math.abs(median(q)) > Math.max(SHIFT_GATE_MIN, SHIFT_GATE_Z * sd);
}

/** The share of spread a typical listed pair keeps (the listing rule's, day 30 back alike). */
const LISTED_SHARE_TYPICAL = 0.64;

export function median(values: readonly number[]): number {
  // A typed array sorts numbers as numbers, without a comparator called per step: the network's
  // whole list is sorted once a run (networkShifted).
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The share of its spread a normal variable keeps when cut off below a point, given how far
 * above that point its draws lie on average, in its sd (`excess`). For a cut at a (in sd from
 * the mean) the mean excess is lambda(a) - a and the share of variance left is
 * 1 + a lambda(a) - lambda(a)^2, lambda being the inverse Mills ratio; read off a table.
 */
export function listedShare(excess: number): number {
  if (!(excess > 0)) return LISTED_SHARE_FLOOR;
  const table = SHARE_TABLE;
  // Excess falls as the cut point rises: find the cut with this excess.
  let lo = 0;
  let hi = table.excess.length - 1;
  if (excess >= table.excess[0]!) return Math.max(LISTED_SHARE_FLOOR, table.share[0]!);
  if (excess <= table.excess[hi]!) return LISTED_SHARE_FLOOR;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (table.excess[mid]! > excess) lo = mid;
    else hi = mid;
  }
  const t = (table.excess[lo]! - excess) / (table.excess[lo]! - table.excess[hi]!);
  const share = table.share[lo]! + t * (table.share[hi]! - table.share[lo]!);
  return Math.max(LISTED_SHARE_FLOOR, share);
}

/** No pair's q^2 is scaled up more than 1 / this: two draws just above yesterday say little. */
const LISTED_SHARE_FLOOR = 0.05;

/** Mean excess and share of variance for cut points from -8 to 8 sd, 1/64 sd apart. */
const SHARE_TABLE = (() => {
  const excess: number[] = [];
  const share: number[] = [];
  for (let a = -8; a <= 8; a += 1 / 64) {
    const lambda = millsRatio(a);
    excess.push(lambda - a);
    share.push(1 + a * lambda - lambda * lambda);
  }
  return { excess, share };
})();

/** phi(a) / (1 - Phi(a)): the mean of a standard normal cut off below a. */
function millsRatio(a: number): number {
  const tail = normalTail(a);
  return tail > 1e-300 ? normalDensity(a) / tail : a;
}
