import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import {
  classifyDrops,
  DROP_HOLD_DAYS,
  todayOfRun,
  type DropsInput,
} from '../../src/monitor/common-drops.js';
import type { CommonMove, CommonMoves } from '../../src/monitor/common-move.js';
import {
  DOMAIN_RUN_MAX_DAYS,
  domainRunsAfter,
  isLastingDrop,
  runSignificance,
} from '../../src/monitor/domain-runs.js';
import type { ActiveDrop, DomainRun, Variation } from '../../src/monitor/types.js';
import { learnedStateSchema } from '../../src/store/records.js';
import { SETTINGS } from './fixtures.js';

const DAY = '2026-03-02';
const settings = { ...SETTINGS, minDropPercent: 10, minSignificance: 3.5 };
/** A network whose domains' ISPs share 12% of variation from day to day. */
const variation: Variation = { extra: 0.03, common: 0.0144, network: 0.0025, days: 30 };

/** A domain moved whole, down `log` (log scale) against both weeks, its median's se 0.07. */
function moved(log: number, partial = false): CommonMove {
  return {
    listed: 25,
    known: 30,
    log7: log,
    log14: log,
    se: 0.07,
    ...(partial ? { partial } : {}),
  };
}

function movesOf(domain2?: CommonMove, extra: Partial<CommonMoves> = {}): CommonMoves {
  const domains = new Map<number, CommonMove>();
  if (domain2 !== undefined) domains.set(2, domain2);
  return { domains, listings: new Map(), ...extra };
}

/** The runs after each day's moves, in order from DAY. */
function runsOver(days: CommonMoves[]): Array<DomainRun | undefined> {
  let runs: DomainRun[] = [];
  return days.map((moves, i) => {
    runs = domainRunsAfter(runs, moves, variation, addDays(DAY, i));
    return runs.find((r) => r.domainId === 2);
  });
}

describe('a domain run: the consecutive days a domain moved whole', () => {
  it('sums the moves and their variance over the days the domain moved', () => {
    const [day1, day2] = runsOver([movesOf(moved(-0.5)), movesOf(moved(-0.4))]);
    expect(day1).toMatchObject({ first: DAY, last: DAY, days: 1 });
    expect(day2).toMatchObject({ first: DAY, last: addDays(DAY, 1), days: 2 });
    expect(day2!.log7).toBeCloseTo(-0.9, 10);
    // Each day: both days of the comparison carry the shared part, and the median its se.
    expect(day2!.variance).toBeCloseTo(2 * (2 * 0.0144 + 0.0049), 10);
  });

  it('a day the domain did not move ends it; a day the list hides it neither counts nor ends', () => {
    const hidden = movesOf(undefined, { day30Quieter: true });
    const inPart = movesOf(moved(-0.7, true));
    const runs = runsOver([movesOf(moved(-0.5)), hidden, inPart, movesOf(moved(-0.5)), movesOf()]);
    expect(runs.map((r) => r?.days)).toEqual([1, 1, 1, 2, undefined]);
  });

  it('a day the network moved counts what the domain moved beyond it', () => {
    const network = { ...moved(-0.3), se: 0.05, domainsMoved: 3, domainsKnown: 3 };
    const runs = runsOver([movesOf(moved(-0.5)), movesOf(moved(-0.6), { network })]);
    expect(runs.map((r) => r?.days)).toEqual([1, 2]);
    expect(runs[1]!.log7).toBeCloseTo(-0.5 - 0.3, 10);
    // That day: the domain's own part of the variation on both days, and both medians' se.
    const domainPart = 0.0144 - 0.0025;
    expect(runs[1]!.variance - runs[0]!.variance).toBeCloseTo(2 * domainPart + 0.0025 + 0.0049, 10);
    // A holiday, the domain as low as the network: a day of no move of its own.
    const holiday = runsOver([movesOf(moved(-0.5)), movesOf(moved(-0.3), { network })]);
    expect(holiday[1]!.log7).toBeCloseTo(-0.5, 10);
  });

  it('a day the network moved behind a quieter day 30 back neither counts nor ends it', () => {
    // The network's move, read from domains the list shows in part, reads shallow: a domain seen
    // whole is beyond it on a holiday.
    const network = { ...moved(-0.1), domainsMoved: 3, domainsKnown: 3 };
    const hidden = movesOf(moved(-0.5), { network, day30Quieter: true });
    const runs = runsOver([movesOf(moved(-0.5)), hidden]);
    expect(runs.map((r) => r?.days)).toEqual([1, 1]);
  });

  it('a missed day of the monitor, or a run of DOMAIN_RUN_MAX_DAYS, starts anew', () => {
    const first = domainRunsAfter([], movesOf(moved(-0.5)), variation, DAY);
    const afterGap = domainRunsAfter(first, movesOf(moved(-0.5)), variation, addDays(DAY, 2));
    expect(afterGap[0]).toMatchObject({ first: addDays(DAY, 2), days: 1 });
    const long = Array.from({ length: DOMAIN_RUN_MAX_DAYS + 1 }, () => movesOf(moved(-0.5)));
    expect(runsOver(long).map((r) => r?.days)).toEqual([1, 2, 3, 4, 5, 6, 7, 1]);
  });

  it('a forced re-run of the same as-of date keeps the run as it was', () => {
    const once = domainRunsAfter([], movesOf(moved(-0.5)), variation, DAY);
    expect(domainRunsAfter(once, movesOf(moved(-0.5)), variation, DAY)).toEqual(once);
  });
});

