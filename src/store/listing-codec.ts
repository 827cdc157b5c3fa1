import { promisify } from 'node:util';
import { constants, deflateRaw, inflateRawSync } from 'node:zlib';
import type { IspTrend } from '../api/schemas.js';
import { ThmError } from '../errors.js';
import type { ClassCounts } from '../monitor/types.js';

/*
 * One traffic-check's listing as the store keeps it for `thm replay` (docs/replay.md): the
 * API's entries as they came (per pair its four days of clicks, conversions and revenue; each
 * domain's URL once), and what the run sent.
 *
 * Format, version 1: one JSON document, compressed with raw deflate (node:zlib):
 *
 *   {"v": 1,
 *    "sent": null | {"subject": "..."},  the alert the run decided (e-mail or channels)
 *    "counts": {...},                     the run's class counts (absent: unknown)
 *    "network": 42,                       the entries' network_id (the first entry's)
 *    "domains": [id, url, id, url, ...],  each (domain id, URL) once, in order of first sight
 *    "isps": ["...", ...],                each ISP name once, in order of first sight
 *    "columns": [[...], ...]}             COLUMNS, one value per entry each, in the API's order
 *
 * In columns, not one array per entry: like values side by side compress better (about 27
 * bytes an entry against 30). The 7-day click trend is kept as sent because the decision reads
 * it (monitor/thresholds.ts, dropPercent); the other deltas and trends follow from the day
 * figures and are computed again when the listing is read back (`listingEntries`). Fields the
 * API may add beyond its schema are not kept.
 */

const VERSION = 1;

/** The columns, in their stored order. */
const COLUMNS = [
  'domain',
  'isp',
  'yesterday_total_clicks',
  'seven_days_ago_total_clicks',
  'fourteen_days_ago_total_clicks',
  'thirty_days_ago_total_clicks',
  'yesterday_conversions',
  'seven_days_ago_conversions',
  'fourteen_days_ago_conversions',
  'thirty_days_ago_conversions',
  'yesterday_revenue',
  'seven_days_ago_revenue',
  'fourteen_days_ago_revenue',
  'thirty_days_ago_revenue',
  'yesterday_seven_days_ago_total_clicks_trend',
] as const;

/** One array per column, in the order of COLUMNS. */
type Columns = ColumnArrays<typeof COLUMNS>;
type ColumnArrays<T extends readonly string[]> = { -readonly [K in keyof T]: Array<number | null> };

/** The alert a run decided, as `thm replay` shows it beside what the replay would send. */
export interface SentAlert {
  subject: string;
}

/** A listing in its compact form: what the store keeps, and what a listing file is read into. */
export interface ListingColumns {
  network: number;
  /** Domain id and URL, alternating. */
  domains: Array<number | string>;
  isps: string[];
  /** One array per entry of COLUMNS, each as long as the listing. */
  columns: Array<Array<number | null>>;
}

/** What a run stores of its day. */
export interface ListingRecord {
  entries: readonly IspTrend[];
  sent: SentAlert | null;
  counts?: ClassCounts;
}

/** A stored listing read back. */
export interface StoredListing {
  listing: ListingColumns;
  sent: SentAlert | null;
  counts?: ClassCounts;
}

/** The number of entries of a listing. */
export function listingSize(listing: ListingColumns): number {
  return listing.columns[0]?.length ?? 0;
}

