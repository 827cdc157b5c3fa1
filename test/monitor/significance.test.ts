import { describe, expect, it } from 'vitest';
import {
  dropZ,
  poissonZ,
  poissonZBelowShare,
  poissonZCorrected,
  POISSON_ONLY,
  SIGNIFICANCE_RULES,
  significanceOf,
} from '../../src/monitor/significance.js';
import { MAX_EXTRA_SD } from '../../src/monitor/variation.js';

describe('significanceOf with chance alone: the weaker of the two same-weekday Poisson z, continuity-corrected', () => {
  const table: { name: string; yesterday: number; d7: number; d14: number; z: number }[] = [
    { name: 'all zero', yesterday: 0, d7: 0, d14: 0, z: 0 },
    {
      name: 'zero baseline, traffic yesterday: a rise',
      yesterday: 5,
      d7: 0,
      d14: 0,
      z: -4 / Math.sqrt(5),
    },
    {
      name: 'zero on day 7 back: no evidence whatever day 14 says',
      yesterday: 0,
      d7: 0,
      d14: 500,
      z: 0,
    },
    { name: 'one click down is no evidence', yesterday: 4, d7: 5, d14: 5, z: 0 },
    { name: 'tiny: 2 to 0', yesterday: 0, d7: 2, d14: 2, z: 1 / Math.sqrt(2) },
    { name: 'tiny: 10 to 0 stays under 3', yesterday: 0, d7: 10, d14: 10, z: 9 / Math.sqrt(10) },
    {
      name: 'tiny: 11 to 0 is the first drop to zero over 3',
      yesterday: 0,
      d7: 11,
      d14: 11,
      z: 10 / Math.sqrt(11),
    },
    {
      name: 'the variance is the sum of both counts',
      yesterday: 60,
      d7: 100,
      d14: 100,
      z: 39 / Math.sqrt(160),
    },
    { name: 'one high week alone is not a drop', yesterday: 100, d7: 200, d14: 100, z: 0 },
    { name: 'the weaker week decides', yesterday: 50, d7: 100, d14: 400, z: 49 / Math.sqrt(150) },
    { name: 'a rise', yesterday: 120, d7: 100, d14: 100, z: -19 / Math.sqrt(220) },
    {
      name: 'huge: a 1% drop on a million is 7 sd',
      yesterday: 990_000,
      d7: 1_000_000,
      d14: 1_000_000,
      z: 9_999 / Math.sqrt(1_990_000),
    },
    {
      name: 'huge: no overflow at 10^12',
      yesterday: 5e11,
      d7: 1e12,
      d14: 1e12,
      z: (5e11 - 1) / Math.sqrt(1.5e12),
    },
  ];
  it.each(table)('$name', (row) => {
    expect(significanceOf(row)).toBeCloseTo(row.z, 9);
    expect(significanceOf(row, POISSON_ONLY)).toBe(significanceOf(row));
    expect(Number.isFinite(significanceOf(row))).toBe(true);
  });

  it('is symmetric in the two comparison weeks', () => {
    expect(significanceOf({ yesterday: 30, d7: 90, d14: 60 })).toBe(
      significanceOf({ yesterday: 30, d7: 60, d14: 90 }),
    );
  });

  it('the plain and the corrected z differ by one click over the root of the total', () => {
    expect(poissonZ(100, 60)).toBeCloseTo(40 / Math.sqrt(160), 12);
    expect(poissonZCorrected(100, 60)).toBeCloseTo(39 / Math.sqrt(160), 12);
    expect(poissonZCorrected(60, 100)).toBeCloseTo(-39 / Math.sqrt(160), 12);
    expect(poissonZ(0, 0)).toBe(0);
    expect(poissonZCorrected(0, 0)).toBe(0);
  });

  it('the measured alternatives: the previous rule ignores the variation, learned-own the common move', () => {
    const counts = { yesterday: 700, d7: 1000, d14: 1000 };
    const noise = { extra: 0.01, share7: 0.9, share14: 0.9 };
    expect(SIGNIFICANCE_RULES['poisson']?.(counts, noise)).toBe(significanceOf(counts));
    expect(SIGNIFICANCE_RULES['learned-own']?.(counts, noise)).toBe(
      significanceOf(counts, { extra: 0.01, share7: 1, share14: 1 }),
    );
    expect(SIGNIFICANCE_RULES['learned']).toBe(significanceOf);
  });
});