describe('isLastingDrop: a domain that dropped and stays down', () => {
  it('a 40% drop is no headline on one day, but two days of it together are', () => {
    const [day1, day2] = runsOver([movesOf(moved(Math.log(0.6))), movesOf(moved(Math.log(0.6)))]);
    // One day: 0.51 / sqrt(2 x 0.0144 + 0.0049) = z 2.8; two: z 3.9.
    expect(runSignificance(day1!)).toBeCloseTo(2.78, 1);
    expect(isLastingDrop(day1, moved(Math.log(0.6)), DAY, settings)).toBe(false);
    expect(runSignificance(day2!)).toBeCloseTo(3.93, 1);
    expect(isLastingDrop(day2, moved(Math.log(0.6)), addDays(DAY, 1), settings)).toBe(true);
  });

  it('not when today is not down minDropPercent: a drop that passed is not told', () => {
    const run: DomainRun = {
      domainId: 2,
      first: DAY,
      last: addDays(DAY, 2),
      days: 3,
      log7: -1.2,
      log14: -1.2,
      variance: 3 * 0.0337,
    };
    expect(isLastingDrop(run, moved(-0.5), addDays(DAY, 2), settings)).toBe(true);
    expect(isLastingDrop(run, moved(-0.05), addDays(DAY, 2), settings)).toBe(false);
    // Not counted today (the run's last day is another): today's move is not in it.
    expect(isLastingDrop(run, moved(-0.5), addDays(DAY, 3), settings)).toBe(false);
  });

  it('not when a card of one of its ISPs, told before, told it in part', () => {
    // An ISP told on its own on a day the list hid most of the domain, then explained by the
    // domain's move on a day counted: the domain is not told again as news.
    let runs: DomainRun[] = [];
    const move = moved(Math.log(0.6));
    runs = domainRunsAfter(runs, movesOf(move), variation, DAY, new Set([2]));
    runs = domainRunsAfter(runs, movesOf(move), variation, addDays(DAY, 1));
    expect(runs[0]).toMatchObject({ days: 2, toldByCard: true });
    expect(isLastingDrop(runs[0], move, addDays(DAY, 1), settings)).toBe(false);
  });

  it('two bad days of a domain within its variation are not', () => {
    const [, day2] = runsOver([movesOf(moved(-0.2)), movesOf(moved(-0.25))]);
    expect(runSignificance(day2!)).toBeLessThan(2);
    expect(isLastingDrop(day2, moved(-0.25), addDays(DAY, 1), settings)).toBe(false);
  });
});

