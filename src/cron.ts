import { createRequire } from 'node:module';
import { isUtc } from './dates.js';

type CronParser = typeof import('cron-parser');

const require = createRequire(import.meta.url);
let loaded: CronParser | undefined;

const DAY_MS = 86_400_000;

/**
 * cron-parser, as the monitor uses it: the same parser (and version) as BullMQ's job schedulers,
 * loaded on first use. A command whose crons are all plain (`plainCronFields`) and in UTC never
 * loads it: with luxon, under it, it is a noticeable part of the start of every command that
 * reads a config.
 *
 * It computes with luxon's DateTimes, and luxon gives each one the system's locale, which it asks
 * of a new Intl.DateTimeFormat the first time: that loads ICU's locale data, a cost more.
 * Nothing here formats a date with luxon, so its locale is fixed instead. Both are required from
 * node_modules, outside the CLI's bundle (scripts/bundle-cli.js), so that there is one luxon,
 * the one cron-parser requires.
 */
export function cronParser(): CronParser {
  if (loaded === undefined) {
    (require('luxon') as { Settings: { defaultLocale: string } }).Settings.defaultLocale = 'en-US';
    loaded = require('cron-parser') as CronParser;
  }
  return loaded;
}

/**
 * What cron-parser finds wrong with an expression, or undefined when it parses; a plain one
 * (`plainCronFields`) is known to parse without asking it.
 */
