import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import {
  equivalentVariance,
  judgedShared,
  judgedVariation,
  plausibleVariations,
  SHARED_TRUST_DAYS,
} from '../../src/monitor/judged-variation.js';
import { logChiSquareDensity, logGamma, normalTail } from '../../src/monitor/normal.js';
import { dropZ, varianceFor } from '../../src/monitor/significance.js';
import type { LearnedVariation } from '../../src/monitor/types.js';
import {
  decayedSumGain,
  learnVariation,
  MAX_EXTRA_SD,
  PRIOR_COMMON_SD,
  PRIOR_NETWORK_SD,
  variationOf,
  type ComparisonDays,
} from '../../src/monitor/variation.js';
import { Random } from '../../bench/quality/random.js';
import { CHANCE } from './fixtures.js';

const DAY = '2026-03-01';

/**
 * Listed pairs of `days` days: three domains of 30 ISPs, each pair's days Poisson around a
 * mean moved by a log-normal factor of its own (`pairSd`) and one its domain's ISPs share
 * (`domainSd`); listed when yesterday is below days 7, 14 and 30 back.
 */
function listedDays(
  rng: Random,
  options: { pairSd: number; domainSd: number; mean: number; days: number },
): ComparisonDays[][] {
  return Array.from({ length: options.days }, () => {
    const listed: ComparisonDays[] = [];
    for (let domain = 0; domain < 3; domain++) {
      const shared = [0, 1, 2, 3].map(() => options.domainSd * rng.normal());
      for (let i = 0; i < 30; i++) {
        const [y, d7, d14, d30] = shared.map((s) =>
          rng.poisson(options.mean * Math.exp(s + options.pairSd * rng.normal())),
        ) as [number, number, number, number];
        if (y < d7 && y < d14 && y < d30) listed.push({ domainId: domain, yesterday: y, d7, d14 });
      }
    }
    return listed;
  });
}

function learn(days: readonly ComparisonDays[][]): LearnedVariation | undefined {
  let learned: LearnedVariation | undefined;
  days.forEach((samples, i) => {
    learned = learnVariation(learned, samples, variationOf(learned), addDays(DAY, i));
  });
  return learned;
}

const sd = (variance: number) => Math.sqrt(variance);

describe('judgedVariation: the learned variation, widened by what the days leave open', () => {
  it('minSignificance 0 (the noise test off): the learned estimate as it is', () => {
    const learned = learn(
      listedDays(new Random(1), { pairSd: 0.1, domainSd: 0.05, mean: 500, days: 3 }),
    );
    expect(judgedVariation(learned, 0)).toEqual(variationOf(learned));
  });

  it('nothing learned beyond chance: none, the Poisson rule exactly', () => {
    expect(judgedVariation(CHANCE.variation, 3.5).extra).toBe(0);
  });

  it('nothing learned at all: wider than the prior, which rests on 3 pairs; never past the cap', () => {
    const judged = judgedVariation(undefined, 3.5);
    expect(sd(judged.extra)).toBeGreaterThan(sd(variationOf(undefined).extra) * 1.2);
    expect(sd(judged.extra)).toBeLessThanOrEqual(MAX_EXTRA_SD + 1e-12);
  });

  it('a few days of a network that varies: judged well above its estimate, nearer it after 60', () => {
    const days = listedDays(new Random(2), { pairSd: 0.1, domainSd: 0.07, mean: 600, days: 60 });
    const early = learn(days.slice(0, 3));
    const late = learn(days);
    const widening = (learned: LearnedVariation | undefined) =>
      sd(judgedVariation(learned, 3.5).extra) / sd(variationOf(learned).extra);
    expect(widening(early)).toBeGreaterThan(1.15);
    expect(widening(late)).toBeGreaterThanOrEqual(1);
    expect(widening(late)).toBeLessThan(1.1);
    expect(widening(late)).toBeLessThan(widening(early));
  });

  it('a network that varies as chance does has ruled out large variations, however uncertain its small one', () => {
    // Large pairs, no variation of their own: the estimate is a few percent at most, and a
    // variation that would hide a real drop (10% and more) is out of the question.
    const learned = learn(
      listedDays(new Random(3), { pairSd: 0, domainSd: 0, mean: 3000, days: 30 }),
    );
    expect(sd(judgedVariation(learned, 3.5).extra)).toBeLessThan(0.05);
    const { variances, weights } = plausibleVariations(learned);
    const beyond = variances.reduce((sum, v, i) => (v >= 0.01 ? sum + weights[i]! : sum), 0);
    expect(beyond).toBeLessThan(1e-6);
  });

  it('a higher minSignificance reads further into the tail: judged at least as wide', () => {
    const learned = learn(
      listedDays(new Random(4), { pairSd: 0.12, domainSd: 0.05, mean: 400, days: 5 }),
    );
    expect(judgedVariation(learned, 4.5).extra).toBeGreaterThanOrEqual(
      judgedVariation(learned, 3).extra,
    );
  });
});

