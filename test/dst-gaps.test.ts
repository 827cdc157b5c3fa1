import { describe, expect, it } from 'vitest';
import { dstGapChecker } from '../src/dst-gaps.js';

describe('dstGapChecker', () => {
  const from = Date.parse('2026-11-22T00:00:00Z');
  const cronTimesInDstGap = dstGapChecker(from);
  it('finds a daily 02:30 in the spring-forward gap of Berlin and New York', () => {
    expect(cronTimesInDstGap('30 2 * * *', 'Europe/Berlin')).toEqual(['2027-03-28 02:30']);
    expect(cronTimesInDstGap('30 2 * * *', 'America/New_York')).toEqual(['2027-03-14 02:30']);
  });
  it('is quiet for times outside the gap, for zones without DST, and for other weekdays', () => {
    expect(cronTimesInDstGap('0 7 * * *', 'Europe/Berlin')).toEqual([]);
    expect(cronTimesInDstGap('30 2 * * *', 'UTC')).toEqual([]);
    expect(cronTimesInDstGap('30 2 * * 1', 'Europe/Berlin')).toEqual([]); // 2027-03-28 is a Sunday
  });
});
