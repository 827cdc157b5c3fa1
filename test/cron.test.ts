import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  cronExpressionProblem,
  cronFireTime,
  cronParser,
  longestCronGapMs,
  plainCronFields,
} from '../src/cron.js';

/** Deterministic pseudo-random numbers (a linear congruential generator). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** What cron-parser itself answers; 'throws' when it throws. */
function parserFireTime(
  expression: string,
  timeZone: string,
  from: number,
  direction: 'next' | 'prev',
): number | 'throws' {
  try {
    const parsed = cronParser().parseExpression(expression, {
      tz: timeZone,
      currentDate: new Date(from),
    });
    return (direction === 'next' ? parsed.next() : parsed.prev()).getTime();
  } catch {
    return 'throws';
  }
}

function ours(expression: string, timeZone: string, from: number, direction: 'next' | 'prev') {
  try {
    return cronFireTime(expression, timeZone, from, direction);
  } catch {
    return 'throws';
  }
}

/** Random cron expressions: every form of a field cron-parser reads, and some it refuses. */
function expressions(count: number, seed: number): string[] {
  const r = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
  const int = (min: number, max: number) => min + Math.floor(r() * (max - min + 1));
  const field = (min: number, max: number, names: readonly string[] = []): string => {
    const a = int(min, max);
    const b = int(a, max);
    switch (int(0, 9)) {
      case 0:
      case 1:
        return '*';
      case 2:
        return `*/${int(1, Math.max(1, Math.floor((max - min) / 2)))}`;
      case 3:
        return String(a);
      case 4:
        return `${a}-${b}`;
      case 5:
        return `${a}-${b}/${int(1, 5)}`;
      case 6:
        return [...new Set([a, b, int(min, max)])].join(',');
      case 7:
        return names.length > 0 ? pick(names) : String(b);
      case 8:
        return `${a}/${int(1, 10)}`;
      default:
        return String(b);
    }
  };
  const days = ['SUN', 'MON', 'tue', 'MON-FRI', 'SAT,SUN', '?', '7', '0-7', '1-7'];
  const months = ['JAN', 'feb', 'MAR-MAY', 'DEC', 'FEB,AUG'];
  return Array.from({ length: count }, () => {
    const parts = [
      field(0, 59),
      field(0, 23),
      pick(['*', '*', '?', field(1, 31), String(int(28, 31)), `${int(1, 28)}-31`]),
      pick(['*', '*', '*', field(1, 12, months)]),
      field(0, 7, days),
    ];
    // Now and then a seconds field, a last day (L), an nth weekday (#), or nonsense.
    switch (int(0, 11)) {
      case 0:
        return [field(0, 59), ...parts].join(' ');
      case 1:
        return [...parts.slice(0, 2), 'L', ...parts.slice(3)].join(' ');
      case 2:
        return [...parts.slice(0, 4), `${int(0, 6)}#${int(1, 5)}`].join(' ');
      case 3:
        return [...parts.slice(0, 4), `${int(0, 6)}L`].join(' ');
      default:
        return parts.join(' ');
    }
  });
}

/** Instants to ask from: random ones over 2024 - 2030, and edges (midnights, month ends, leap days, a second's edges). */
function instants(count: number, seed: number): number[] {
  const r = random(seed);
  const edges = [
    Date.UTC(2026, 10, 24, 7, 0, 0),
    Date.UTC(2026, 10, 24, 7, 0, 0, 1),
    Date.UTC(2026, 10, 24, 6, 59, 59, 999),
    Date.UTC(2026, 11, 31, 23, 59, 59, 500),
    Date.UTC(2027, 0, 1, 0, 0, 0),
    Date.UTC(2028, 1, 29, 12, 0, 0),
    Date.UTC(2028, 2, 1, 0, 0, 0),
    Date.UTC(2027, 1, 28, 23, 59, 59),
  ];
  const start = Date.UTC(2024, 0, 1);
  const span = Date.UTC(2030, 0, 1) - start;
  return [...edges, ...Array.from({ length: count }, () => start + Math.floor(r() * span))];
}

