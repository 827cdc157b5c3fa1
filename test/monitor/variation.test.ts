import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import type { LearnedVariation } from '../../src/monitor/types.js';
import {
  aboveZero,
  dayEstimates,
  dayToDayPercent,
  HALF_LIFE_DAYS,
  learnVariation,
  listedShare,
  MAX_EXTRA_SD,
  networkPart,
  PRIOR_COMMON_SD,
  PRIOR_EXTRA_SD,
  PRIOR_NETWORK_SD,
  PRIOR_NETWORK_WEIGHT,
  variationOf,
  VARIATION_GRID,
  type ComparisonDays,
} from '../../src/monitor/variation.js';
import { normalTail } from '../../src/monitor/normal.js';
import { Random } from '../../bench/quality/random.js';

const DAY = '2026-03-01';

/**
 * Listed pairs of `days` days as the API shows them: each pair's days are Poisson around a mean
 * that a log-normal factor of sd `pairSd` moves, plus one of its domain (`domainSd`) that all its
 * ISPs share, drawn for yesterday and days 7, 14 and 30 back; a pair is listed only when
 * yesterday is below all three.
 */
function listedDays(
  rng: Random,
  options: { pairSd: number; domainSd: number; mean: number; days: number; pairs?: number },
): ComparisonDays[][] {
  const out: ComparisonDays[][] = [];
  for (let day = 0; day < options.days; day++) {
    const listed: ComparisonDays[] = [];
    for (let domain = 0; domain < 3; domain++) {
      const shared = [0, 1, 2, 3].map(() => options.domainSd * rng.normal());
      for (let i = 0; i < (options.pairs ?? 30); i++) {
        const [y, d7, d14, d30] = shared.map((s) =>
          rng.poisson(options.mean * Math.exp(s + options.pairSd * rng.normal())),
        ) as [number, number, number, number];
        if (y < d7 && y < d14 && y < d30) {
          listed.push({ domainId: domain, yesterday: y, d7, d14 });
        }
      }
    }
    out.push(listed);
  }
  return out;
}

/** The variation learned from those days, run by run, as the monitor learns it. */
function learn(days: readonly ComparisonDays[][]): LearnedVariation | undefined {
  let learned: LearnedVariation | undefined;
  days.forEach((samples, i) => {
    learned = learnVariation(learned, samples, variationOf(learned), addDays(DAY, i));
  });
  return learned;
}

describe('variationOf: the prior until something is learned', () => {
  it('no listed pairs yet: the prior, resting on no days', () => {
    const v = variationOf(undefined);
    expect(Math.sqrt(v.extra)).toBeCloseTo(PRIOR_EXTRA_SD, 3);
    expect(Math.sqrt(v.common)).toBeCloseTo(PRIOR_COMMON_SD, 3);
    expect(v.days).toBe(0);
  });

  it('a run that listed nothing adds no day and changes nothing but the decay', () => {
    const learned = learnVariation(undefined, [], variationOf(undefined), DAY);
    expect(learned.days).toBe(0);
    expect(variationOf(learned)).toEqual(variationOf(undefined));
  });

  it('comparison days under SAMPLE_MIN_CLICKS say nothing', () => {
    const small = [{ domainId: 1, yesterday: 1, d7: 19, d14: 40 }];
    expect(learnVariation(undefined, small, variationOf(undefined), DAY).days).toBe(0);
  });

  it('one pair moves the estimate, not all the way (shrinkage)', () => {
    // Days 7 and 14 back of 1,000 and 1,300 clicks: a 26% log spread from one pair alone.
    const one = [{ domainId: 1, yesterday: 900, d7: 1000, d14: 1300 }];
    const alone = variationOf(learnVariation(undefined, one, variationOf(undefined), DAY));
    const many = variationOf(
      learnVariation(
        undefined,
        Array.from({ length: 200 }, () => one[0]!),
        variationOf(undefined),
        DAY,
      ),
    );
    expect(alone.days).toBe(1);
    expect(Math.sqrt(alone.extra)).toBeGreaterThan(PRIOR_EXTRA_SD);
    expect(Math.sqrt(alone.extra)).toBeLessThan(Math.sqrt(many.extra));
  });

  it('a forced re-run of the same as-of date adds nothing', () => {
    const rng = new Random(3);
    const [samples] = listedDays(rng, { pairSd: 0.1, domainSd: 0.05, mean: 500, days: 1 });
    const first = learnVariation(undefined, samples!, variationOf(undefined), DAY);
    expect(learnVariation(first, samples!, variationOf(first), DAY)).toBe(first);
  });

  it('what was learned fades with a half-life of HALF_LIFE_DAYS', () => {
    const rng = new Random(4);
    const [samples] = listedDays(rng, { pairSd: 0.1, domainSd: 0.05, mean: 500, days: 1 });
    const first = learnVariation(undefined, samples!, variationOf(undefined), DAY);
    const later = learnVariation(first, [], variationOf(first), addDays(DAY, HALF_LIFE_DAYS));
    expect(later.days).toBeCloseTo(first.days / 2, 9);
    expect(later.spreadWeight[2]).toBeCloseTo(first.spreadWeight[2]! / 2, 9);
  });
});

