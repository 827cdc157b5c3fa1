import { ThmError } from '../errors.js';
import { dayNumber } from '../dates.js';
import { addedBaseline, addedYesterday } from '../monitor/history-change.js';
import type { ActivePair, AddedPair, Severity } from '../monitor/types.js';
import {
  readItems,
  storedDate,
  writeDomains,
  type ItemWriter,
  type StoredFormat,
} from './domain-lists.js';

/**
 * The active pairs of one network as ONE blob (one hash field), so that a run reads and
 * writes its whole history in one command however many pairs there are, and each pair costs
 * only its own bytes.
 *
 * Format (store/domain-lists.ts): a domain's id and URL once, then its pairs, STRIDE values each:
 *   isp, firstSeen, lastSeen, lastNotified (day numbers), severity (1 critical, 0 warning),
 *   quietRuns, baseline, yesterday, dropPercent (2 decimals: stored in hundredths),
 *   quietAsOf (day number, 0: none)
 */
const STRIDE = 10;
const DROP = 8;

/**
 * `pairs` and `added` (HistoryChange, monitor/types.ts): the pairs carried over and those new
 * today, whose records follow from their ClassifiedPair (monitor/history-change.ts,
 * addedActivePair) and are written from it.
 */
export function encodeActive(
  pairs: Iterable<ActivePair>,
  added: readonly AddedPair[] = [],
): Buffer {
  const list = Array.isArray(pairs) ? (pairs as readonly ActivePair[]) : [...pairs];
  const carried = list.length;
  return writeDomains(
    FORMAT,
    carried + added.length,
    (i) => (i < carried ? list[i]!.domainId : added[i - carried]!.domainId),
    (i) => (i < carried ? list[i]!.domainUrl : added[i - carried]!.domainUrl),
    (i, out) => {
      if (i >= carried) {
        const p = added[i - carried]!;
        const day = dayNumber(p.firstSeen);
        writePair(out, p.isp, day, day, day, p.severity, 0, addedBaseline(p), addedYesterday(p));
        writeDrop(out, p.dropPercent, 0);
        return;
      }
      const p = list[i]!;
      writePair(
        out,
        p.isp,
        dayNumber(p.firstSeen),
        dayNumber(p.lastSeen),
        dayNumber(p.lastNotified),
        p.notifiedSeverity,
        p.quietRuns,
        p.baseline,
        p.yesterday,
      );
      writeDrop(out, p.dropPercent, p.quietAsOf === undefined ? 0 : dayNumber(p.quietAsOf));
    },
    32,
  );
}

/** A pair's values up to its drop (see the format above). */
function writePair(
  out: ItemWriter,
  isp: string,
  firstSeen: number,
  lastSeen: number,
  lastNotified: number,
  severity: Severity,
  quietRuns: number,
  baseline: number,
  yesterday: number,
): void {
  out.isp(isp);
  out.number(firstSeen);
  out.number(lastSeen);
  out.number(lastNotified);
  out.number(severity === 'critical' ? 1 : 0);
  out.number(quietRuns);
  out.number(baseline);
  out.number(yesterday);
}

/** A pair's last values: its drop (in hundredths) and its quiet day (0: none). */
function writeDrop(out: ItemWriter, dropPercent: number, quietDay: number): void {
  out.number(Math.round(dropPercent * 100));
  out.number(quietDay);
}

/**
 * A drop as the next run reads it back: in hundredths. Everything else of a pair is kept as it
 * is; `thm replay` carries its history from run to run in memory and rounds this alone
 * (replay/state.ts).
 */
export function keptDropPercent(dropPercent: number): number {
  return Math.round(dropPercent * 100) / 100;
}

function corrupt(detail: string): ThmError {
  return new ThmError('THM_STORE', `stored active pairs are unreadable (${detail})`);
}

const FORMAT: StoredFormat = {
  stride: STRIDE,
  withUrl: true,
  cents: DROP,
  list: 'pair list',
  corrupt,
};

/**
 * The stored pairs in their stored order, as a list: keyed by nothing, because the one reader
 * that looks pairs up (classification) indexes them by domain id and ISP itself, and a Map by
 * pairKey would make and hash a concatenated key a pair for nothing.
 * Each pair is stored once: `encodeActive` writes the history of one classification. The blob
 * is read from the bytes Redis returns (store/domain-lists.ts).
 */
export function decodeActive(blob: string | Buffer | null | undefined): ActivePair[] {
  return readItems(blob, FORMAT, (domainId, domainUrl, values, i): ActivePair => {
    const quietDay = values[i + 9] as number;
    return {
      domainId,
      isp: values[i] as string,
      domainUrl,
      firstSeen: storedDate(values[i + 1] as number, FORMAT),
      lastSeen: storedDate(values[i + 2] as number, FORMAT),
      lastNotified: storedDate(values[i + 3] as number, FORMAT),
      notifiedSeverity: values[i + 4] === 1 ? 'critical' : 'warning',
      quietRuns: values[i + 5] as number,
      baseline: values[i + 6] as number,
      yesterday: values[i + 7] as number,
      dropPercent: values[i + DROP] as number,
      // Always present (undefined: none), so that every decoded pair has one shape.
      quietAsOf: quietDay === 0 ? undefined : storedDate(quietDay, FORMAT),
    };
  });
}

/**
 * Each stored pair's last drop, checked as `decodeActive` checks it but with no object a pair:
 * what `thm status` and the metrics count by severity.
 */
export function activeDropPercents(blob: string | Buffer | null | undefined): number[] {
  return readItems(blob, FORMAT, (_domainId, _url, values, i) => values[i + DROP] as number);
}
