/**
 * As-of dates: calendar dates (YYYY-MM-DD) in a network's time zone. A run's as-of date is
 * "today" where the network lives; the trends it reads describe the day before. All arithmetic
 * is on plain dates in UTC, so no zone or daylight-saving change can shift a day.
 *
 * Day numbers are days since 1970-01-01. Both conversions are memoised: a run converts the same
 * handful of dates tens of thousands of times.
 */
export type IsoDate = string;

const MS_PER_DAY = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MEMO_LIMIT = 4096;

const toDay = new Map<string, number>();
const toIso = new Map<number, IsoDate>();

export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().slice(0, 10) === value;
}

export function dayNumber(date: IsoDate): number {
  let day = toDay.get(date);
  if (day === undefined) {
    if (!isIsoDate(date)) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
    day = Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY;
    if (toDay.size >= MEMO_LIMIT) toDay.clear();
    toDay.set(date, day);
  }
  return day;
}

export function isoDateOfDay(day: number): IsoDate {
  let date = toIso.get(day);
  if (date === undefined) {
    date = new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
    if (toIso.size >= MEMO_LIMIT) toIso.clear();
    toIso.set(day, date);
  }
  return date;
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  return dayNumber(to) - dayNumber(from);
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return isoDateOfDay(dayNumber(date) + days);
}

/** 0 = Sunday ... 6 = Saturday */
export function weekday(date: IsoDate): number {
  return new Date(dayNumber(date) * MS_PER_DAY).getUTCDay();
}

/** UTC by either of its IANA names: no offset, no daylight saving time, no Intl needed. */
export function isUtc(timeZone: string): boolean {
  return timeZone === 'UTC' || timeZone === 'Etc/UTC';
}

/**
 * The calendar date at `epochMs` in `timeZone`. UTC, every network's zone unless its config
 * names one, is read off the ISO string: a command's first Intl.DateTimeFormat loads ICU's
 * time-zone data, which a command whose networks are all in UTC need not wait for.
 */
export function localDate(epochMs: number, timeZone: string): IsoDate {
  if (isUtc(timeZone)) return new Date(epochMs).toISOString().slice(0, 10);
  const { year, month, day } = wallClock(epochMs, timeZone);
  return `${year}-${month}-${day}`;
}

/** A date and time as a clock in some zone shows it: month to minute two digits each, 00-23 h. */
export interface WallClock {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
}

const wallClockFormatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The date and time at `epochMs` on a clock in `timeZone`, through one Intl formatter a zone,
 * made once: `thm status` reads three or four times of each network, and finding a zone's
 * daylight-saving gaps (dst-gaps.ts) reads a year of them hour by hour.
 */
export function wallClock(epochMs: number, timeZone: string): WallClock {
  let formatter = wallClockFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    wallClockFormatters.set(timeZone, formatter);
  }
  const clock: WallClock = { year: '', month: '', day: '', hour: '', minute: '' };
  for (const part of formatter.formatToParts(new Date(epochMs))) {
    if (part.type in clock) clock[part.type as keyof WallClock] = part.value;
  }
  return clock;
}