describe('classifyDrops: a lasting drop is told once, as news', () => {
  /** Domain 2's drop, told on the day it was first seen, as deep on both weeks. */
  const toldDrop = (
    fields: Pick<ActiveDrop, 'firstSeen' | 'lastSeen' | 'dropPercent' | 'notifiedDropPercent'> &
      Partial<ActiveDrop>,
  ): ActiveDrop => ({
    scope: 'domain',
    domainId: 2,
    domainUrl: 'two.example',
    lastNotified: fields.firstSeen,
    dropPercent14: fields.dropPercent,
    quietRuns: 0,
    ...fields,
  });
  const input = (day: number, moves: CommonMoves, active: ActiveDrop[], runs: DomainRun[]) => {
    const dropsInput: DropsInput = {
      asOf: addDays(DAY, day),
      moves,
      variation,
      settings,
      active,
      isSilenced: () => false,
      domains: new Map([[2, { url: 'two.example', clicksLost: 4000, baselineClicks: 10000 }]]),
      domainRuns: runs,
    };
    return dropsInput;
  };

  it('remembered on its first day, told new on its second, ongoing on its third', () => {
    const move = moved(Math.log(0.6));
    let active: ActiveDrop[] = [];
    let runs: DomainRun[] = [];
    const classes: string[][] = [];
    for (const day of [0, 1, 2]) {
      const moves = movesOf(move);
      runs = domainRunsAfter(runs, moves, variation, addDays(DAY, day));
      const result = classifyDrops(input(day, moves, active, runs));
      classes.push(result.drops.map((d) => d.class));
      active = result.active;
    }
    expect(classes).toEqual([[], ['new'], ['ongoing']]);
    expect(active[0]).toMatchObject({ firstSeen: DAY, lastNotified: addDays(DAY, 1) });
  });

  it('behind a quieter day 30 back, still down by the deeper of its move and its listed ISPs', () => {
    // Two days of a domain 45% down, then a Monday: 15 of its 23 known ISPs listed at 40% down,
    // the 8 the list hides counted as above, so its move reads 7%. Its run is certain (z 4.0).
    const hidden: CommonMove = { ...moved(Math.log(0.93)), listed: 15, known: 23 };
    const listing = {
      listed: 15,
      known: 23,
      listedLog7: Math.log(0.6),
      listedLog14: Math.log(0.6),
      points: [],
    };
    const days = [movesOf(moved(-0.6)), movesOf(moved(-0.6))];
    const tell = (day30Quieter: boolean) => {
      let runs: DomainRun[] = [];
      days.forEach((moves, day) => {
        runs = domainRunsAfter(runs, moves, variation, addDays(DAY, day));
      });
      const moves = movesOf(hidden, { listings: new Map([[2, listing]]), day30Quieter });
      runs = domainRunsAfter(runs, moves, variation, addDays(DAY, 2));
      expect(runSignificance(runs[0]!)).toBeGreaterThan(3.5);
      return classifyDrops(input(2, moves, [], runs)).drops.map((d) => d.class);
    };
    expect(tell(true)).toEqual(['new']);
    // On another day the list shows it whole: 7% down is a drop that passed.
    expect(tell(false)).toEqual([]);
  });

  it('todayOfRun: the move, or on a quieter day 30 back its listed ISPs when deeper', () => {
    const listing = {
      listed: 15,
      known: 23,
      listedLog7: -0.5,
      listedLog14: -0.1,
      points: [],
    };
    const move = moved(-0.15);
    const quieter = movesOf(move, { day30Quieter: true });
    expect(todayOfRun(move, listing, quieter)).toEqual({ log7: -0.5, log14: -0.15 });
    expect(todayOfRun(move, listing, movesOf(move))).toBe(move);
    expect(todayOfRun(move, undefined, quieter)).toBe(move);
  });

  it('an outage told and not seen for more than DROP_HOLD_DAYS is over: a drop now is news', () => {
    // The domain's outage, told 9 days before and last seen the day after; its campaign ends.
    const outage = toldDrop({
      firstSeen: addDays(DAY, -(DROP_HOLD_DAYS + 2)),
      lastSeen: addDays(DAY, -(DROP_HOLD_DAYS + 1)),
      dropPercent: 97,
      notifiedDropPercent: 97,
      quietRuns: 1,
      quietAsOf: addDays(DAY, -1),
    });
    const move = moved(Math.log(0.6));
    let active: ActiveDrop[] = [outage];
    let runs: DomainRun[] = [];
    const classes: string[][] = [];
    for (const day of [0, 1]) {
      const moves = movesOf(move);
      runs = domainRunsAfter(runs, moves, variation, addDays(DAY, day));
      const result = classifyDrops(input(day, moves, active, runs));
      classes.push(result.drops.map((d) => d.class));
      active = result.active;
    }
    // Not the outage going on (ongoing): it ends quietly, and the campaign's end is news.
    expect(classes).toEqual([[], ['new']]);
    expect(active).toMatchObject([{ lastNotified: addDays(DAY, 1), notifiedDropPercent: 40 }]);
  });

  it('a run that began more than DROP_HOLD_DAYS after a drop told was first seen is news', () => {
    // An outage told 9 days before, kept going 4 days before by a bad day of 13%.
    const outage = toldDrop({
      firstSeen: addDays(DAY, -9),
      lastSeen: addDays(DAY, -4),
      dropPercent: 13,
      notifiedDropPercent: 97,
    });
    const moves = movesOf(moved(Math.log(0.6)));
    let runs = domainRunsAfter([], moves, variation, DAY);
    const first = classifyDrops(input(0, moves, [outage], runs));
    expect(first.drops.map((d) => d.class)).toEqual(['ongoing']);
    runs = domainRunsAfter(runs, moves, variation, addDays(DAY, 1));
    const second = classifyDrops(input(1, moves, first.active, runs));
    expect(second.drops.map((d) => d.class)).toEqual(['new']);
    expect(second.active).toMatchObject([{ firstSeen: addDays(DAY, 1), notifiedDropPercent: 40 }]);
  });

  it('a drop told and seen within DROP_HOLD_DAYS goes on: the lasting drop is not told again', () => {
    const told = toldDrop({
      firstSeen: addDays(DAY, -3),
      lastSeen: addDays(DAY, -3),
      dropPercent: 45,
      notifiedDropPercent: 45,
    });
    const moves = movesOf(moved(Math.log(0.6)));
    let runs = domainRunsAfter([], moves, variation, DAY);
    let result = classifyDrops(input(0, moves, [told], runs));
    runs = domainRunsAfter(runs, moves, variation, addDays(DAY, 1));
    result = classifyDrops(input(1, moves, result.active, runs));
    expect(result.drops.map((d) => d.class)).toEqual(['ongoing']);
  });
});

describe('a domain run as the store keeps it', () => {
  it('is read back as it was written (learnedStateSchema)', () => {
    const runs = domainRunsAfter([], movesOf(moved(-0.5)), variation, DAY, new Set([2]));
    const state = { known: [], drops: [], domainRuns: runs };
    expect(learnedStateSchema.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });
});