/** An expression whose next fire in UTC is cron-parser's own (a last day, an nth weekday). */
function leftToParser(expression: string): boolean {
  return /[L#]/.test(expression);
}

/**
 * The comparisons with cron-parser ask both for thousands of answers, most of the time in
 * cron-parser's own search (a few seconds each on an idle 2-core machine, several times that
 * beside a loaded suite): CPU work, given the room it needs rather than vitest's 30 s for a test.
 */
const COMPARISON_TEST_MS = 180_000;

describe('cronFireTime', () => {
  afterEach(() => vi.restoreAllMocks());

  it(
    'answers what cron-parser answers, next and previous, for every kind of expression in UTC',
    () => {
      const times = instants(4, 7);
      let compared = 0;
      for (const expression of expressions(150, 11).filter((e) => !leftToParser(e))) {
        if (parserFireTime(expression, 'UTC', times[0]!, 'next') === 'throws') {
          // Refused by cron-parser (an impossible day, say): refused here too.
          expect(ours(expression, 'UTC', times[0]!, 'next'), expression).toBe('throws');
          continue;
        }
        for (const from of times) {
          for (const direction of ['next', 'prev'] as const) {
            const expected = parserFireTime(expression, 'UTC', from, direction);
            expect(
              ours(expression, 'UTC', from, direction),
              `${direction} ${expression} from ${new Date(from).toISOString()}`,
            ).toBe(expected);
            compared++;
          }
        }
      }
      expect(compared).toBeGreaterThan(1500);
    },
    COMPARISON_TEST_MS,
  );

  it(
    "with L or # in UTC: the previous fire from next() steps is prev()'s",
    () => {
      // Their next fire is cron-parser's own next(); the previous one is found by stepping
      // next() from a little earlier, which is what this compares. cron-parser's search for
      // these is slow (up to a second an answer), so three instants: the first of a month after
      // a leap day, a second before a month's end, and one at random.
      const times = instants(1, 5).slice(-3);
      const delegated = expressions(150, 11).filter(leftToParser);
      let compared = 0;
      for (const expression of delegated) {
        if (parserFireTime(expression, 'UTC', times[0]!, 'next') === 'throws') continue;
        for (const from of times) {
          expect(
            ours(expression, 'UTC', from, 'prev'),
            `prev ${expression} from ${new Date(from).toISOString()}`,
          ).toBe(parserFireTime(expression, 'UTC', from, 'prev'));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(60);
    },
    COMPARISON_TEST_MS,
  );

  it('a daily cron: the fire strictly before or after the instant, to the millisecond', () => {
    const at7 = Date.UTC(2026, 10, 24, 7);
    expect(cronFireTime('0 7 * * *', 'UTC', at7 + 3 * 3_600_000, 'prev')).toBe(at7);
    expect(cronFireTime('0 7 * * *', 'UTC', at7 + 1, 'prev')).toBe(at7);
    expect(cronFireTime('0 7 * * *', 'UTC', at7, 'prev')).toBe(at7 - 86_400_000);
    expect(cronFireTime('0 7 * * *', 'UTC', at7 - 1, 'next')).toBe(at7);
    expect(cronFireTime('0 7 * * *', 'UTC', at7, 'next')).toBe(at7 + 86_400_000);
    // Weekdays only: from a Saturday (2026-11-28) back to Friday, on to Monday.
    const saturday = Date.UTC(2026, 10, 28, 12);
    expect(cronFireTime('0 7 * * 1-5', 'Etc/UTC', saturday, 'prev')).toBe(
      Date.UTC(2026, 10, 27, 7),
    );
    expect(cronFireTime('0 7 * * 1-5', 'Etc/UTC', saturday, 'next')).toBe(
      Date.UTC(2026, 10, 30, 7),
    );
  });

  it('in UTC finds the fire itself; other zones, L and # are left to cron-parser', () => {
    const from = Date.UTC(2026, 10, 24, 10, 30);
    const left = [
      ['0 7 * * *', 'Europe/Berlin'],
      ['0 7 L * *', 'UTC'],
      ['0 7 * * 1#2', 'UTC'],
    ] as const;
    const expected = left.map(([expression, zone]) =>
      parserFireTime(expression, zone, from, 'prev'),
    );
    const prototype = Object.getPrototypeOf(cronParser().parseExpression('* * * * *')) as {
      prev: () => unknown;
      next: () => unknown;
    };
    const prev = vi.spyOn(prototype, 'prev');
    const next = vi.spyOn(prototype, 'next');
    cronFireTime('0 7 * * *', 'UTC', from, 'prev');
    cronFireTime('*/15 6-18 1,15 * MON-FRI', 'UTC', from, 'next');
    expect(prev).not.toHaveBeenCalled();
    expect(next).not.toHaveBeenCalled();
    expect(left.map(([expression, zone]) => cronFireTime(expression, zone, from, 'prev'))).toEqual(
      expected,
    );
    // The previous fire of those from cron-parser's next(), a step or two from a little earlier.
    expect(prev).not.toHaveBeenCalled();
    expect(next.mock.calls.length).toBeLessThanOrEqual(3 * 8);
  });

  it(
    'in other zones gives the fire the scheduler ran last: what prev() answers, but in a repeated hour',
    () => {
      const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kathmandu'];
      // The hours a clock goes back, as UTC: fires named in the second pass of it are never run.
      const repeated = [
        ['Europe/Berlin', Date.UTC(2026, 9, 25, 1)],
        ['America/New_York', Date.UTC(2026, 10, 1, 6)],
        ['Australia/Sydney', Date.UTC(2026, 3, 4, 16)],
      ] as const;
      const dstEdges = [
        Date.UTC(2026, 2, 29, 0, 30), // Berlin's spring change is at 01:00 UTC
        Date.UTC(2026, 2, 29, 1, 30),
        Date.UTC(2026, 9, 25, 1, 30), // and its autumn one
        Date.UTC(2026, 2, 8, 7, 30), // New York's spring change is at 07:00 UTC
        Date.UTC(2026, 10, 1, 6, 30), // and its autumn one
        Date.UTC(2026, 3, 4, 16, 30), // Sydney's autumn change is at 16:00 UTC
      ];
      // A year's end, a leap day and two instants at random beside the changes.
      const times = [...instants(2, 3).filter((_, i) => i === 3 || i === 5 || i >= 8), ...dstEdges];
      // Schedules a config names, and ones that fire inside the hours that change (01:00-03:59).
      const schedules = [
        '0 7 * * *',
        '30 2 * * *',
        '0 2 * * 1-5',
        '15 * * * *',
        '*/20 1-3 * * *',
        '0 6 * * SUN',
        '0 0 1 * *',
        '0 8 L * *',
      ];
      /** The last fire before `from` of the scheduler's steps: next() from two days earlier. */
      const scheduled = (expression: string, zone: string, from: number): number => {
        const fires = cronParser().parseExpression(expression, {
          tz: zone,
          currentDate: new Date(from - 2 * 86_400_000),
        });
        let last = Number.NaN;
        for (let fire = fires.next().getTime(); fire < from; fire = fires.next().getTime()) {
          last = fire;
        }
        return last;
      };
      let differs = 0;
      for (const expression of schedules) {
        for (const zone of zones) {
          for (const from of times) {
            const what = `prev ${expression} in ${zone} from ${new Date(from).toISOString()}`;
            const found = ours(expression, zone, from, 'prev');
            const inRepeatedHour = repeated.some(
              ([z, start]) => z === zone && from >= start && from < start + 3_600_000,
            );
            const expected = parserFireTime(expression, zone, from, 'prev');
            if (!inRepeatedHour || found === expected) {
              expect(found, what).toBe(expected);
              continue;
            }
            // In the hour a clock goes back, prev() names a fire of its second pass, which the
            // scheduler's next() never gives: the overdue check would wait for a run never due.
            if (!Number.isNaN(scheduled(expression, zone, from))) {
              expect(found, what).toBe(scheduled(expression, zone, from));
            }
            differs++;
          }
        }
      }
      expect(differs).toBe(3);
    },
    COMPARISON_TEST_MS,
  );

  it('a cron that never fires (the 31st of 30-day months) throws as cron-parser does', () => {
    const from = Date.UTC(2026, 10, 24);
    expect(parserFireTime('0 0 31 4,6 *', 'UTC', from, 'next')).toBe('throws');
    expect(() => cronFireTime('0 0 31 4,6 *', 'UTC', from, 'next')).toThrow();
  });
});

describe('plainCronFields: plain expressions read without cron-parser', () => {
  /** cron-parser's values of an expression, or 'throws'. */
  const parsersFields = (expression: string) => {
    try {
      const fields = cronParser().parseExpression(expression).fields;
      return Object.fromEntries(
        Object.entries(fields).map(([name, values]) => [name, [...values]]),
      );
    } catch {
      return 'throws';
    }
  };

  it("gives cron-parser's values for every expression it reads, and leaves the rest to it", () => {
    const r = random(5);
    const int = (min: number, max: number) => min + Math.floor(r() * (max - min + 1));
    /** The plain forms and their near misses, in and out of range. */
    const field = (min: number, max: number): string => {
      const a = int(min - 1, max + 1);
      const b = int(a - 2, max + 1);
      const items = [
        '*',
        `*/${int(0, max + 2)}`,
        String(a),
        `${a}-${b}`,
        `${a}-${b}/${int(0, 8)}`,
        `${a}/${int(1, 9)}`,
        `0${int(0, 9)}`,
      ];
      const item = () => items[int(0, items.length - 1)]!;
      return int(0, 3) === 0 ? `${item()},${item()}` : item();
    };
    let read = 0;
    let left = 0;
    for (let i = 0; i < 12_000; i++) {
      const five = [
        field(0, 59),
        field(0, 23),
        field(1, 31),
        int(0, 4) === 0 ? field(1, 12) : '*',
        int(0, 5) === 0 ? ['7', '0-7', '5-7', '*/7', 'MON', '?'][int(0, 5)]! : field(0, 7),
      ];
      const expression = (int(0, 3) === 0 ? [field(0, 59), ...five] : five).join(
        int(0, 9) === 0 ? '  ' : ' ',
      );
      const ours = plainCronFields(expression);
      if (ours === undefined) {
        left++;
        continue;
      }
      read++;
      expect(ours, expression).toEqual(parsersFields(expression));
      expect(cronExpressionProblem(expression), expression).toBeUndefined();
    }
    // Both ways taken often: the comparison is not empty, and the near misses are left.
    expect(read).toBeGreaterThan(1_000);
    expect(left).toBeGreaterThan(1_000);
  });

  it('reads the config defaults and common schedules; leaves names, aliases and 7 for Sunday', () => {
    for (const plain of ['0 7 * * *', '0 8 * * *', '*/15 * * * *', '30 6 * * 1-5', '0 0 */2 * * *'])
      expect(plainCronFields(plain), plain).toEqual(parsersFields(plain));
    for (const other of ['0 7 * * MON', '@daily', '0 7 * * 7', '0 7 L * *', '0 7 * 1 *', '0 7 * *'])
      expect(plainCronFields(other), other).toBeUndefined();
  });

  it("cronExpressionProblem: cron-parser's message for what it refuses", () => {
    expect(cronExpressionProblem('0 24 * * *')).toMatch(/expected range 0-23/);
    expect(cronExpressionProblem('5-3 * * * *')).toMatch(/Invalid range/);
    expect(cronExpressionProblem('0 7 31 2 *')).toMatch(/Invalid explicit day of month/);
    expect(cronExpressionProblem('0 7 * * MON')).toBeUndefined();
  });
});

describe('longestCronGapMs: how long a schedule may go between two runs', () => {
  const HOUR = 3_600_000;
  const from = Date.parse('2026-10-20T12:00:00Z');
  it.each([
    ['0 7 * * *', 'UTC', 24 * HOUR],
    ['*/15 * * * *', 'UTC', HOUR / 4],
    // Friday to Monday.
    ['0 7 * * 1-5', 'UTC', 72 * HOUR],
    // The night clocks go back (Sunday 2026-10-25 in Berlin) has 25 hours.
    ['0 7 * * *', 'Europe/Berlin', 25 * HOUR],
    ['0 8 1 * *', 'UTC', 31 * 24 * HOUR],
  ])('%s in %s', (cron, zone, expected) => {
    expect(longestCronGapMs(cron, zone, from)).toBe(expected);
  });
});