describe("judgedVariation: by how much of a pair's noise is chance", () => {
  const learned = learn(
    listedDays(new Random(5), { pairSd: 0.12, domainSd: 0.06, mean: 500, days: 4 }),
  );
  const judged = judgedVariation(learned, 3.5);

  it('a curve over chance: the tail figure with no chance, falling toward the learned estimate', () => {
    expect(judged.chance!.length).toBe(judged.judged!.length);
    expect(judged.judged![0]).toBe(judged.extra);
    for (let i = 1; i < judged.judged!.length; i++) {
      expect(judged.chance![i]).toBeGreaterThan(judged.chance![i - 1]!);
      expect(judged.judged![i]).toBeLessThanOrEqual(judged.judged![i - 1]! + 1e-12);
      expect(judged.judged![i]).toBeGreaterThanOrEqual(variationOf(learned).extra);
    }
  });

  it("a large pair is judged by the tail's figure; a small one barely wider than the estimate", () => {
    const point = variationOf(learned).extra;
    // 6,000 clicks down 30%: the variation is nearly all of its noise.
    expect(dropZ(6000, 1, 4200, judged)).toBeCloseTo(dropZ(6000, 1, 4200, judged.extra), 1);
    // 80 clicks down 60%: chance is most of it, and the variation's uncertainty moves it little.
    const small = dropZ(80, 1, 32, judged);
    expect(small).toBeGreaterThan(dropZ(80, 1, 32, judged.extra));
    expect(small).toBeLessThanOrEqual(dropZ(80, 1, 32, point) + 1e-12);
  });
});

describe('plausibleVariations and equivalentVariance', () => {
  it('the weights sum to 1 and every variance is within the cap', () => {
    const { variances, weights } = plausibleVariations(undefined);
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    for (const v of variances) expect(sd(v)).toBeLessThanOrEqual(MAX_EXTRA_SD + 1e-9);
  });

  it('one variance alone is itself, whatever chance adds', () => {
    expect(equivalentVariance({ variances: [0.01], weights: [1] }, 3.5)).toBeCloseTo(0.01, 8);
    expect(equivalentVariance({ variances: [0.01], weights: [1] }, 3.5, 0.05)).toBeCloseTo(0.01, 8);
  });

  it('much chance besides: the mixture is judged by about its mean', () => {
    const v = equivalentVariance({ variances: [0.01, 0.04], weights: [0.5, 0.5] }, 3.5, 10);
    expect(v).toBeGreaterThan(0.024);
    expect(v).toBeLessThan(0.027);
  });

  it('a mixture is judged by its tail: above its mean variance, below its largest', () => {
    const mixture = { variances: [0.01, 0.04], weights: [0.5, 0.5] };
    const v = equivalentVariance(mixture, 3.5);
    expect(v).toBeGreaterThan(0.025);
    expect(v).toBeLessThan(0.04);
    // At that variance a drop of 3.5 sd is exactly as likely as under the mixture.
    const x = 3.5 * Math.sqrt(2 * v);
    const tail = 0.5 * normalTail(x / Math.sqrt(0.02)) + 0.5 * normalTail(x / Math.sqrt(0.08));
    expect(tail / normalTail(3.5)).toBeCloseTo(1, 6);
  });
});

