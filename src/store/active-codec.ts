import { ThmError } from '../errors.js';
import { dayNumber, isoDateOfDay } from '../dates.js';
import type { ActivePair } from '../monitor/types.js';
import { DomainLists, type Flat } from './domain-lists.js';

/**
 * The active pairs of one network as ONE string (one hash field), so that a run reads and
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

export function encodeActive(pairs: Iterable<ActivePair>): string {
  const list = Array.isArray(pairs) ? (pairs as readonly ActivePair[]) : [...pairs];
  const domains = new DomainLists(
    list,
    (p) => p.domainId,
    STRIDE,
    (first, flat): [number, string, Flat] => [first.domainId, first.domainUrl, flat],
  );
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    const domain = domains.of(p.domainId);
    const flat = domain.flat;
    let at = domain.filled;
    flat[at++] = p.isp;
    flat[at++] = dayNumber(p.firstSeen);
    flat[at++] = dayNumber(p.lastSeen);
    flat[at++] = dayNumber(p.lastNotified);
    flat[at++] = p.notifiedSeverity === 'critical' ? 1 : 0;
    flat[at++] = p.quietRuns;
    flat[at++] = p.baseline;
    flat[at++] = p.yesterday;
    flat[at++] = Math.round(p.dropPercent * 100) / 100;
    flat[at++] = p.quietAsOf === undefined ? 0 : dayNumber(p.quietAsOf);
    domain.filled = at;
  }
  return JSON.stringify({ v: VERSION, d: domains.entries() });
}

function corrupt(detail: string): ThmError {
  return new ThmError('THM_STORE', `stored active pairs are unreadable (${detail})`);
}

/**
 * The stored pairs in their stored order, as a list: keyed by nothing, because the one reader
 * that looks pairs up (classification) indexes them by domain id and ISP itself, and a Map by
 * pairKey cost 10,000 concatenated keys hashed once for nothing (target P1, docs/performance.md).
 * Each pair is stored once: `encodeActive` writes the history of one classification.
 */
export function decodeActive(blob: string | null | undefined): ActivePair[] {
  const active: ActivePair[] = [];
  if (blob === null || blob === undefined || blob === '') return active;
  let parsed: unknown;
  try {
    parsed = JSON.parse(blob);
  } catch {
    throw corrupt('not JSON');
  }
  const doc = parsed as { v?: unknown; d?: unknown };
  if (doc === null || typeof doc !== 'object' || doc.v !== VERSION || !Array.isArray(doc.d)) {
    throw corrupt('unknown version');
  }
  for (const domain of doc.d as unknown[]) {
    if (!Array.isArray(domain) || domain.length !== 3) throw corrupt('bad domain');
    const [domainId, domainUrl, flat] = domain as [unknown, unknown, unknown];
    if (typeof domainId !== 'number' || typeof domainUrl !== 'string' || !Array.isArray(flat)) {
      throw corrupt('bad domain');
    }
    if (flat.length % STRIDE !== 0) throw corrupt('bad pair list');
    for (let i = 0; i < flat.length; i += STRIDE) {
      const isp = flat[i];
      if (typeof isp !== 'string') throw corrupt('bad ISP');
      for (let j = 1; j < STRIDE; j++) {
        if (typeof flat[i + j] !== 'number') throw corrupt('bad number');
      }
      const quietDay = flat[i + 9] as number;
      active.push({
        domainId,
        isp,
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
