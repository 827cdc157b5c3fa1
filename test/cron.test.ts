import { afterEach, describe, expect, it, vi } from 'vitest';
import cronParser, { cronFireTime } from '../src/cron.js';

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
    const parsed = cronParser.parseExpression(expression, {
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

describe('cronFireTime', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers what cron-parser answers, next and previous, for every kind of expression in UTC', () => {
    const times = instants(4, 7);
    let compared = 0;
    for (const expression of expressions(150, 11)) {
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
    expect(compared).toBeGreaterThan(2000);
  });

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
    const prototype = Object.getPrototypeOf(cronParser.parseExpression('* * * * *')) as {
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
    expect(prev).toHaveBeenCalledTimes(3);
  });

  it('a cron that never fires (the 31st of 30-day months) throws as cron-parser does', () => {
    const from = Date.UTC(2026, 10, 24);
    expect(parserFireTime('0 0 31 4,6 *', 'UTC', from, 'next')).toBe('throws');
    expect(() => cronFireTime('0 0 31 4,6 *', 'UTC', from, 'next')).toThrow();
  });
});