describe('decayedSumGain: a decayed sum rests on more comparisons than its weight', () => {
  it('1 before anything has decayed, about 1.6 after 60 days, under 2 however long', () => {
    expect(decayedSumGain(0)).toBe(1);
    expect(decayedSumGain(1)).toBeCloseTo(1, 1);
    const keep = 0.5 ** (1 / 28);
    const after = (n: number) => (1 - keep ** n) / (1 - keep);
    expect(decayedSumGain(after(60))).toBeGreaterThan(1.5);
    expect(decayedSumGain(after(60))).toBeLessThan(1.7);
    expect(decayedSumGain(after(2000))).toBeLessThanOrEqual(2);
    expect(decayedSumGain(1e6)).toBeLessThanOrEqual(2);
  });
});

describe('varianceFor: reading the curve', () => {
  const curve = { extra: 0.04, chance: [0.001, 0.004, 0.016], judged: [0.04, 0.03, 0.02] };
  it('a single figure is itself; a curve is read on the log scale of chance, its ends beyond', () => {
    expect(varianceFor(0.02, 5)).toBe(0.02);
    expect(varianceFor({ extra: 0.02 }, 5)).toBe(0.02);
    expect(varianceFor(curve, 0)).toBe(0.04);
    expect(varianceFor(curve, 0.002)).toBeCloseTo(0.035, 12);
    expect(varianceFor(curve, 0.004)).toBeCloseTo(0.03, 12);
    expect(varianceFor(curve, 1)).toBe(0.02);
  });
});

describe('normal: the distributions the estimators read', () => {
  it('logGamma and the chi-square density', () => {
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 10);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 10);
    // df 2: the density is e^(-x/2) / 2.
    expect(logChiSquareDensity(3, 2)).toBeCloseTo(-1.5 - Math.LN2, 10);
  });
  it('normalTail', () => {
    expect(normalTail(0)).toBeCloseTo(0.5, 7);
    expect(normalTail(3.5)).toBeCloseTo(2.326e-4, 6);
  });
});

describe('judgedShared: the shared parts a domain’s move is judged by', () => {
  const prior = {
    common: PRIOR_COMMON_SD ** 2,
    domain: PRIOR_COMMON_SD ** 2 - PRIOR_NETWORK_SD ** 2,
  };

  it('with nothing learned yet, the prior’s parts', () => {
    const shared = judgedShared({ extra: 0.03, common: 0, network: 0, days: 0 });
    expect(shared.common).toBeCloseTo(prior.common, 12);
    expect(shared.domain).toBeCloseTo(prior.domain, 12);
  });

  it('a shared part learned as none over SHARED_TRUST_DAYS days: half the prior’s', () => {
    const variation = { extra: 0.03, common: 0.0009, network: 0.0009, days: SHARED_TRUST_DAYS };
    const shared = judgedShared(variation);
    expect(shared.common).toBeCloseTo((0.0009 + prior.common) / 2, 12);
    // The domain's own part learned as none (the network's ate the shared part).
    expect(shared.domain).toBeCloseTo(prior.domain / 2, 12);
  });

  it('never below the learned parts, nor above the variation all together', () => {
    const learned = { extra: 0.03, common: 0.012, network: 0.002, days: 2 };
    expect(judgedShared(learned)).toEqual({ common: 0.012, domain: 0.01 });
    // A network that varies little in all: its shared parts cannot be more than that.
    const quiet = { extra: 0.001, common: 0, network: 0, days: 1 };
    expect(judgedShared(quiet)).toEqual({ common: 0.001, domain: 0.001 });
    expect(judgedShared({ extra: 0, common: 0, network: 0, days: 0 })).toEqual({
      common: 0,
      domain: 0,
    });
  });
});