describe('learnVariation: learning a network from its listed pairs', () => {
  it.each([
    { pairSd: 0, domainSd: 0, mean: 400 },
    { pairSd: 0.08, domainSd: 0, mean: 400 },
    { pairSd: 0.1, domainSd: 0.07, mean: 400 },
    { pairSd: 0.15, domainSd: 0.1, mean: 2000 },
  ])('truth pair $pairSd, domain $domainSd: learned within 15% after 40 days', (truth) => {
    const rng = new Random(Math.round(truth.pairSd * 1000 + truth.domainSd * 100 + 7));
    const v = variationOf(learn(listedDays(rng, { ...truth, days: 40 })));
    const sd = Math.sqrt(truth.pairSd ** 2 + truth.domainSd ** 2);
    // Chance alone: no variation of its own, within the estimate's own noise (a few percent,
    // the prior's pull included: an estimate can be no lower than none).
    if (sd === 0) expect(Math.sqrt(v.extra)).toBeLessThan(0.04);
    else expect(Math.abs(Math.sqrt(v.extra) / sd - 1)).toBeLessThan(0.15);
    if (truth.domainSd > 0) {
      expect(Math.sqrt(v.common)).toBeGreaterThan(truth.domainSd * 0.6);
      expect(Math.sqrt(v.common)).toBeLessThan(truth.domainSd * 1.4);
    }
    expect(v.days).toBeGreaterThan(20);
  });

  it.each([
    { mean: 60, within: 0.1 },
    { mean: 100, within: 0.05 },
    { mean: 400, within: 0.05 },
  ])(
    'pairs of $mean clicks: the estimate made at the true variation reads it (whole clicks)',
    ({ mean, within }) => {
      // The API lists a pair when yesterday is below its comparison days in whole clicks, so
      // the cut lies halfway between yesterday and yesterday + 1. Read at yesterday itself,
      // it made pairs whose chance is as large as their variation read 10-25% low. (What is
      // left at 60 clicks: comparison days under SAMPLE_MIN_CLICKS are left out.)
      const rng = new Random(mean + 21);
      const at = VARIATION_GRID.indexOf(0.1);
      let spread = 0;
      let weight = 0;
      for (const samples of listedDays(rng, { pairSd: 0.1, domainSd: 0, mean, days: 400 })) {
        const day = dayEstimates(samples, variationOf(undefined));
        spread += day.spread[at]!;
        weight += day.spreadWeight[at]!;
      }
      expect(Math.abs(spread / weight / 2 / 0.01 - 1)).toBeLessThan(within);
    },
  );

  it('huge counts: chance is nothing, the variation all', () => {
    const rng = new Random(11);
    const v = variationOf(
      learn(listedDays(rng, { pairSd: 0.1, domainSd: 0, mean: 1e7, days: 30 })),
    );
    expect(Math.abs(Math.sqrt(v.extra) / 0.1 - 1)).toBeLessThan(0.15);
  });

  it('a holiday inside the comparison days (every listed pair of a domain 35% lower 7 days back) is left out', () => {
    const rng = new Random(12);
    const days = listedDays(rng, { pairSd: 0.1, domainSd: 0.03, mean: 800, days: 30 });
    const clean = variationOf(learn(days));
    // On one day, day 7 back was a holiday: the pairs listed (yesterday below it) show it.
    const holiday = days.map((samples, i) =>
      i === 20 ? samples.map((s) => ({ ...s, d7: Math.round(s.d7 * 0.65) })) : samples,
    );
    const withHoliday = variationOf(learn(holiday));
    expect(Math.abs(Math.sqrt(withHoliday.extra) - Math.sqrt(clean.extra))).toBeLessThan(0.005);
  });

  it('a holiday on every domain, 7 and 14 days back, is left out where one domain cannot tell it', () => {
    const rng = new Random(15);
    const days = listedDays(rng, { pairSd: 0.15, domainSd: 0.09, mean: 400, days: 30, pairs: 60 });
    const clean = variationOf(learn(days));
    // Every pair 30% lower 7 days back, and a week later 14 days back: within 3 sd of one
    // domain's median at this common variation, far beyond the network's.
    const holiday = days.map((samples, i) =>
      samples.map((s) =>
        i === 15
          ? { ...s, d7: Math.round(s.d7 * 0.7) }
          : i === 22
            ? { ...s, d14: Math.round(s.d14 * 0.7) }
            : s,
      ),
    );
    const withHoliday = variationOf(learn(holiday));
    expect(Math.abs(withHoliday.common - clean.common)).toBeLessThan(0.1 * clean.common);
    expect(Math.abs(withHoliday.extra - clean.extra)).toBeLessThan(0.05 * clean.extra);
  });

  it('never more than MAX_EXTRA_SD, however wild the days', () => {
    const rng = new Random(13);
    const v = variationOf(
      learn(listedDays(rng, { pairSd: 0.8, domainSd: 0, mean: 1000, days: 20 })),
    );
    expect(Math.sqrt(v.extra)).toBeLessThanOrEqual(MAX_EXTRA_SD + 1e-12);
  });

  it('dayEstimates keeps one sum per grid variation', () => {
    const rng = new Random(14);
    const [samples] = listedDays(rng, { pairSd: 0.1, domainSd: 0.05, mean: 500, days: 1 });
    const day = dayEstimates(samples!, variationOf(undefined));
    for (const sums of [day.spread, day.spreadWeight, day.shared, day.sharedWeight]) {
      expect(sums).toHaveLength(VARIATION_GRID.length);
    }
  });
});

