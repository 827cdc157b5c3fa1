import { createRequire } from 'node:module';
import cronParser from 'cron-parser';
import { isUtc } from './dates.js';

/**
 * cron-parser, as the monitor uses it: the same parser (and version) as BullMQ's job schedulers.
 *
 * It computes with luxon's DateTimes, and luxon gives each one the system's locale, which it asks
 * of a new Intl.DateTimeFormat the first time: that loads ICU's locale data, ~18 ms of every
 * command that reads a config (its crons are parsed to be checked), `thm status` among them
 * (target P7, docs/performance.md). Nothing here formats a date with luxon, so its locale is
 * fixed instead. This is the luxon cron-parser requires: one CommonJS instance, left out of the
 * CLI's bundle so that it stays one (scripts/bundle-cli.js).
 */
const require = createRequire(import.meta.url);
(require('luxon') as { Settings: { defaultLocale: string } }).Settings.defaultLocale = 'en-US';

export default cronParser;

/**
 * The cron's next fire time after `from`, or its previous one before it (epoch ms; whole
 * seconds), in the zone: what cron-parser's `next()` and `prev()` answer.
 *
 * In UTC (every network's zone unless its config names one) the fire time is found here, from
 * the values cron-parser parsed, by stepping through days and then through the day's listed
 * hours, minutes and seconds. cron-parser steps through luxon DateTimes a minute or an hour at a
 * time, ~0.15 ms a step: the previous fire of a daily cron took it ~30 ms (~60 steps) of every
 * `thm status` (target P7, docs/performance.md). The days match as cron-parser matches them (a
 * test compares the two over thousands of expressions and times); expressions this does not
 * cover (L and # in a day field), other zones, and a search that finds nothing within 8 years
 * are left to cron-parser.
 */
export function cronFireTime(
  expression: string,
  timeZone: string,
  from: number,
  direction: 'next' | 'prev',
): number {
  if (isUtc(timeZone) && !expression.includes('#')) {
    // Its values only, which no zone changes, parsed with no zone and no date as the config's
    // check parses it: given a named zone, even UTC, cron-parser's first DateTime took ~20 ms
    // more (luxon looking the zone up, measured here).
    const fields = plain(cronParser.parseExpression(expression).fields);
    const found = fields && utcFireTime(fields, from, direction);
    if (found !== undefined) return found;
  }
  const parsed = cronParser.parseExpression(expression, {
    tz: timeZone,
    currentDate: new Date(from),
  });
  return (direction === 'next' ? parsed.next() : parsed.prev()).getTime();
}

/** A cron's values, each field's in ascending order (as cron-parser gives them). */
interface Fields {
  second: readonly number[];
  minute: readonly number[];
  hour: readonly number[];
  dayOfMonth: readonly number[];
  month: readonly number[];
  /** 0 - 7, Sunday both 0 and 7 (all eight: any day). */
  dayOfWeek: readonly number[];
}

/** The fields if every value is a number (no "L" of a last day). */
function plain(fields: Record<keyof Fields, readonly unknown[]>): Fields | undefined {
  for (const values of Object.values(fields)) {
    if (!values.every((v) => typeof v === 'number')) return undefined;
  }
  return fields as unknown as Fields;
}

const DAY_MS = 86_400_000;
const SEARCH_DAYS = 366 * 8;
/** cron-parser's month lengths, February's 29 included: its day-of-month "any day" test uses them. */
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether cron-parser would fire on this UTC day (`_findSchedule`): day of month and day of
 * week both restricted, either matches (cron's rule); one restricted, it must match; then the
 * month.
 */
function dayMatches(fields: Fields, dayStart: number): boolean {
  const day = new Date(dayStart);
  const month = day.getUTCMonth();
  const dayOfMonth = fields.dayOfMonth.includes(day.getUTCDate());
  const dayOfWeek = fields.dayOfWeek.includes(day.getUTCDay());
  const anyDayOfMonth = fields.dayOfMonth.length >= DAYS_IN_MONTH[month]!;
  const anyDayOfWeek = fields.dayOfWeek.length === 8;
  if (!dayOfMonth && (!dayOfWeek || anyDayOfWeek)) return false;
  if (!anyDayOfMonth && anyDayOfWeek && !dayOfMonth) return false;
  if (anyDayOfMonth && !anyDayOfWeek && !dayOfWeek) return false;
  return fields.month.includes(month + 1);
}

/** The earliest fire strictly after `from` (next), or the latest strictly before it (prev). */
function utcFireTime(fields: Fields, from: number, direction: 'next' | 'prev'): number | undefined {
  const forward = direction === 'next';
  // Whole seconds, as cron-parser steps: the first one after `from`, or the last one before it.
  const start = forward
    ? (Math.floor(from / 1000) + 1) * 1000
    : Math.floor((from - 1) / 1000) * 1000;
  let dayStart = Math.floor(start / DAY_MS) * DAY_MS;
  let bound = (start - dayStart) / 1000;
  for (let n = 0; n < SEARCH_DAYS; n++) {
    if (dayMatches(fields, dayStart)) {
      const second = forward ? earliestSecond(fields, bound) : latestSecond(fields, bound);
      if (second >= 0) return dayStart + second * 1000;
    }
    dayStart += forward ? DAY_MS : -DAY_MS;
    bound = forward ? 0 : DAY_MS / 1000 - 1;
  }
  return undefined;
}

/** The latest listed second of a day at or before `bound` (seconds into the day); -1: none. */
function latestSecond(fields: Fields, bound: number): number {
  const [h0, m0, s0] = [Math.floor(bound / 3600), Math.floor(bound / 60) % 60, bound % 60];
  for (let i = fields.hour.length - 1; i >= 0; i--) {
    const h = fields.hour[i]!;
    if (h > h0) continue;
    for (let j = fields.minute.length - 1; j >= 0; j--) {
      const m = fields.minute[j]!;
      if (h === h0 && m > m0) continue;
      const last = h === h0 && m === m0 ? s0 : 59;
      for (let k = fields.second.length - 1; k >= 0; k--) {
        const s = fields.second[k]!;
        if (s <= last) return h * 3600 + m * 60 + s;
      }
    }
  }
  return -1;
}

/** The earliest listed second of a day at or after `bound` (seconds into the day); -1: none. */
function earliestSecond(fields: Fields, bound: number): number {
  const [h0, m0, s0] = [Math.floor(bound / 3600), Math.floor(bound / 60) % 60, bound % 60];
  for (const h of fields.hour) {
    if (h < h0) continue;
    for (const m of fields.minute) {
      if (h === h0 && m < m0) continue;
      const first = h === h0 && m === m0 ? s0 : 0;
      for (const s of fields.second) {
        if (s >= first) return h * 3600 + m * 60 + s;
      }
    }
  }
  return -1;
}
