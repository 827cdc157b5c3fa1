import type { BufferPool } from '../buffer-pool.js';
import { ThmError } from '../errors.js';
import { dayNumber, isoDateOfDay } from '../dates.js';
import type { ActivePair } from '../monitor/types.js';
import { COMMA, readDomains, writeDomains, type StoredFormat } from './domain-lists.js';

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
      out.next(Math.round(p.dropPercent * 100) / 100);
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
 * Each pair is stored once: `encodeActive` writes the history of one classification.
 */
export function decodeActive(blob: string | null | undefined): ActivePair[] {
  const active: ActivePair[] = [];
  for (const { id: domainId, url: domainUrl, flat } of readDomains(blob, FORMAT)) {
    for (let i = 0; i < flat.length; i += STRIDE) {
      const quietDay = flat[i + 9] as number;
      active.push({
        domainId,
        isp: flat[i] as string,
        domainUrl,
        firstSeen: isoDateOfDay(flat[i + 1] as number),
        lastSeen: isoDateOfDay(flat[i + 2] as number),
        lastNotified: isoDateOfDay(flat[i + 3] as number),
        notifiedSeverity: flat[i + 4] === 1 ? 'critical' : 'warning',
        quietRuns: flat[i + 5] as number,
        baseline: flat[i + 6] as number,
        yesterday: flat[i + 7] as number,
        dropPercent: flat[i + 8] as number,
        // Always present (undefined: none), so that every decoded pair has one shape.
        quietAsOf: quietDay === 0 ? undefined : isoDateOfDay(quietDay),
      });
    }
  }
  return active;
}

/**
 * Each stored pair's last drop, checked as `decodeActive` checks it but with no object a pair:
 * what `thm status` and the metrics count by severity (target P7, docs/performance.md).
 */
export function activeDropPercents(blob: string | null | undefined): number[] {
  const drops: number[] = [];
  for (const { flat } of readDomains(blob, FORMAT)) {
    for (let i = 8; i < flat.length; i += STRIDE) drops.push(flat[i] as number);
  }
  return drops;
}
