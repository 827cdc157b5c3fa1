import { addDays, daysBetween, isIsoDate, type IsoDate } from '../dates.js';
import { UsageError } from '../errors.js';

/** The as-of dates a replay covers, both ends included. */
export interface DateRange {
  from: IsoDate;
  to: IsoDate;
}

/** The longest range a replay takes: more than any listing is kept (history.keepListingsDays). */
export const MAX_RANGE_DAYS = 400;

const DAY_MS = 86_400_000;

/**
 * The range of `--since N` (the last N as-of dates up to today, N in whole days or weeks:
 * `30d`, `2w`) or `--from DATE [--to DATE]` (`--to` defaults to today); neither: the last
 * `defaultDays`. `sinceMs` is --since already read as a duration (cli/durations.ts).
 */
export function replayRange(
  options: { sinceMs?: number; from?: string; to?: string },
  today: IsoDate,
  defaultDays: number,
): DateRange {
  if (options.sinceMs !== undefined && (options.from !== undefined || options.to !== undefined))
    throw new UsageError('--since: give either --since or --from/--to, not both');
  if (options.from === undefined && options.to === undefined) {
    const days = options.sinceMs === undefined ? defaultDays : options.sinceMs / DAY_MS;
    if (!Number.isInteger(days) || days < 1)
      throw new UsageError('--since: whole days or weeks (e.g. 30d, 2w)');
    if (days > MAX_RANGE_DAYS) throw new UsageError(`--since: at most ${MAX_RANGE_DAYS} days`);
    return { from: addDays(today, -(days - 1)), to: today };
  }
  const to = checkedDate(options.to ?? today, '--to');
  const from =
    options.from === undefined
      ? addDays(to, -(defaultDays - 1))
      : checkedDate(options.from, '--from');
  if (from > to) throw new UsageError(`--from: ${from} is after --to (${to})`);
  if (daysBetween(from, to) >= MAX_RANGE_DAYS)
    throw new UsageError(`--from: at most ${MAX_RANGE_DAYS} days from --to`);
  return { from, to };
}

/** Every date of the range, oldest first. */
export function datesOf(range: DateRange): IsoDate[] {
  const dates: IsoDate[] = [];
  for (let d = range.from; d <= range.to; d = addDays(d, 1)) dates.push(d);
  return dates;
}

export function inRange(asOf: IsoDate, range: DateRange): boolean {
  return asOf >= range.from && asOf <= range.to;
}

function checkedDate(value: string, option: string): IsoDate {
  if (!isIsoDate(value)) throw new UsageError(`${option}: "${value}" is not a date YYYY-MM-DD`);
  return value;
}
