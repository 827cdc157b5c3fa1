import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import {
  extendRun,
  isSteadyDecline,
  runAfterClear,
  runDropBothWeeks,
  runDropPercent,
  runSignificance,
} from '../../src/monitor/runs.js';
import type { ListedRun, WatchedRun } from '../../src/monitor/types.js';
import { SETTINGS } from './fixtures.js';

const DAY = '2026-03-10';
const counts = { yesterday: 80, d7: 100, d14: 100 };

describe('extendRun: consecutive listed days', () => {
  const prev: ListedRun = { since: DAY, last: DAY, days: 1, clicks: 80, d7: 100, d14: 100 };
  const table: {
    name: string;
    prev: ListedRun | undefined;
    asOf: string;
    significance: number;
    networkDip?: boolean;
    expected: ListedRun | undefined;
  }[] = [
    {
      name: 'starts a run',
      prev: undefined,
      asOf: DAY,
      significance: 1.4,
      expected: prev,
    },
    {
      name: 'the next day continues it, summing the days',
      prev,
      asOf: addDays(DAY, 1),
      significance: 1,
      expected: { since: DAY, last: addDays(DAY, 1), days: 2, clicks: 160, d7: 200, d14: 200 },
    },
    {
      name: 'a missed day starts a new one',
      prev,
      asOf: addDays(DAY, 2),
      significance: 2,
      expected: { ...prev, since: addDays(DAY, 2), last: addDays(DAY, 2) },
    },
    {
      name: 'a day without evidence of its own ends it (z under RUN_MIN_DAY_SIGNIFICANCE)',
      prev,
      asOf: addDays(DAY, 1),
      significance: 0.49,
      expected: undefined,
    },
    {
      name: "on the network's dip day a pair within DIP_DAY_RUN_MIN_SIGNIFICANCE of the dip starts none",
      prev: undefined,
      asOf: DAY,
      significance: 1.9,
      networkDip: true,
      expected: undefined,
    },
    {
      name: "on the network's dip day a pair well beyond the dip starts one",
      prev: undefined,
      asOf: DAY,
      significance: 2,
      networkDip: true,
      expected: prev,
    },
    {
      name: "on the network's dip day a run listed the day before goes on as on any day",
      prev,
      asOf: addDays(DAY, 1),
      significance: 0.5,
      networkDip: true,
      expected: { since: DAY, last: addDays(DAY, 1), days: 2, clicks: 160, d7: 200, d14: 200 },
    },
    {
      name: 'a forced re-run of the same date keeps it as it was',
      prev,
      asOf: DAY,
      significance: 0,
      expected: prev,
    },
  ];
  it.each(table)('$name', (row) => {
    const pair = { domainId: 7, isp: 'Comcast' };
    const prev = row.prev && { ...pair, ...row.prev };
    const expected = row.expected && { ...pair, ...row.expected };
    expect(
      extendRun(prev, 7, 'Comcast', row.asOf, counts, row.significance, false, row.networkDip),
    ).toEqual(expected);
  });
});

