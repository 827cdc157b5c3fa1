import type { IsoDate } from './types.js';

/**
 * Calendar arithmetic on as-of dates (YYYY-MM-DD, no time zone: the network's zone already
 * decided the date). Day numbers are days since 1970-01-01. Both directions are memoised: a
 * run converts the same handful of dates tens of thousands of times.
 */

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
