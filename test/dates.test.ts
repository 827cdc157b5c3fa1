import { describe, expect, it } from 'vitest';
import { localDate } from '../src/dates.js';

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