/** The entries in their compact form, in their order. */
export function listingColumns(entries: readonly IspTrend[]): ListingColumns {
  const n = entries.length;
  const columns = COLUMNS.map(() => new Array<number | null>(n)) as Columns;
  const [domain, isp, c0, c7, c14, c30, v0, v7, v14, v30, r0, r7, r14, r30, trend] = columns;
  const domains: Array<number | string> = [];
  const isps: string[] = [];
  // A domain's URL is the same on all its entries, as a rule; a domain with two keeps both.
  const domainIndex = new Map<number, Map<string, number>>();
  const ispIndex = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    const id = e.network_tracking_domain_id;
    const url = e.relationship.url;
    let urls = domainIndex.get(id);
    if (urls === undefined) domainIndex.set(id, (urls = new Map()));
    let d = urls.get(url);
    if (d === undefined) {
      d = domains.length / 2;
      urls.set(url, d);
      domains.push(id, url);
    }
    let s = ispIndex.get(e.isp);
    if (s === undefined) {
      s = isps.length;
      ispIndex.set(e.isp, s);
      isps.push(e.isp);
    }
    domain[i] = d;
    isp[i] = s;
    c0[i] = e.yesterday_total_clicks;
    c7[i] = e.seven_days_ago_total_clicks;
    c14[i] = e.fourteen_days_ago_total_clicks;
    c30[i] = e.thirty_days_ago_total_clicks;
    v0[i] = e.yesterday_conversions;
    v7[i] = e.seven_days_ago_conversions;
    v14[i] = e.fourteen_days_ago_conversions;
    v30[i] = e.thirty_days_ago_conversions;
    r0[i] = e.yesterday_revenue;
    r7[i] = e.seven_days_ago_revenue;
    r14[i] = e.fourteen_days_ago_revenue;
    r30[i] = e.thirty_days_ago_revenue;
    trend[i] = e.yesterday_seven_days_ago_total_clicks_trend ?? null;
  }
  return { network: entries[0]?.network_id ?? 0, domains, isps, columns };
}

/**
 * The entries of a compact listing, as the API's (`IspTrend`): the day figures and the 7-day
 * click trend as they came, every other delta and trend computed from the day figures.
 */
export function listingEntries(listing: ListingColumns): IspTrend[] {
  const { network, domains, isps, columns } = listing;
  const [domain, isp, c0, c7, c14, c30, v0, v7, v14, v30, r0, r7, r14, r30, trend] =
    columns as Columns;
  const n = listingSize(listing);
  const entries = new Array<IspTrend>(n);
  for (let i = 0; i < n; i++) {
    const d = domain[i]! * 2;
    const clicks = c0[i]!;
    const clicks7 = c7[i]!;
    const clicks14 = c14[i]!;
    const clicks30 = c30[i]!;
    const conv = v0[i]!;
    const conv7 = v7[i]!;
    const conv14 = v14[i]!;
    const conv30 = v30[i]!;
    const rev = r0[i]!;
    const rev7 = r7[i]!;
    const rev14 = r14[i]!;
    const rev30 = r30[i]!;
    entries[i] = {
      network_id: network,
      network_tracking_domain_id: domains[d] as number,
      isp: isps[isp[i]!]!,
      yesterday_total_clicks: clicks,
      seven_days_ago_total_clicks: clicks7,
      fourteen_days_ago_total_clicks: clicks14,
      thirty_days_ago_total_clicks: clicks30,
      yesterday_seven_days_ago_total_clicks_delta: clicks - clicks7,
      yesterday_fourteen_days_ago_total_clicks_delta: clicks - clicks14,
      yesterday_thirty_days_ago_total_clicks_delta: clicks - clicks30,
      yesterday_seven_days_ago_total_clicks_trend: trend[i] ?? null,
      yesterday_fourteen_days_ago_total_clicks_trend: percentChange(clicks, clicks14),
      yesterday_thirty_days_ago_total_clicks_trend: percentChange(clicks, clicks30),
      yesterday_conversions: conv,
      seven_days_ago_conversions: conv7,
      fourteen_days_ago_conversions: conv14,
      thirty_days_ago_conversions: conv30,
      yesterday_seven_days_ago_conversions_delta: conv - conv7,
      yesterday_fourteen_days_ago_conversions_delta: conv - conv14,
      yesterday_thirty_days_ago_conversions_delta: conv - conv30,
      yesterday_seven_days_ago_conversions_trend: percentChange(conv, conv7),
      yesterday_fourteen_days_ago_conversions_trend: percentChange(conv, conv14),
      yesterday_thirty_days_ago_conversions_trend: percentChange(conv, conv30),
      yesterday_revenue: rev,
      seven_days_ago_revenue: rev7,
      fourteen_days_ago_revenue: rev14,
      thirty_days_ago_revenue: rev30,
      yesterday_seven_days_ago_revenue_delta: rev - rev7,
      yesterday_fourteen_days_ago_revenue_delta: rev - rev14,
      yesterday_thirty_days_ago_revenue_delta: rev - rev30,
      yesterday_seven_days_ago_revenue_trend: percentChange(rev, rev7),
      yesterday_fourteen_days_ago_revenue_trend: percentChange(rev, rev14),
      yesterday_thirty_days_ago_revenue_trend: percentChange(rev, rev30),
      relationship: { url: domains[d + 1] as string },
    };
  }
  return entries;
}

