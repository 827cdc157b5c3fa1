import { describe, expect, it } from 'vitest';
import { localDate, wallClock } from '../src/dates.js';

/** The calendar date at `ms` in `timeZone`, formatted by hand from Intl's parts. */
function intlDate(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${part('year')}-${pad(part('month'))}-${pad(part('day'))}`;
}

const INSTANTS = [
  Date.UTC(2026, 10, 23, 0, 0, 0, 0),
  Date.UTC(2026, 10, 23, 23, 59, 59, 999),
  Date.UTC(2028, 1, 29, 12, 0),
  Date.UTC(2026, 11, 31, 23, 59, 59, 999),
  Date.UTC(2027, 0, 1, 0, 0),
  Date.UTC(1970, 0, 1, 0, 0),
];

describe('localDate', () => {
  it.each(['UTC', 'Etc/UTC'])('in %s, is the UTC date, up to the last millisecond', (zone) => {
    for (const ms of INSTANTS) expect(localDate(ms, zone)).toBe(intlDate(ms, zone));
  });

  it.each(['Europe/Berlin', 'America/Los_Angeles', 'Pacific/Kiritimati', 'Asia/Kolkata'])(
    'in %s, is the date where the network lives',
    (zone) => {
      for (const ms of INSTANTS) expect(localDate(ms, zone)).toBe(intlDate(ms, zone));
    },
  );

  it('a day boundary that differs from UTC: 23:30 UTC is the next day in Berlin', () => {
    const ms = Date.UTC(2026, 10, 23, 23, 30);
    expect(localDate(ms, 'UTC')).toBe('2026-11-23');
    expect(localDate(ms, 'Europe/Berlin')).toBe('2026-11-24');
    expect(localDate(ms, 'America/Los_Angeles')).toBe('2026-11-23');
  });
});

describe('wallClock', () => {
  it('reads the clock in the zone, two digits a field, midnight as 00', () => {
    // 23:05 UTC on 31 December is 00:05 on 1 January in Berlin.
    expect(wallClock(Date.UTC(2026, 11, 31, 23, 5), 'Europe/Berlin')).toEqual({
      year: '2027',
      month: '01',
      day: '01',
      hour: '00',
      minute: '05',
    });
    expect(wallClock(Date.UTC(2026, 6, 4, 16, 30), 'Asia/Kolkata')).toEqual({
      year: '2026',
      month: '07',
      day: '04',
      hour: '22',
      minute: '00',
    });
  });

  it("gives the zone's calendar date, as localDate does", () => {
    for (const zone of ['Europe/Berlin', 'America/Los_Angeles', 'Pacific/Kiritimati']) {
      for (const ms of INSTANTS) {
        const { year, month, day } = wallClock(ms, zone);
        expect(`${year}-${month}-${day}`).toBe(intlDate(ms, zone));
      }
    }
  });
});