/** Learned sums whose network days are `estimates` (of 2 x network) at every grid point. */
function networkDays(estimates: readonly number[]): LearnedVariation {
  const grid = (value: number) => VARIATION_GRID.map(() => value);
  let sum = 0;
  let squares = 0;
  for (const e of estimates) {
    sum += e;
    squares += e * e;
  }
  return {
    asOf: DAY,
    spread: grid(0),
    spreadWeight: grid(0),
    shared: grid(0),
    sharedWeight: grid(0),
    network: grid(sum),
    networkSquares: grid(squares),
    networkWeight: grid(estimates.length),
    days: estimates.length,
  };
}

describe('aboveZero: a variance uncertain by its standard error, not below zero', () => {
  it('no uncertainty: the estimate, or nothing for one below zero', () => {
    expect(aboveZero(0.004, 0)).toBe(0.004);
    expect(aboveZero(-0.004, 0)).toBe(0);
  });

  it('an estimate of nothing: the half-normal median, about 0.67 standard errors', () => {
    expect(aboveZero(0, 0.002)).toBeCloseTo(0.002 * 0.6744897502, 9);
  });

  it('half of what is plausible above zero lies above it', () => {
    for (const [mean, se] of [
      [-0.003, 0.002],
      [0.001, 0.002],
      [0.004, 0.001],
    ] as const) {
      const median = aboveZero(mean, se);
      const above = normalTail((median - mean) / se) / normalTail(-mean / se);
      expect(above).toBeCloseTo(0.5, 9);
    }
  });

  it('far below zero: small, above zero and finite', () => {
    const far = aboveZero(-0.1, 0.001);
    expect(far).toBeGreaterThan(0);
    expect(far).toBeLessThan(0.001 * 0.01);
    expect(aboveZero(-0.02, 0.001)).toBeCloseTo((0.001 * Math.LN2) / 20, 6);
  });

  it('far above zero: the estimate itself', () => {
    expect(aboveZero(0.01, 0.001)).toBeCloseTo(0.01, 6);
  });

  it('never below the estimate, and grows with the uncertainty', () => {
    let before = 0;
    for (const se of [0.0005, 0.001, 0.002, 0.004]) {
      const value = aboveZero(-0.001, se);
      expect(value).toBeGreaterThan(before);
      before = value;
    }
    expect(aboveZero(0.001, 0.002)).toBeGreaterThan(0.001);
  });
});