/** Percent change from `from` to `to`, as the API's trends; null when `from` is 0. */
function percentChange(to: number, from: number): number | null {
  return from === 0 ? null : ((to - from) / from) * 100;
}

const deflate = promisify(deflateRaw);

/**
 * The stored bytes of a run's listing. Compressed on libuv's thread pool, beside the run's own
 * work; at the fastest level, which keeps nearly all of the gain at a fifth of the time.
 */
export async function encodeListing(record: ListingRecord): Promise<Buffer> {
  const doc = {
    v: VERSION,
    sent: record.sent,
    ...(record.counts ? { counts: record.counts } : {}),
    ...listingColumns(record.entries),
  };
  return deflate(JSON.stringify(doc), { level: constants.Z_BEST_SPEED });
}

/** A stored listing read back; `what` names it in the error when it cannot be read. */
export function decodeListing(blob: Buffer, what: string): StoredListing {
  let doc: unknown;
  try {
    doc = JSON.parse(inflateRawSync(blob).toString('utf8'));
  } catch (error) {
    throw unreadable(what, error instanceof Error ? error.message : String(error));
  }
  const problem = listingProblem(doc);
  if (problem) throw unreadable(what, problem);
  const { sent, counts, network, domains, isps, columns } = doc as StoredDocument;
  return {
    listing: { network, domains, isps, columns },
    sent: sent ?? null,
    ...(counts ? { counts } : {}),
  };
}

interface StoredDocument extends ListingColumns {
  v: number;
  sent?: SentAlert | null;
  counts?: ClassCounts;
}

/**
 * What is wrong with a stored document, by its shape: the store wrote it, so this looks for
 * damage and a version it does not know, not for every value's type.
 */
function listingProblem(doc: unknown): string | undefined {
  if (typeof doc !== 'object' || doc === null) return 'not an object';
  const d = doc as Partial<StoredDocument>;
  if (d.v !== VERSION) return `version ${String(d.v)}, expected ${VERSION}`;
  if (d.sent != null && typeof d.sent.subject !== 'string') return 'sent without a subject';
  if (typeof d.network !== 'number') return 'no network';
  if (!Array.isArray(d.domains) || d.domains.length % 2 !== 0) return 'no domain list';
  if (!Array.isArray(d.isps)) return 'no ISP list';
  const columns = d.columns;
  if (!Array.isArray(columns) || columns.length !== COLUMNS.length)
    return `${Array.isArray(columns) ? columns.length : 'no'} columns, expected ${COLUMNS.length}`;
  const n = Array.isArray(columns[0]) ? columns[0].length : -1;
  if (!columns.every((column) => Array.isArray(column) && column.length === n))
    return 'columns of different lengths';
  const [domain, isp] = columns as [number[], number[]];
  const domainCount = d.domains.length / 2;
  const ispCount = d.isps.length;
  for (let i = 0; i < n; i++) {
    const di = domain[i]!;
    const si = isp[i]!;
    if (!(di >= 0 && di < domainCount && si >= 0 && si < ispCount))
      return `entry ${i} names no stored domain or ISP`;
  }
  return undefined;
}

function unreadable(what: string, detail: string): ThmError {
  return new ThmError('THM_STORE', `${what} is unreadable (${detail})`);
}
