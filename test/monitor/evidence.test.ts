import { describe, expect, it } from 'vitest';
import { EVIDENCE_LEGEND, evidenceOf, runReason, strengthOf } from '../../src/monitor/evidence.js';
import type { ListedRun } from '../../src/monitor/types.js';

const run = (days: number): ListedRun => ({
  since: '2026-03-01',
  last: '2026-03-06',
  days,
  clicks: 700 * days,
  d7: 1000 * days,
  d14: 1000 * days,
});

describe('evidence in words', () => {
  it.each([
    [12, 'far beyond normal day-to-day variation'],
    [10, 'far beyond normal day-to-day variation'],
    [6.2, 'well beyond normal day-to-day variation'],
    [3.5, 'beyond normal day-to-day variation'],
    [2.4, 'at the edge of normal day-to-day variation'],
    [1, 'within normal day-to-day variation'],
    [-3, 'within normal day-to-day variation'],
  ])('z %d: %s', (z, words) => {
    expect(strengthOf(z)).toBe(words);
  });

  it.each([
    [undefined, 31, undefined],
    [run(1), 31, undefined],
    [run(2), 12.4, 'down 2 days running, -12% in total'],
    [run(6), 31, 'down 6 days running, -31% in total'],
    [run(7), 35, 'down 7 days running, -35% in total'],
    // Longer: the comparison day 7 back lies inside the run, so no "in total".
    [run(9), 35, 'down 9 days running'],
  ])('why: run %o, drop %d -> %s', (r, dropPercent, reason) => {
    expect(runReason({ run: r, dropPercent })).toBe(reason);
  });

  it('one line: strength, z, and the run', () => {
    expect(evidenceOf({ significance: 6.24, dropPercent: 31, run: run(6) })).toEqual({
      z: 6.2,
      strength: 'well beyond normal day-to-day variation',
      reason: 'down 6 days running, -31% in total',
      line: 'Well beyond normal day-to-day variation (z 6.2); down 6 days running, -31% in total.',
    });
    expect(evidenceOf({ significance: 40, dropPercent: 100 }).line).toBe(
      'Far beyond normal day-to-day variation (z 40.0).',
    );
  });

  it('a steady decline says the days together made it, and what yesterday alone said', () => {
    // 3 days: 2,100 clicks against 3,000 on both weeks: (900 - 1) / sqrt(5,100) = 12.6.
    const e = evidenceOf({ significance: 2.4, dropPercent: 22, run: run(3), steady: true });
    expect(e.line).toBe(
      'Far beyond normal day-to-day variation over 3 days in a row (z 12.6; yesterday alone z 2.4); down 3 days running, -22% in total.',
    );
  });

  it('the legend names the figure and the setting', () => {
    expect(EVIDENCE_LEGEND).toMatch(
      /^z: .*standard deviations.*7 and 14 days back.*alerts\.minSignificance/,
    );
  });
});
