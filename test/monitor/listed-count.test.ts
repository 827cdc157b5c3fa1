import { describe, expect, it } from 'vitest';
import {
  countedDomainMove,
  countedMove,
  listingChance,
  type ComparisonDays,
  type CountedIsp,
  type CountedPoint,
} from '../../src/monitor/listed-count.js';
import type { Variation } from '../../src/monitor/types.js';

const ALIKE: ComparisonDays = { s7: 0, s30: 0 };
/** Day 30 back a weekend day at 70% of yesterday's weekday (behind a Monday). */
const WEEKEND_30: ComparisonDays = { s7: 0, s30: Math.log(0.7) };
/** Day 30 back a weekday at 1.5 times yesterday's weekend day (behind a Saturday). */
const WEEKDAY_30: ComparisonDays = { s7: 0, s30: Math.log(1.5) };
/** A pair's day varying 10% on its own at 1,000 clicks. */
const V = 0.01 + 1 / 1000;
const isps = (count: number, variance = V): CountedIsp[] => [{ variance, weight: count }];
/** 10% on the pair's own, 7% shared by its domain's ISPs, learned over 40 days. */
const MODERATE: Variation = { extra: 0.0165, common: 0.0065, network: 0.0016, days: 40 };

describe('listingChance', () => {
  it('is one in four when the four days are alike, whatever they vary by', () => {
    expect(listingChance(0, 0.01, ALIKE)).toBeCloseTo(0.25, 3);
    expect(listingChance(0, 0.2, ALIKE)).toBeCloseTo(0.25, 3);
  });

  it('is far under a quarter behind a quieter day 30 back, one in three behind a busier one', () => {
    expect(listingChance(0, V, WEEKEND_30)).toBeLessThan(0.01);
    expect(listingChance(0, V, WEEKDAY_30)).toBeCloseTo(1 / 3, 2);
  });

  it('grows as yesterday moves down', () => {
    const down = listingChance(-0.1, V, ALIKE);
    expect(down).toBeGreaterThan(0.5);
    expect(listingChance(-0.3, V, ALIKE)).toBeGreaterThan(down);
    expect(listingChance(0.1, V, ALIKE)).toBeLessThan(0.25);
  });
});

describe('countedMove', () => {
  it('reads no move when a quarter of alike days are listed', () => {
    const move = countedMove(isps(40), 10, ALIKE)!;
    expect(Math.abs(move.delta)).toBeLessThan(0.005);
    expect(move.expectedAtZero).toBeCloseTo(10, 1);
    expect(move.se).toBeGreaterThan(0.01);
    expect(move.se).toBeLessThan(0.05);
  });

  it('reads a move down when more are listed, and finds it again', () => {
    const expected = 30 * listingChance(-0.08, V, ALIKE);
    expect(countedMove(isps(30), expected, ALIKE)!.delta).toBeCloseTo(-0.08, 3);
  });

  it('keeps every estimate finite: none listed reads a move up, all listed a deep move down', () => {
    const none = countedMove(isps(30), 0, ALIKE)!;
    expect(none.delta).toBeGreaterThan(0.1);
    expect(Number.isFinite(none.se)).toBe(true);
    const all = countedMove(isps(30), 30, ALIKE)!;
    expect(all.delta).toBeLessThan(-0.2);
    expect(all.delta).toBeGreaterThan(-3);
    expect(Number.isFinite(all.se)).toBe(true);
  });

  it('with one known ISP, listed, reads a move with a wide standard error', () => {
    const one = countedMove(isps(1), 1, ALIKE)!;
    expect(one.delta).toBeLessThan(0);
    expect(one.se).toBeGreaterThan(Math.abs(one.delta) / 2);
  });

  it('is undefined when no ISP is known', () => {
    expect(countedMove([], 0, ALIKE)).toBeUndefined();
  });

  it('reads 3 of 30 behind a quieter day 30 back as a move down, not as one up', () => {
    // A quarter alike would read 3 of 30 as a move up; behind a weekend day 30 back hardly
    // any ISP is listed unmoved.
    expect(countedMove(isps(30), 3, ALIKE)!.delta).toBeGreaterThan(0);
    const behindWeekend = countedMove(isps(30), 3, WEEKEND_30)!;
    expect(behindWeekend.expectedAtZero).toBeLessThan(0.5);
    expect(behindWeekend.delta).toBeLessThan(-0.05);
  });

  it('reads 9 of 30 behind a busier day 30 back as no move down (a quarter would read one)', () => {
    expect(countedMove(isps(30), 9, ALIKE)!.delta).toBeLessThan(0);
    expect(countedMove(isps(30), 9, WEEKDAY_30)!.delta).toBeGreaterThan(0);
  });

  it('counts chance at small clicks: smaller ISPs are listed more often behind a quieter day', () => {
    const small = listingChance(0, 0.01 + 1 / 40, WEEKEND_30);
    expect(small).toBeGreaterThan(listingChance(0, V, WEEKEND_30) * 5);
  });
});

/** `count` listed ISPs of 500 clicks, their comparison days as `days` shows them. */
const points = (count: number, days: ComparisonDays, size = 500): CountedPoint[] =>
  Array.from({ length: count }, (_, i) => ({
    hash: i,
    size,
    log30: days.s30,
    half7: days.s7,
    active: false,
  }));

describe('countedDomainMove', () => {
  it('reads a domain with many more ISPs listed than its days would list unmoved', () => {
    const move = countedDomainMove(points(15, WEEKDAY_30), 30, MODERATE)!;
    expect(move.deepest).toBeLessThan(-0.03);
    // Each ISP is judged against what the others show: one fewer listed, a shallower move.
    const full = countedMove(isps(30, 0.01 + 1 / 500.5), 15, WEEKDAY_30)!;
    for (const delta of move.without.values()) expect(delta).toBeGreaterThan(full.delta);
  });

  it('reads nothing of an ordinary day (a quarter listed, the days alike)', () => {
    expect(countedDomainMove(points(8, ALIKE), 30, MODERATE)).toBeUndefined();
  });

  it('reads nothing when fewer than three listed ISPs of some size show the comparison days', () => {
    expect(countedDomainMove(points(2, WEEKEND_30), 30, MODERATE)).toBeUndefined();
    expect(countedDomainMove(points(10, ALIKE, 10), 30, MODERATE)).toBeUndefined();
  });

  it('leaves active ISPs out: they are listed for their own declines', () => {
    const listed = points(15, WEEKDAY_30).map((p, i) => ({ ...p, active: i < 10 }));
    expect(countedDomainMove(listed, 30, MODERATE)).toBeUndefined();
  });

  it('shrinks the move toward none, less where the shared variation is larger', () => {
    const listed = points(15, WEEKDAY_30);
    const moderate = countedDomainMove(listed, 30, MODERATE)!;
    const wider = countedDomainMove(listed, 30, { ...MODERATE, extra: 0.05, common: 0.04 })!;
    expect(wider.deepest).toBeLessThan(moderate.deepest);
  });
});
