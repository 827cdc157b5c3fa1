import { describe, expect, it } from 'vitest';
import { formatZoned } from '../../src/cli/durations.js';

describe('formatZoned', () => {
  // 2026-03-29 01:30 UTC: Berlin has just moved to summer time (03:30), New York has not.
  const ms = Date.UTC(2026, 2, 29, 1, 30);

  it('shows the time in UTC and in the zone, the zone its own date when that differs', () => {
    expect(formatZoned(ms, 'Europe/Berlin')).toBe('2026-03-29 01:30 UTC (03:30 Europe/Berlin)');
    expect(formatZoned(ms, 'America/New_York')).toBe(
      '2026-03-29 01:30 UTC (2026-03-28 21:30 America/New_York)',
    );
    expect(formatZoned(ms, 'UTC')).toBe('2026-03-29 01:30 UTC');
  });

  it('answers each zone as its own when zones alternate (one formatter a zone)', () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
    const first = zones.map((zone) => formatZoned(ms, zone));
    for (let round = 0; round < 3; round++)
      expect(zones.map((zone) => formatZoned(ms, zone))).toEqual(first);
    expect(first[2]).toBe('2026-03-29 01:30 UTC (10:30 Asia/Tokyo)');
  });
});