export function cronExpressionProblem(expression: string): string | undefined {
  if (plainCronFields(expression) !== undefined) return undefined;
  try {
    cronParser().parseExpression(expression);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The cron's next fire time after `from`, or its previous one before it (epoch ms; whole
 * seconds), in the zone: what cron-parser's `next()` and `prev()` answer.
 *
 * In UTC (every network's zone unless its config names one) the fire time is found here, from
 * the cron's values (`plainCronFields`, or cron-parser's parse of an expression that is not
 * plain), by stepping through days and then through the day's listed hours, minutes and
 * seconds. cron-parser steps through luxon DateTimes a minute or an hour at a time, so the
 * previous fire of a daily cron takes it dozens of steps, on every `thm status`. The days match
 * as cron-parser matches them (a
 * test compares the two over thousands of expressions and times). Expressions this does not
 * cover (L and # in a day field), other zones, and a search that finds nothing within 8 years
 * are left to cron-parser: the next fire is its `next()`, the previous one the last `next()`
 * before `from` (`zonedPreviousFire`).
 */
export function cronFireTime(
  expression: string,
  timeZone: string,
  from: number,
  direction: 'next' | 'prev',
): number {
  if (isUtc(timeZone) && !expression.includes('#')) {
    // Its values only, which no zone changes; from cron-parser, parsed with no zone and no date
    // as the config's check parses it: given a named zone, even UTC, cron-parser's first
    // DateTime costs a zone lookup in luxon, which UTC does not need.
    const fields =
      plainCronFields(expression) ?? numeric(cronParser().parseExpression(expression).fields);
    const found = fields && utcFireTime(fields, from, direction);
    if (found !== undefined) return found;
  }
  if (direction === 'next') return firesFrom(expression, timeZone, from).next().getTime();
  return zonedPreviousFire(expression, timeZone, from);
}

function firesFrom(expression: string, timeZone: string, from: number) {
  return cronParser().parseExpression(expression, { tz: timeZone, currentDate: new Date(from) });
}

/** How far back the previous fire is looked for, widening: a minute up to a year. */
const LOOKBACK_MS = [60_000, 3_600_000, DAY_MS, 8 * DAY_MS, 32 * DAY_MS, 367 * DAY_MS];
/** Fires stepped through in one look back before it is left to `prev()` (a dense cron's). */
const LOOKBACK_MAX_FIRES = 1_000;

/**
 * The latest fire strictly before `from` in a zone: the last of the fires cron-parser's `next()`
 * gives from a little earlier, looking further back until one is found. cron-parser's own
 * `prev()` walks back through luxon DateTimes an hour or a minute at a time (20-60 ms a call,
 * paid per zone on every `thm status`); `next()` lands on the fire in a step or two. The fires
 * are the ones the job scheduler, which steps forward with `next()` too, would have run.
 */
function zonedPreviousFire(expression: string, timeZone: string, from: number): number {
  for (const lookback of LOOKBACK_MS) {
    const fires = firesFrom(expression, timeZone, from - lookback);
    let latest: number | undefined;
    for (let step = 0; step < LOOKBACK_MAX_FIRES; step++) {
      const fire = fires.next().getTime();
      if (fire >= from) {
        if (latest !== undefined) return latest;
        break;
      }
      latest = fire;
    }
    if (latest !== undefined) break;
  }
  return firesFrom(expression, timeZone, from).prev().getTime();
}

/**
 * The longest time between two consecutive fires of the cron in its zone, over the next
 * `windowDays` (two weeks: a cron of weekdays only has its weekend in it, and each DST change
 * of a year is within two weeks of one). How old a last success may grow before the next run is
 * late: the worker reports it per network beside the last success (`/metrics`). Stops after
 * `maxFires` fires: a cron that fires that often has no long gap to find.
 */
export function longestCronGapMs(
  expression: string,
  timeZone: string,
  from: number,
  windowDays = 15,
  maxFires = 5_000,
): number {
  const fires = cronParser().parseExpression(expression, {
    tz: timeZone,
    currentDate: new Date(from),
  });
  let previous = fires.prev().getTime();
  fires.reset(new Date(previous));
  let longest = 0;
  for (let i = 0; i < maxFires; i++) {
    const next = fires.next().getTime();
    longest = Math.max(longest, next - previous);
    previous = next;
    if (next - from > windowDays * DAY_MS) break;
  }
  return longest;
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
function numeric(fields: Record<keyof Fields, readonly unknown[]>): Fields | undefined {
  for (const values of Object.values(fields)) {
    if (!values.every((v) => typeof v === 'number')) return undefined;
  }
  return fields as unknown as Fields;
}

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

/** Each field's values, in cron-parser's order of the six fields (seconds first). */
const RANGES: ReadonlyArray<readonly [keyof Fields, number, number]> = [
  ['second', 0, 59],
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['dayOfMonth', 1, 31],
  ['month', 1, 12],
  ['dayOfWeek', 0, 7],
];

/** `N`, `N-M`, `N-M/S`, `*` or `*` + `/S`, numbers of one or two digits. */
const ITEM = /^(?:(\*)|(\d{1,2})(?:-(\d{1,2})(?:\/(\d{1,2}))?)?)$|^\*\/(\d{1,2})$/;

/**
 * A plain cron expression's values, each field's as cron-parser gives them (ascending, a value
 * listed twice kept twice), or undefined for any other expression, which is left to
 * cron-parser. Plain: five fields (seconds 0) or six, separated by spaces, each a comma list of
 * `*`, `*` + `/S`, `N`, `N-M` and `N-M/S` within the field's range, with N <= M and S >= 1;
 * the month `*`; the day of the week without a 7 but in `*`. The rest (names, `?`, `L`, `W`,
 * `#`, `@daily`, four fields, a restricted month, whose days cron-parser checks against the
 * days of the month, a 7 for Sunday, which it reads two ways, and everything it refuses) goes
 * to cron-parser. The daily crons a config holds (`0 7 * * *`) are plain. `test/cron.test.ts`
 * compares the values with cron-parser's over thousands of expressions.
 */
export function plainCronFields(expression: string): Fields | undefined {
  const parts = expression.trim().split(/ +/);
  if (parts.length !== 5 && parts.length !== 6) return undefined;
  if (parts.length === 5) parts.unshift('0');
  if (parts[4] !== '*') return undefined;
  const fields = {} as Record<keyof Fields, number[]>;
  for (let f = 0; f < RANGES.length; f++) {
    const [name, min, max] = RANGES[f]!;
    const values: number[] = [];
    for (const item of parts[f]!.split(',')) {
      const match = ITEM.exec(item);
      if (match === null) return undefined;
      let from = min;
      let to = max;
      let step = 1;
      if (match[5] !== undefined) step = Number(match[5]);
      else if (match[1] === undefined) {
        from = Number(match[2]);
        to = match[3] === undefined ? from : Number(match[3]);
        if (match[4] !== undefined) step = Number(match[4]);
        if (from < min || to > max || from > to) return undefined;
        if (name === 'dayOfWeek' && to === 7) return undefined;
      }
      if (step < 1) return undefined;
      for (let v = from; v <= to; v += step) values.push(v);
    }
    fields[name] = values.sort((a, b) => a - b);
  }
  return fields;
}
