import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import {
  Day30Evidence,
  DAY30_QUIETER_SHARE,
  day30SharesAfter,
  holdsListed,
  holdsUnlisted,
  keepsRunUnlisted,
  rememberedDay30Share,
} from '../../src/monitor/hold.js';
import type { ListedRun } from '../../src/monitor/types.js';
import type { IspTrend } from '../../src/monitor/types.js';
import { SETTINGS, entry } from './fixtures.js';

const DAY = '2026-03-10';

/** A listed pair whose days 7 and 14 back are `same` and whose day 30 back is `d30`. */
function listed(isp: string, same: number, d30: number, d14 = same): IspTrend {
  return {
    ...entry(1, isp, { baseline: same, yesterday: Math.floor(same / 2) }),
    fourteen_days_ago_total_clicks: d14,
    thirty_days_ago_total_clicks: d30,
  };
}

function share(entries: IspTrend[], minBaselineClicks = SETTINGS.minBaselineClicks) {
  const day30 = new Day30Evidence(minBaselineClicks);
  for (const e of entries) day30.add(e);
  return day30.share();
}

describe('Day30Evidence: day 30 back as a share of yesterday’s weekday, from today’s list', () => {
  const table: { name: string; entries: IspTrend[]; floor?: number; share: number | undefined }[] =
    [
      { name: 'an empty list shows nothing', entries: [], share: undefined },
      {
        name: 'two pairs are too few to show it',
        entries: [listed('a', 500, 500), listed('b', 500, 500)],
        share: undefined,
      },
      {
        name: 'three pairs alike',
        entries: [listed('a', 500, 500), listed('b', 500, 500), listed('c', 500, 500)],
        share: 1,
      },
      {
        name: 'a quieter weekend 30 days back',
        entries: [listed('a', 500, 350), listed('b', 500, 350), listed('c', 500, 350)],
        share: 0.7,
      },
      {
        name: 'summed, so large pairs weigh more',
        entries: [listed('a', 5000, 5000), listed('b', 60, 30), listed('c', 60, 30)],
        share: 5060 / 5120,
      },
      {
        name: 'against the mean of days 7 and 14 back',
        entries: [
          listed('a', 200, 150, 100),
          listed('b', 200, 150, 100),
          listed('c', 200, 150, 100),
        ],
        share: 1,
      },
      {
        name: 'pairs under minBaselineClicks say nothing',
        entries: [listed('a', 49, 20), listed('b', 49, 20), listed('c', 49, 20)],
        share: undefined,
      },
      {
        name: 'minBaselineClicks 0: zero counts still say nothing',
        entries: [listed('a', 0, 0), listed('b', 0, 0), listed('c', 0, 0)],
        floor: 0,
        share: undefined,
      },
    ];
  it.each(table)('$name', ({ entries, floor, share: expected }) => {
    const got = share(entries, floor);
    if (expected === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(expected, 12);
  });

  it('quieter: under DAY30_QUIETER_SHARE, or too few pairs to tell', () => {
    const quieter = (d30: number, pairs = 3) => {
      const day30 = new Day30Evidence(SETTINGS.minBaselineClicks);
      for (let i = 0; i < pairs; i++) day30.add(listed(`isp ${i}`, 1000, d30));
      return day30.quieter();
    };
    expect(quieter(700)).toBe(true);
    expect(quieter(1000 * DAY30_QUIETER_SHARE - 1)).toBe(true);
    // A Wednesday's day 30 back (a Friday) at 97%: not a quieter day.
    expect(quieter(1000 * DAY30_QUIETER_SHARE)).toBe(false);
    expect(quieter(970)).toBe(false);
    expect(quieter(1300)).toBe(false);
    expect(quieter(1300, 2)).toBe(true);
  });
});

const RUN: ListedRun = { since: DAY, last: DAY, days: 3, clicks: 210, d7: 300, d14: 300 };

describe('holdsListed: listed under the thresholds, but still in its decline', () => {
  const table: {
    name: string;
    run: ListedRun | undefined;
    today: number;
    last: number;
    held: boolean;
  }[] = [
    {
      name: 'in a listed run, still down, last drop moderate',
      run: RUN,
      today: 15,
      last: 30,
      held: true,
    },
    {
      name: 'a run of one day (today) is enough',
      run: { ...RUN, days: 1 },
      today: 15,
      last: 30,
      held: true,
    },
    {
      name: 'no evidence of its own today (no run)',
      run: undefined,
      today: 15,
      last: 30,
      held: false,
    },
    { name: 'today at half of minDropPercent (10%)', run: RUN, today: 10, last: 30, held: true },
    { name: 'today under half of it', run: RUN, today: 9.9, last: 30, held: false },
    { name: 'last drop just under critical', run: RUN, today: 15, last: 49.9, held: true },
    {
      name: 'last drop critical: an outage that ended',
      run: RUN,
      today: 15,
      last: 50,
      held: false,
    },
  ];
  it.each(table)('$name', ({ run, today, last, held }) => {
    expect(holdsListed(run, today, last, SETTINGS)).toBe(held);
  });
});

describe('holdsUnlisted: missing on a day whose day 30 back could hide the decline', () => {
  // The pair's last alertable drop is 30%: day 30 back hides it at 70% of yesterday's weekday.
  const table: {
    name: string;
    run: ListedRun | undefined;
    asOf: string;
    last: number;
    day30: number | undefined;
    remembered?: number;
    held: boolean;
  }[] = [
    {
      name: 'the day after a 3-day run, day 30 back at 60%',
      run: RUN,
      asOf: addDays(DAY, 1),
      last: 30,
      day30: 0.6,
      held: true,
    },
    {
      name: 'two days after it',
      run: RUN,
      asOf: addDays(DAY, 2),
      last: 30,
      day30: 0.6,
      held: true,
    },
    {
      name: 'three days after it',
      run: RUN,
      asOf: addDays(DAY, 3),
      last: 30,
      day30: 0.6,
      held: false,
    },
    {
      name: 'a forced re-run of the run’s own date',
      run: RUN,
      asOf: DAY,
      last: 30,
      day30: 0.6,
      held: true,
    },
    {
      name: 'day 30 back at exactly 70%: hides it',
      run: RUN,
      asOf: addDays(DAY, 1),
      last: 30,
      day30: 0.7,
      held: true,
    },
    {
      name: 'day 30 back at 73%: a 30% decline would still be listed, so it ended',
      run: RUN,
      asOf: addDays(DAY, 1),
      last: 30,
      day30: 0.73,
      held: false,
    },
    {
      name: 'day 30 back like yesterday',
      run: RUN,
      asOf: addDays(DAY, 1),
      last: 30,
      day30: 1,
      held: false,
    },
    {
      name: 'the list shows nothing (too few pairs): held',
      run: RUN,
      asOf: addDays(DAY, 1),
      last: 30,
      day30: undefined,
      held: true,
    },
    {
      name: 'a run of 2 days (a weekend dip) is too short',
      run: { ...RUN, days: 2 },
      asOf: addDays(DAY, 1),
      last: 30,
      day30: 0.6,
      held: false,
    },
    { name: 'no run', run: undefined, asOf: addDays(DAY, 1), last: 30, day30: 0.6, held: false },
    {
      name: 'a deep decline, even when the list shows nothing',
      run: RUN,
      asOf: addDays(DAY, 1),
      last: 50,
      day30: undefined,
      held: false,
    },
    {
      name: 'a run of 2 days, the list shows nothing, day 30 back remembered at 65%: held',
      run: { ...RUN, days: 2 },
      asOf: addDays(DAY, 1),
      last: 30,
      day30: undefined,
      remembered: 0.65,
      held: true,
    },
    {
      name: 'a run of 1 day, two days after it, remembered at 65%: held',
      run: { ...RUN, days: 1 },
      asOf: addDays(DAY, 2),
      last: 30,
      day30: undefined,
      remembered: 0.65,
      held: true,
    },
    {
      name: 'a short run, remembered at 75%: a 30% decline would be listed, so it ended',
      run: { ...RUN, days: 2 },
      asOf: addDays(DAY, 1),
      last: 30,
      day30: undefined,
      remembered: 0.75,
      held: false,
    },
    {
      name: 'a short run of a weekend dip to half, remembered at 65%: too deep to hide',
      run: { ...RUN, days: 2 },
      asOf: addDays(DAY, 1),
      last: 48,
      day30: undefined,
      remembered: 0.65,
      held: false,
    },
    {
      name: 'a short run, the list shows nothing and nothing remembered',
      run: { ...RUN, days: 2 },
      asOf: addDays(DAY, 1),
      last: 30,
      day30: undefined,
      held: false,
    },
    {
      name: 'a short run, the list shows day 30 back: the remembered share is not read',
      run: { ...RUN, days: 2 },
      asOf: addDays(DAY, 1),
      last: 30,
      day30: 0.6,
      remembered: 0.6,
      held: false,
    },
    {
      name: 'a long run, the list shows nothing: held whatever is remembered',
      run: RUN,
      asOf: addDays(DAY, 1),
      last: 30,
      day30: undefined,
      remembered: 0.9,
      held: true,
    },
  ];
  it.each(table)('$name', ({ run, asOf, last, day30, remembered, held }) => {
    expect(holdsUnlisted(run, asOf, last, day30, remembered, SETTINGS)).toBe(held);
  });

  it('keepsRunUnlisted: an unlisted run is kept for two as-of days', () => {
    expect([0, 1, 2, 3].map((d) => keepsRunUnlisted(RUN, addDays(DAY, d)))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('day30SharesAfter and rememberedDay30Share: what the lists showed of day 30 back', () => {
  // 2026-03-07 is a Saturday, 2026-03-09 a Monday.
  const SATURDAY = '2026-03-07';
  const asOfAfter = (yesterday: string) => addDays(yesterday, 1);

  it('keeps today’s share under yesterday’s weekday, in thousandths', () => {
    expect(day30SharesAfter(undefined, asOfAfter(SATURDAY), 1.5432)).toEqual([
      0, 0, 0, 0, 0, 0, 1.543,
    ]);
  });

  it('keeps what it had when today’s list shows nothing', () => {
    const shares = [1, 1, 1, 1, 1, 1, 1.5];
    expect(day30SharesAfter(shares, asOfAfter('2026-03-09'), undefined)).toEqual(shares);
  });

  it('starts afresh from a remembered list of the wrong length', () => {
    expect(day30SharesAfter([1.2], asOfAfter(SATURDAY), undefined)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('a Monday’s day 30 back is a Saturday: the inverse of what the Saturday read', () => {
    const shares = day30SharesAfter(undefined, asOfAfter(SATURDAY), 1.6);
    // Yesterday Monday 2026-04-06: day 30 back is Saturday 2026-03-07.
    expect(rememberedDay30Share(shares, '2026-04-07')).toBeCloseTo(0.625, 6);
  });

  it('nothing when that weekday was never read, or did not read quieter', () => {
    expect(rememberedDay30Share(undefined, '2026-04-07')).toBeUndefined();
    expect(rememberedDay30Share([0, 0, 0, 0, 0, 0, 0], '2026-04-07')).toBeUndefined();
    expect(rememberedDay30Share([1, 1, 1, 1, 1, 1, 1], '2026-04-07')).toBeUndefined();
  });
});