describe('isSteadyDecline', () => {
  // Three days: 270 clicks against 360 on both weeks back: (360 - 270 - 1) / sqrt(630) = 3.55.
  const run: ListedRun = {
    since: DAY,
    last: addDays(DAY, 2),
    days: 3,
    clicks: 270,
    d7: 360,
    d14: 360,
  };
  const today = { baseline: 120, d14: 120, d30: 120, dropPercent: 25, significance: 2 };
  const table: {
    name: string;
    run?: ListedRun;
    today?: {
      baseline: number;
      d14: number;
      d30: number;
      dropPercent: number;
      significance: number;
      inOutage?: boolean;
      told?: boolean;
    };
    settings?: Partial<typeof SETTINGS>;
    steady: boolean;
  }[] = [
    { name: 'three days, certain together, still as deep', steady: true },
    { name: 'no run', run: undefined, steady: false },
    { name: 'two days are not a run yet', run: { ...run, days: 2 }, steady: false },
    {
      // A slide of a large pair: today 17% down beyond minSignificance (certain, but under
      // minDropPercent), the day before listed too; 1,500 clicks against 1,800 together.
      name: 'two days are a run when today alone is beyond minSignificance',
      run: { ...run, days: 2, clicks: 1500, d7: 1800, d14: 1800 },
      today: { ...today, dropPercent: 17, significance: 3.5 },
      steady: true,
    },
    {
      // 1,580 clicks against 1,800 together: (220 - 1) / sqrt(3,380) = 3.77.
      name: 'not when today alone is under minSignificance, the two days under it + 1',
      run: { ...run, days: 2, clicks: 1580, d7: 1800, d14: 1800 },
      today: { ...today, dropPercent: 17, significance: 3.49 },
      steady: false,
    },
    {
      // A slide that began on a Monday: its Wednesday and Thursday are its first listed days,
      // neither alone beyond minSignificance; 1,500 clicks against 1,800 together: z 5.2.
      name: 'two days are a run when together they are 1 beyond minSignificance',
      run: { ...run, days: 2, clicks: 1500, d7: 1800, d14: 1800 },
      today: { ...today, dropPercent: 17, significance: 3.49 },
      steady: true,
    },
    {
      // 2 days, 90 clicks against 240: down 62% together, beyond criticalDropPercent.
      name: 'two days are a run when they dropped criticalDropPercent together',
      run: { ...run, days: 2, clicks: 90, d7: 240, d14: 240 },
      today: { baseline: 120, d14: 120, d30: 120, dropPercent: 60, significance: 2 },
      steady: true,
    },
    {
      // Its domain down whole today: half its ISPs are below the domain's move, days of it are
      // no decline of the pair's own.
      name: 'no steady decline on a day the pair is judged against an outage of its domain',
      run: { ...run, days: 2, clicks: 90, d7: 240, d14: 240 },
      today: {
        baseline: 120,
        d14: 120,
        d30: 120,
        dropPercent: 60,
        significance: 2,
        inOutage: true,
      },
      steady: false,
    },
    {
      name: 'nor of three days',
      today: { ...today, inOutage: true },
      steady: false,
    },
    {
      name: 'not certain together',
      run: { ...run, clicks: 300 },
      steady: false,
    },
    {
      name: 'today under three quarters of minDropPercent',
      today: { ...today, dropPercent: 14.9 },
      steady: false,
    },
    {
      name: 'today at three quarters of minDropPercent',
      today: { ...today, dropPercent: 15 },
      // ... but the run averages 25%: 15 is under three quarters of it (receding).
      steady: false,
    },
    {
      name: 'receding: today far less down than the run (the tail of an outage)',
      run: { ...run, clicks: 36 },
      today: { ...today, dropPercent: 40 },
      steady: false,
    },
    {
      name: 'every comparison day under minBaselineClicks',
      today: { baseline: 49, d14: 45, d30: 49, dropPercent: 25, significance: 2 },
      steady: false,
    },
    {
      // A pair told before needs no floor, as isSustained: a small pair's step drop told on a
      // Thursday, its weekend days under 50 clicks, is still the same decline.
      name: 'every comparison day under minBaselineClicks, the pair told before',
      today: { baseline: 49, d14: 45, d30: 49, dropPercent: 25, significance: 2, told: true },
      steady: true,
    },
    {
      // A pair of 55 clicks a weekday: a weekend puts both same weekdays under 50.
      name: 'both weeks under minBaselineClicks, day 30 back (a weekday) over it',
      today: { baseline: 34, d14: 33, d30: 58, dropPercent: 25, significance: 2 },
      steady: true,
    },
    {
      name: 'minSignificance 0: the test is off, nothing to add',
      settings: { minSignificance: 0 },
      steady: false,
    },
  ];
  it.each(table)('$name', (row) => {
    const r = 'run' in row ? row.run : run;
    expect(
      isSteadyDecline(r, row.today ?? today, {
        ...SETTINGS,
        minSignificance: 3.5,
        ...row.settings,
      }),
    ).toBe(row.steady);
  });

  it('two days dropped criticalDropPercent only against day 7 back are not a run yet', () => {
    // Two chance days of a 300-click pair whose day 7 back was high: 369 clicks against 738 and
    // 699, 50.0% and 47.2% down, 48.6% on average; at 3% daily variation together z 3.46.
    const chance: ListedRun = { ...run, days: 2, clicks: 369, d7: 738, d14: 699 };
    const wednesday = { baseline: 476, d14: 399, d30: 443, dropPercent: 62.6, significance: 3.2 };
    const settings = { ...SETTINGS, minSignificance: 3.5 };
    expect(runDropPercent(chance)).toBe(50);
    expect(runDropBothWeeks(chance)).toBeCloseTo(48.6, 1);
    expect(isSteadyDecline(chance, wednesday, settings, 0.03)).toBe(false);
    // The same two days down 50% against both weeks are a run (a block of a smaller pair).
    const both = { ...chance, d14: 738 };
    expect(runDropBothWeeks(both)).toBe(50);
    expect(isSteadyDecline(both, wednesday, settings, 0.03)).toBe(true);
    // A third day makes it a run whatever its depth, when the days together are certain.
    const third = { ...chance, days: 3, clicks: 369 + 150, d7: 738 + 300, d14: 699 + 300 };
    expect(isSteadyDecline(third, wednesday, settings, 0.01)).toBe(true);
  });

  it('a learned variation asks more of a run: its days vary by it, a third as much together', () => {
    const bigger = { ...run, clicks: 27_000, d7: 36_000, d14: 36_000 };
    expect(isSteadyDecline(bigger, today, { ...SETTINGS, minSignificance: 3.5 })).toBe(true);
    // 25% over 3 days at 20% daily variation: ln(4/3) / sqrt(2 x 0.04 / 3) = 1.76.
    expect(isSteadyDecline(bigger, today, { ...SETTINGS, minSignificance: 3.5 }, 0.04)).toBe(false);
    expect(runSignificance(bigger, 0.04)).toBeCloseTo(1.76, 1);
  });

  it('the run figures: summed days against the weaker week, and the average drop', () => {
    expect(runSignificance(run)).toBeCloseTo(89 / Math.sqrt(630), 12);
    expect(runSignificance({ ...run, d14: 300 })).toBeCloseTo(29 / Math.sqrt(570), 12);
    expect(runDropPercent(run)).toBe(25);
    expect(runDropPercent({ ...run, d7: 0 })).toBe(0);
  });
});

describe('runAfterClear: a cleared pair keeps only today in its run', () => {
  it('begins anew with today, on the same day, so its told days are not summed again', () => {
    // A block for good cleared once day 7 back lies inside it; day 14 back is still before it.
    const long: WatchedRun = {
      domainId: 102,
      isp: 'ISP 25',
      since: DAY,
      last: addDays(DAY, 8),
      days: 9,
      clicks: 284,
      d7: 922,
      d14: 1154,
    };
    expect(runAfterClear(long, { yesterday: 22, d7: 29, d14: 157 })).toEqual({
      domainId: 102,
      isp: 'ISP 25',
      since: addDays(DAY, 8),
      last: addDays(DAY, 8),
      days: 1,
      clicks: 22,
      d7: 29,
      d14: 157,
    });
  });
});
