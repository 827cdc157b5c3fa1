import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import {
  levelShiftsAfter,
  SHIFT_MEMORY_DAYS,
  straddledDomains,
} from '../../src/monitor/level-shifts.js';
import type { ActiveDrop } from '../../src/monitor/types.js';
import { toldDomainDrop } from './fixtures.js';

const DAY = '2026-03-10';

function drop(domainId: number, overrides: Partial<ActiveDrop> = {}): ActiveDrop {
  return toldDomainDrop(DAY, 40, {
    domainId,
    domainUrl: `https://d${domainId}.example`,
    ...overrides,
  });
}

describe('levelShiftsAfter', () => {
  it("remembers a domain's drop by its first day, not the network's", () => {
    const network = drop(0, { scope: 'network' });
    expect(levelShiftsAfter(undefined, [drop(7), network], DAY)).toEqual([
      { domainId: 7, firstSeen: DAY },
    ]);
  });

  it('keeps it after the drop ends, for SHIFT_MEMORY_DAYS after it was first seen', () => {
    const after = levelShiftsAfter(undefined, [drop(7)], DAY);
    expect(levelShiftsAfter(after, [], addDays(DAY, SHIFT_MEMORY_DAYS))).toEqual(after);
    expect(levelShiftsAfter(after, [], addDays(DAY, SHIFT_MEMORY_DAYS + 1))).toEqual([]);
  });

  it('one per domain and first day, however many runs see it', () => {
    const once = levelShiftsAfter(undefined, [drop(7)], DAY);
    expect(
      levelShiftsAfter(once, [drop(7, { lastSeen: addDays(DAY, 1) })], addDays(DAY, 1)),
    ).toEqual(once);
  });
});

describe('straddledDomains', () => {
  const shifts = [{ domainId: 7, firstSeen: DAY }];

  it('a week on, day 7 back is after the step and day 14 back before it', () => {
    for (const days of [6, 7, 10, 13]) {
      expect(straddledDomains(shifts, addDays(DAY, days))).toEqual(new Set([7]));
    }
  });

  it('not while both comparison days are before the step, nor once both are after it', () => {
    for (const days of [0, 1, 5, 14, 20]) {
      expect(straddledDomains(shifts, addDays(DAY, days))).toEqual(new Set());
    }
    expect(straddledDomains(undefined, DAY)).toEqual(new Set());
  });
});
