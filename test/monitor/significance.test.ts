import { describe, expect, it } from 'vitest';
import {
  poissonZ,
  poissonZBelowShare,
  poissonZCorrected,
  SIGNIFICANCE_RULES,
  significanceOf,
} from '../../src/monitor/significance.js';

describe('significanceOf: the weaker of the two same-weekday Poisson z, continuity-corrected', () => {
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

  it('the measured alternatives: the first version overstates a drop ~1.4-fold', () => {
    const counts = { yesterday: 700, d7: 1000, d14: 1000 };
    const old = SIGNIFICANCE_RULES['baseline-only']?.(counts) ?? 0;
    const fair = SIGNIFICANCE_RULES['poisson-d7']?.(counts) ?? 0;
    expect(old).toBeCloseTo(300 / Math.sqrt(1000), 9);
    expect(fair).toBeCloseTo(300 / Math.sqrt(1700), 9);
    expect(old / fair).toBeCloseTo(Math.sqrt(1.7), 9);
    // pooled: mean 1000, variance 700 + 500
    expect(SIGNIFICANCE_RULES['poisson-pooled']?.(counts)).toBeCloseTo(300 / Math.sqrt(1200), 9);
    expect(SIGNIFICANCE_RULES['poisson-min-corrected']).toBe(significanceOf);
  });
});

describe('poissonZBelowShare: yesterday below a share of a comparison day', () => {
  const table: { name: string; before: number; share: number; after: number; z: number }[] = [
    { name: 'all zero', before: 0, share: 0.5, after: 0, z: 0 },
    { name: 'zero before, clicks after: above it', before: 0, share: 0.5, after: 4, z: -3 / 2 },
    { name: 'exactly at the share: no evidence', before: 200, share: 0.5, after: 100, z: 0 },
    { name: 'one click under it: no evidence', before: 200, share: 0.5, after: 99, z: 0 },
    {
      name: 'tiny: 4 to 0 at half is 1 sd',
      before: 4,
      share: 0.5,
      after: 0,
      z: 1 / Math.sqrt(1),
    },
    {
      name: 'the share scales the variance of the comparison day by its square',
      before: 400,
      share: 0.5,
      after: 100,
      z: 99 / Math.sqrt(100 + 100),
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
      z: 9_999 / Math.sqrt(250_000 + 490_000),
    },
  ];
  it.each(table)('$name', (row) => {
    expect(poissonZBelowShare(row.before, row.share, row.after)).toBeCloseTo(row.z, 9);
  });
});