describe("networkPart: the network's part, never read as none", () => {
  const prior = PRIOR_NETWORK_SD ** 2;

  it('no days: the prior', () => {
    expect(networkPart(undefined, 2)).toBeCloseTo(prior, 12);
  });

  it('days whose mean lies below zero: above zero by what their spread leaves plausible', () => {
    // 30 days of 2 x network read -0.004 on average, each uncertain by 0.03 (a 3-domain
    // network at `moderate`): their mean is 0.005 from zero, nowhere near telling it.
    const rng = new Random(21);
    const days = Array.from({ length: 30 }, () => -0.004 + 0.03 * rng.normal());
    const part = networkPart(networkDays(days), 2);
    expect(part).toBeGreaterThan(0.02 ** 2);
    expect(part).toBeLessThan(0.05 ** 2);
  });

  it('days that agree pin it down: their mean, the prior outweighed', () => {
    const days = Array.from({ length: 400 }, (_, i) => 2 * 0.04 ** 2 + (i % 2 ? 1e-4 : -1e-4));
    expect(Math.sqrt(networkPart(networkDays(days), 2))).toBeCloseTo(0.04, 3);
  });

  it('days that agree on nothing: nothing, as a network varying as chance does', () => {
    const days = Array.from({ length: 400 }, (_, i) => (i % 2 ? 1e-6 : -1e-6));
    expect(Math.sqrt(networkPart(networkDays(days), 2))).toBeLessThan(0.005);
  });

  it('one wild day weighs by its spread, not as a certain zero', () => {
    const part = networkPart(networkDays([-0.05]), 2);
    // The mean with the prior's days lies below zero; the spread of one day against them keeps
    // it near the prior.
    expect((-0.05 + PRIOR_NETWORK_WEIGHT * 2 * prior) / (1 + PRIOR_NETWORK_WEIGHT)).toBeLessThan(0);
    expect(part).toBeGreaterThan(prior / 2);
  });

  it('a state stored before the squares were kept reads, not below zero', () => {
    const { networkSquares: _squares, ...old } = networkDays([-0.004, -0.004, -0.004]);
    expect(networkPart(old, 2)).toBeGreaterThanOrEqual(0);
  });

  it('variationOf reads it, never above the common part', () => {
    const rng = new Random(22);
    const learned = networkDays(Array.from({ length: 30 }, () => -0.004 + 0.03 * rng.normal()));
    const v = variationOf(learned);
    expect(v.network).toBeGreaterThan(0);
    expect(v.network).toBeLessThanOrEqual(v.common);
  });
});

describe('listedShare: the spread two draws cut off below yesterday keep', () => {
  it('far above the cut (yesterday was very low): all of it', () => {
    expect(listedShare(6)).toBeGreaterThan(0.97);
  });
  it('the typical listed pair (about 1.4 sd above): about two thirds', () => {
    expect(listedShare(1.4)).toBeGreaterThan(0.55);
    expect(listedShare(1.4)).toBeLessThan(0.75);
  });
  it('just above the cut: little, and never under the floor', () => {
    expect(listedShare(0.1)).toBeLessThan(0.1);
    expect(listedShare(0)).toBeGreaterThan(0);
    expect(listedShare(Number.NaN)).toBeGreaterThan(0);
  });
  it('grows with the excess', () => {
    for (let x = 0.2; x < 5; x += 0.2) expect(listedShare(x + 0.2)).toBeGreaterThan(listedShare(x));
  });
});

describe('dayToDayPercent: the variation as a person reads it', () => {
  it('a 10% daily sd is a typical change of about 13% between two days', () => {
    const p = dayToDayPercent({ extra: 0.01, common: 0.0025 });
    expect(Math.round(p.all)).toBe(13);
    expect(Math.round(p.shared)).toBe(7);
    expect(dayToDayPercent({ extra: 0, common: 0 })).toEqual({ all: 0, shared: 0 });
  });
});
