import type { BufferPool } from '../buffer-pool.js';
import { ThmError } from '../errors.js';
import { dayNumber, isoDateOfDay } from '../dates.js';
import type { ActivePair } from '../monitor/types.js';
import { COMMA, readItems, writeDomains, type StoredFormat } from './domain-lists.js';

/**
 * The active pairs of one network as ONE blob (one hash field), so that a run reads and
 * writes its whole history in one command however many pairs there are (target P2, docs/performance.md), and each
 * pair costs only its own bytes (target P4).
 *
 * Format (JSON, version 1): {"v":1,"d":[[domainId,"domainUrl",[...pairs]],...]} where a
 * domain's URL is stored once and its pairs are flattened, STRIDE values each:
 *   isp, firstSeen, lastSeen, lastNotified (day numbers), severity (1 critical, 0 warning),
 *   quietRuns, baseline, yesterday, dropPercent (2 decimals), quietAsOf (day number, 0: none)
 * JSON because the ISP string is arbitrary text and JSON.parse/stringify are native and fast.
 */
const VERSION = 1;
const STRIDE = 10;

/** `pool`: where the buffer comes from (store/domain-lists.ts, writeDomains). */
export function encodeActive(pairs: Iterable<ActivePair>, pool?: BufferPool): Buffer {
  const list = Array.isArray(pairs) ? (pairs as readonly ActivePair[]) : [...pairs];
  return writeDomains(
    FORMAT,
    list,
    (p) => p.domainId,
    (first, out) => {
      out.number(first.domainId);
      out.byte(COMMA);
      out.string(first.domainUrl);
    },
    (p, out) => {
      out.string(p.isp);
      out.next(dayNumber(p.firstSeen));
      out.next(dayNumber(p.lastSeen));
      out.next(dayNumber(p.lastNotified));
      out.next(p.notifiedSeverity === 'critical' ? 1 : 0);
      out.next(p.quietRuns);
      out.next(p.baseline);
      out.next(p.yesterday);
      out.byte(COMMA);
      out.cents(Math.round(p.dropPercent * 100));
      out.next(p.quietAsOf === undefined ? 0 : dayNumber(p.quietAsOf));
    },
    96,
    pool,
  );
}

function corrupt(detail: string): ThmError {
  return new ThmError('THM_STORE', `stored active pairs are unreadable (${detail})`);
}

const FORMAT: StoredFormat = {
  version: VERSION,
  stride: STRIDE,
  withUrl: true,
  list: 'pair list',
  corrupt,
};

/**
 * The stored pairs in their stored order, as a list: keyed by nothing, because the one reader
 * that looks pairs up (classification) indexes them by domain id and ISP itself, and a Map by
 * pairKey cost 10,000 concatenated keys hashed once for nothing (target P1, docs/performance.md).
 * Each pair is stored once: `encodeActive` writes the history of one classification. The blob
 * as Redis returns it (a Buffer) is read without making its text (store/domain-lists.ts).
 */
export function decodeActive(blob: string | Buffer | null | undefined): ActivePair[] {
  return readItems(blob, FORMAT, (domainId, domainUrl, values, i): ActivePair => {
    const quietDay = values[i + 9] as number;
    return {
      domainId,
      isp: values[i] as string,
      domainUrl,
      firstSeen: isoDateOfDay(values[i + 1] as number),
      lastSeen: isoDateOfDay(values[i + 2] as number),
      lastNotified: isoDateOfDay(values[i + 3] as number),
      notifiedSeverity: values[i + 4] === 1 ? 'critical' : 'warning',
      quietRuns: values[i + 5] as number,
      baseline: values[i + 6] as number,
      yesterday: values[i + 7] as number,
      dropPercent: values[i + 8] as number,
      // Always present (undefined: none), so that every decoded pair has one shape.
      quietAsOf: quietDay === 0 ? undefined : isoDateOfDay(quietDay),
    };
  });
}

/**
 * Each stored pair's last drop, checked as `decodeActive` checks it but with no object a pair:
 * what `thm status` and the metrics count by severity (target P7, docs/performance.md).
 */
export function activeDropPercents(blob: string | Buffer | null | undefined): number[] {
  return readItems(blob, FORMAT, (_domainId, _url, values, i) => values[i + 8] as number);
}