describe('dropZ: chance and the learned variation combined', () => {
  it('with no learned variation it is the Poisson rule exactly', () => {
    for (const [before, after] of [
      [100, 60],
      [11, 0],
      [1e6, 990_000],
      [0, 5],
    ] as const) {
      expect(dropZ(before, 1, after, 0)).toBe(poissonZCorrected(before, after));
    }
  });

  it('1/z^2 = 1/z_chance^2 + 2 x extra / ln(before / after)^2', () => {
    const chance = poissonZCorrected(1000, 400);
    const log = Math.log(1000.5 / 400.5);
    expect(dropZ(1000, 1, 400, 0.01)).toBeCloseTo(
      1 / Math.sqrt(1 / chance ** 2 + 0.02 / log ** 2),
      12,
    );
  });

  it('a huge pair is judged by the variation alone, a small one mostly by chance', () => {
    // 1,000,000 -> 500,000: chance says 577 sd; a 10% variation says ln 2 / (0.1 sqrt 2) = 4.9.
    expect(dropZ(1e6, 1, 5e5, 0.01)).toBeCloseTo(Math.log(1e6 / 5e5) / Math.sqrt(0.02), 2);
    // 40 -> 12: chance 4.0; with the variation a little less.
    const small = dropZ(40, 1, 12, 0.01);
    expect(small).toBeLessThan(poissonZCorrected(40, 12));
    expect(small).toBeGreaterThan(0.8 * poissonZCorrected(40, 12));
  });

  it('a certain step stays news at the largest variation learned (MAX_EXTRA_SD)', () => {
    const cap = MAX_EXTRA_SD ** 2;
    expect(dropZ(900, 1, 100, cap)).toBeGreaterThan(4.5);
    expect(
      significanceOf({ yesterday: 100, d7: 900, d14: 900 }, { ...POISSON_ONLY, extra: cap }),
    ).toBeGreaterThan(4.5);
  });

  it('no drop is no evidence: at or above the comparison day, 0 or less', () => {
    expect(dropZ(100, 1, 100, 0.01)).toBe(0);
    expect(dropZ(100, 1, 150, 0.01)).toBeLessThan(0);
    expect(dropZ(0, 1, 0, 0.01)).toBe(0);
  });

  it('days: a sum over n days varies by 1/n of the variation', () => {
    const one = dropZ(1000, 1, 700, 0.01, 1);
    const four = dropZ(4000, 1, 2800, 0.01, 4);
    expect(four).toBeGreaterThan(one * 1.9);
  });

  it('against a common move: only what the pair lost beyond its domain counts', () => {
    const counts = { yesterday: 600, d7: 1000, d14: 1000 };
    const alone = significanceOf(counts, { extra: 0.01, share7: 1, share14: 1 });
    const withDomain = significanceOf(counts, { extra: 0.01, share7: 0.6, share14: 0.6 });
    expect(alone).toBeGreaterThan(3);
    expect(withDomain).toBe(0);
    // A pair down 90% in a domain down 40% is still news.
    expect(
      significanceOf(
        { yesterday: 100, d7: 1000, d14: 1000 },
        { extra: 0.01, share7: 0.6, share14: 0.6 },
      ),
    ).toBeGreaterThan(5);
  });
});

describe('poissonZBelowShare: yesterday below a share of a comparison day', () => {
  const table: { name: string; before: number; share: number; after: number; z: number }[] = [
    { name: 'all zero', before: 0, share: 0.5, after: 0, z: 0 },
    {
      name: 'zero before, clicks after: above it',
      before: 0,
      share: 0.5,
      after: 4,
      z: -3 / Math.sqrt(2),
    },
    { name: 'exactly at the share: no evidence', before: 200, share: 0.5, after: 100, z: 0 },
    { name: 'one click under it: no evidence', before: 200, share: 0.5, after: 99, z: 0 },
    {
      name: 'tiny: 4 to 0 at half',
      before: 4,
      share: 0.5,
      after: 0,
      z: 1 / Math.sqrt(2),
    },
    {
      // The means are in the ratio share : 1 under that share: their sum estimates them.
      name: 'the variance is share x (before + after)',
      before: 400,
      share: 0.5,
      after: 100,
      z: 99 / Math.sqrt(250),
    },
    {
      // 0 clicks where the domain kept 3% of 177 (5.3 expected) is not 10 sd: the null's
      // variance is the expected count's, not the 0 observed.
      name: 'zero where a small share was expected',
      before: 177,
      share: 0.03,
      after: 0,
      z: (0.03 * 177 - 1) / Math.sqrt(0.03 * 177),
    },
    {
      name: 'share 1 is the corrected Poisson difference',
      before: 100,
      share: 1,
      after: 60,
      z: poissonZCorrected(100, 60),
    },
    {
      name: 'huge: 1% beyond half of a million',
      before: 1_000_000,
      share: 0.5,
      after: 490_000,
      z: 9_999 / Math.sqrt(745_000),
    },
  ];
  it.each(table)('$name', (row) => {
    expect(poissonZBelowShare(row.before, row.share, row.after)).toBeCloseTo(row.z, 9);
  });
});
