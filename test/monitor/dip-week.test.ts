import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { judgedUpToDip, withWeekShare } from '../../src/monitor/dip-week.js';
import { entry } from './fixtures.js';

describe('judgedUpToDip', () => {
  const asOf = '2026-03-17';

  it('an ISP told before, since day 7 back or before day 14 back', () => {
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -1) }, asOf)).toBe(true);
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -6) }, asOf)).toBe(true);
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -14) }, asOf)).toBe(true);
  });

  it('not one first seen 7 to 13 runs ago (day 7 back inside its own drop), nor a new one', () => {
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -7) }, asOf)).toBe(false);
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -13) }, asOf)).toBe(false);
    expect(judgedUpToDip(undefined, asOf)).toBe(false);
  });

  it('day 14 back: not one first seen 14 to 20 runs ago (day 14 back inside its own drop)', () => {
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -1) }, asOf, 14)).toBe(true);
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -10) }, asOf, 14)).toBe(true);
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -14) }, asOf, 14)).toBe(false);
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -20) }, asOf, 14)).toBe(false);
    expect(judgedUpToDip({ firstSeen: addDays(asOf, -21) }, asOf, 14)).toBe(true);
    expect(judgedUpToDip(undefined, asOf, 14)).toBe(false);
  });
});

describe('withWeekShare', () => {
  it('reads the 7-day trend against the share of day 7 back; the counts stay', () => {
    const listed = entry(1, 'ISP', { yesterday: 60, baseline: 70 });
    const judged = withWeekShare(listed, 1 / 0.7);
    expect(judged.yesterday_seven_days_ago_total_clicks_trend).toBeCloseTo(-40);
    expect(judged.seven_days_ago_total_clicks).toBe(70);
    expect(judged.yesterday_total_clicks).toBe(60);
    expect(listed.yesterday_seven_days_ago_total_clicks_trend).toBeCloseTo(-14.29);
  });

  it('no trend when day 7 back had no clicks', () => {
    const listed = entry(1, 'ISP', { yesterday: 5, baseline: 0 });
    expect(withWeekShare(listed, 2).yesterday_seven_days_ago_total_clicks_trend).toBeNull();
  });
});
