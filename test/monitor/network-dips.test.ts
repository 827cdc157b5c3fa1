import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import {
  DIP_MEMORY_DAYS,
  networkDipsAfter,
  networkKeptDaysBack,
} from '../../src/monitor/network-dips.js';

const DAY = '2026-03-10';

describe('networkDipsAfter', () => {
  it('keeps the run that saw the network move down, and the share of day 7 back it kept', () => {
    const [dip] = networkDipsAfter(undefined, Math.log(0.7), false, DAY);
    expect(dip?.seen).toBe(DAY);
    expect(dip?.kept).toBeCloseTo(0.7);
    expect(dip?.told).toBeUndefined();
    expect(networkDipsAfter(undefined, Math.log(0.7), true, DAY)[0]?.told).toBe(true);
  });

  it('nothing when the network did not move together, or moved up', () => {
    expect(networkDipsAfter(undefined, undefined, false, DAY)).toEqual([]);
    expect(networkDipsAfter(undefined, Math.log(1.2), false, DAY)).toEqual([]);
  });

  it('keeps a dip DIP_MEMORY_DAYS after the run that saw it, then forgets it', () => {
    const dip = { seen: DAY, kept: 0.7, told: true as const };
    const kept = addDays(DAY, DIP_MEMORY_DAYS);
    expect(networkDipsAfter([dip], undefined, false, kept)).toEqual([dip]);
    expect(networkDipsAfter([dip], undefined, false, addDays(kept, 1))).toEqual([]);
  });

  it('one per as-of date: a forced re-run replaces its own', () => {
    const dip = { seen: DAY, kept: 0.7 };
    expect(networkDipsAfter([dip], undefined, false, DAY)).toEqual([]);
    const [again] = networkDipsAfter([dip], Math.log(0.6), false, DAY);
    expect(again?.kept).toBeCloseTo(0.6);
  });
});

describe('networkKeptDaysBack', () => {
  const dips = [
    { seen: DAY, kept: 0.7, told: true as const },
    { seen: addDays(DAY, 3), kept: 0.8 },
  ];

  it('the share kept when the run 7 or 14 runs before today saw the dip', () => {
    expect(networkKeptDaysBack(dips, addDays(DAY, 7), 7)).toBe(0.7);
    expect(networkKeptDaysBack(dips, addDays(DAY, 14), 14)).toBe(0.7);
    expect(networkKeptDaysBack(dips, addDays(DAY, 17), 14)).toBe(0.8);
  });

  it('undefined on other days, with no memory, and for a dip not told when told only', () => {
    expect(networkKeptDaysBack(dips, addDays(DAY, 8), 7)).toBeUndefined();
    expect(networkKeptDaysBack(undefined, addDays(DAY, 7), 7)).toBeUndefined();
    expect(networkKeptDaysBack(dips, addDays(DAY, 7), 7, true)).toBe(0.7);
    expect(networkKeptDaysBack(dips, addDays(DAY, 10), 7, true)).toBeUndefined();
  });
});
