import { ThmError } from '../errors.js';
import { dayNumber } from '../dates.js';
import type { IspTrend } from '../api/schemas.js';
import type { IsoDate, WatchedRun } from '../monitor/types.js';
import {
  readDomains,
  readItems,
  storedDate,
  writeDomains,
  type ItemWriter,
  type StoredFormat,
} from './domain-lists.js';

/**
 * The listed runs of one network (monitor/runs.ts) as ONE blob, one hash field beside the
 * active pairs, read and written in the same command as they are. Only pairs in today's list
 * with some evidence of a drop have one, so it stays small.
 *
 * Format (store/domain-lists.ts): a domain's id once, then its runs, STRIDE values each:
 *   isp, since, last (day numbers), days, clicks, d7, d14.
 */
const STRIDE = 7;

/**
 * `runs` and `started` (HistoryChange, monitor/types.ts): the runs carried over and those that
 * begin today, one listed day each, written from their entries (monitor/history-change.ts,
 * startedRun).
 */
export function encodeRuns(
  runs: Iterable<WatchedRun>,
  started?: { asOf: IsoDate; entries: readonly IspTrend[] },
): Buffer {
  const list = Array.isArray(runs) ? (runs as readonly WatchedRun[]) : [...runs];
  const carried = list.length;
  const entries = started?.entries ?? [];
  const today = started === undefined ? 0 : dayNumber(started.asOf);
  const domainOf = (i: number) =>
    i < carried ? list[i]!.domainId : entries[i - carried]!.network_tracking_domain_id;
  return writeDomains(
    FORMAT,
    carried + entries.length,
    domainOf,
    () => '',
    (i, out) => {
      if (i >= carried) {
        const e = entries[i - carried]!;
        // A run of one listed day, as extendRun begins it (monitor/history-change.ts, startedRun).
        writeRun(
          out,
          e.isp,
          today,
          today,
          1,
          e.yesterday_total_clicks,
          e.seven_days_ago_total_clicks,
          e.fourteen_days_ago_total_clicks,
        );
        return;
      }
      const r = list[i]!;
      writeRun(out, r.isp, dayNumber(r.since), dayNumber(r.last), r.days, r.clicks, r.d7, r.d14);
    },
    24,
  );
}

/** A run's values (see the format above). */
function writeRun(
  out: ItemWriter,
  isp: string,
  since: number,
  last: number,
  days: number,
  clicks: number,
  d7: number,
  d14: number,
): void {
  out.isp(isp);
  out.number(since);
  out.number(last);
  out.number(days);
  out.number(clicks);
  out.number(d7);
  out.number(d14);
}

function corrupt(detail: string): ThmError {
  return new ThmError('THM_STORE', `stored listed runs are unreadable (${detail})`);
}

const FORMAT: StoredFormat = {
  stride: STRIDE,
  withUrl: false,
  list: 'run list',
  corrupt,
};

/** The stored runs in their stored order, as a list (see `decodeActive`). */
export function decodeRuns(blob: string | Buffer | null | undefined): WatchedRun[] {
  return readItems(blob, FORMAT, (domainId, _url, values, i) => ({
    domainId,
    isp: values[i] as string,
    since: storedDate(values[i + 1] as number, FORMAT),
    last: storedDate(values[i + 2] as number, FORMAT),
    days: values[i + 3] as number,
    clicks: values[i + 4] as number,
    d7: values[i + 5] as number,
    d14: values[i + 6] as number,
  }));
}

/** Checks the stored runs as `decodeRuns` does, decoding none (`thm status`). */
export function checkRuns(blob: string | Buffer | null | undefined): void {
  readDomains(blob, FORMAT, () => {});
}
