import { describe, expect, it } from 'vitest';
import { formatCount, formatPercent } from '../../src/notify/render/format.js';

describe('formatCount', () => {
  it('writes every number as Intl en-US does (integers without Intl, the rest with it)', () => {
    const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    const values = [
      0,
      -0,
      1,
      -1,
      7,
      12,
      999,
      -999,
      1_000,
      -1_000,
      12_345,
      123_456,
      1_234_567,
      -9_876_543,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      2 ** 53 + 2,
      1e21,
      0.5,
      1.5,
      2.5,
      -0.5,
      -2.5,
      1234.4999,
      999.5,
      1e-7,
    ];
    for (let n = 1; n < 1e15; n = n * 7 + 3) values.push(n, -n);
    for (const value of values) expect(formatCount(value)).toBe(intl.format(value));
    expect(formatCount(Number.NaN)).toBe('n/a');
    expect(formatCount(Infinity)).toBe('n/a');
  });

  it('percentages keep their sign and grouping', () => {
    expect(formatPercent(-1234.4)).toBe('-1,234%');
    expect(formatPercent(5)).toBe('+5%');
    expect(formatPercent(-0.4)).toBe('0%');
  });
});
