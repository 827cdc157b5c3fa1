import { endianness } from 'node:os';
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
 * Format, version 2, compressed whole with raw deflate (node:zlib):
 *
 *   bytes 0-3   the header's length in bytes (unsigned 32-bit, little-endian)
 *   then        the header, JSON:
 *                 {"v": 2,
 *                  "sent": null | {"subject": "..."},  the alert the run decided (any channel)
 *                  "counts": {...},                     the run's class counts (absent: unknown)
 *                  "network": 42,                       the entries' network_id (the first's)
 *                  "domains": [id, url, id, url, ...],  each (domain id, URL) once
 *                  "isps": ["...", ...],                each ISP name once
 *                  "n": 10000,                          the entries
 *                  "kinds": ["u32", ...]}               how each column of COLUMNS is stored
 *   then        the columns, in the order of COLUMNS, n values each in the API's order,
 *               little-endian, by kind: "u32" a count or an index (4 bytes), "cents" a value
 *               in hundredths (signed, 4 bytes), "hundredths" the same with -2^31 for none,
 *               "f64" any number (8 bytes; NaN for none)
 *
 * In columns of fixed-size numbers, not JSON: like values side by side compress as well as
 * JSON's digits did (26 - 29 bytes a pair either way), and a replay reads 90 days of 10,000
 * pairs without parsing 60 MB of JSON, the largest part of its time beside the decisions
 * themselves (P8, docs/performance.md). A column whose values do not all fit its compact
 * kind (revenue that is not whole cents, a count beyond 2^32) is kept as "f64", exactly.
 *
 * The 7-day click trend is kept as sent because the decision reads it (monitor/thresholds.ts,
 * dropPercent). The other trends are not kept: only an e-mail's figures show them, and the API
 * may leave any trend out (an entry read back has them null, as the API's schema allows). Only
 * what a run reads of an entry is kept (api/schemas.ts, ispTrendSchema): not the deltas, nor
 * fields the API may add.
 */

const VERSION = 2;

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

/** One array per column, in the order of COLUMNS: as made from entries, and as read. */
type Columns = ColumnArrays<typeof COLUMNS, Float64Array>;
type ReadColumns = ColumnArrays<typeof COLUMNS, ArrayLike<number | null>>;
type ColumnArrays<T extends readonly string[], C> = { -readonly [K in keyof T]: C };

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
  /**
   * One array per entry of COLUMNS, each as long as the listing: numbers, NaN where there is
   * no trend (null in a listing made some other way).
   */
  columns: Array<ArrayLike<number | null>>;
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

/** The entries in their compact form, in their order: a Float64Array a column. */
export function listingColumns(
  entries: readonly IspTrend[],
): Omit<ListingColumns, 'columns'> & { columns: Columns } {
  const n = entries.length;
  const columns = COLUMNS.map(() => new Float64Array(n)) as Columns;
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
    trend[i] = e.yesterday_seven_days_ago_total_clicks_trend ?? NaN;
  }
  return { network: entries[0]?.network_id ?? 0, domains, isps, columns };
}

/**
 * The entries of a compact listing, as a run reads the API's (`IspTrend`): the day figures and
 * the 7-day click trend as they came, the other trends null (not kept). Null, not computed: a replay of 900,000 pair-days spent a sixth of its CPU time
 * making and collecting those eight numbers an entry, which no decision reads.
 */
export function listingEntries(listing: ListingColumns): IspTrend[] {
  const { network, domains, isps, columns } = listing;
  const [domain, isp, c0, c7, c14, c30, v0, v7, v14, v30, r0, r7, r14, r30, trend] =
    columns as ReadColumns;
  const n = listingSize(listing);
  const entries = new Array<IspTrend>(n);
  // One per domain, shared by its entries: nothing changes an entry once it is read.
  const relationships = Array.from({ length: domains.length / 2 }, (_, k) => ({
    url: domains[2 * k + 1] as string,
  }));
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
      yesterday_seven_days_ago_total_clicks_trend: trendOf(trend[i]),
      yesterday_fourteen_days_ago_total_clicks_trend: null,
      yesterday_thirty_days_ago_total_clicks_trend: null,
      yesterday_conversions: conv,
      seven_days_ago_conversions: conv7,
      fourteen_days_ago_conversions: conv14,
      thirty_days_ago_conversions: conv30,
      yesterday_seven_days_ago_conversions_trend: null,
      yesterday_fourteen_days_ago_conversions_trend: null,
      yesterday_thirty_days_ago_conversions_trend: null,
      yesterday_revenue: rev,
      seven_days_ago_revenue: rev7,
      fourteen_days_ago_revenue: rev14,
      thirty_days_ago_revenue: rev30,
      yesterday_seven_days_ago_revenue_trend: null,
      yesterday_fourteen_days_ago_revenue_trend: null,
      yesterday_thirty_days_ago_revenue_trend: null,
      relationship: relationships[d / 2]!,
    };
  }
  return entries;
}

/** A stored trend: none is null in an array from entries, NaN in one read from the store. */
function trendOf(value: number | null | undefined): number | null {
  return value === null || value === undefined || Number.isNaN(value) ? null : value;
}

const deflate = promisify(deflateRaw);

/** How a column is stored (the format above). */
type Kind = 'u32' | 'cents' | 'hundredths' | 'f64';
const KINDS: readonly Kind[] = ['u32', 'cents', 'hundredths', 'f64'];
const BYTES: Record<Kind, number> = { u32: 4, cents: 4, hundredths: 4, f64: 8 };
const NONE = -(2 ** 31);
const LITTLE_ENDIAN = endianness() === 'LE';

/** The compact kind every value of a column fits (COLUMNS' counts, money and trend). */
function kindOf(column: Float64Array, index: number): Kind {
  const compact: Kind = index < 10 ? 'u32' : index < 14 ? 'cents' : 'hundredths';
  for (let i = 0; i < column.length; i++) {
    const v = column[i]!;
    if (Number.isNaN(v)) {
      if (compact !== 'hundredths') return 'f64';
    } else if (
      compact === 'u32' ? !(Number.isInteger(v) && v >= 0 && v < 2 ** 32) : !inHundredths(v)
    ) {
      return 'f64';
    }
  }
  return compact;
}

/** Whether `v` is a whole number of hundredths that reads back as itself from 4 bytes. */
function inHundredths(v: number): boolean {
  const h = Math.round(v * 100);
  return h / 100 === v && h > NONE && h < 2 ** 31 && !Object.is(v, -0);
}

/** A column's stored numbers, of its kind (the format above), in the machine's byte order. */
function storedColumn(column: Float64Array, kind: Kind): Float64Array | Uint32Array | Int32Array {
  if (kind === 'f64') return column;
  // kindOf found every value a whole number in range: converted exactly.
  if (kind === 'u32') return new Uint32Array(column);
  const hundredths = new Int32Array(column.length);
  for (let i = 0; i < column.length; i++) {
    const v = column[i]!;
    hundredths[i] = Number.isNaN(v) ? NONE : Math.round(v * 100);
  }
  return hundredths;
}

/** The bytes of typed-array numbers, little-endian. */
function littleEndianBytes(numbers: Float64Array | Uint32Array | Int32Array): Buffer {
  const bytes = Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength);
  if (LITTLE_ENDIAN) return bytes;
  const copy = Buffer.from(bytes);
  return numbers.BYTES_PER_ELEMENT === 8 ? copy.swap64() : copy.swap32();
}

/**
 * The stored bytes of a run's listing. Compressed on libuv's thread pool, beside the run's own
 * work; at the fastest level, which keeps nearly all of the gain at a fifth of the time.
 */
export async function encodeListing(record: ListingRecord): Promise<Buffer> {
  const { network, domains, isps, columns } = listingColumns(record.entries);
  const n = record.entries.length;
  const kinds = columns.map(kindOf);
  const header = Buffer.from(
    JSON.stringify({
      v: VERSION,
      sent: record.sent,
      ...(record.counts ? { counts: record.counts } : {}),
      network,
      domains,
      isps,
      n,
      kinds,
    }),
  );
  const length = Buffer.allocUnsafe(4);
  length.writeUInt32LE(header.length, 0);
  const bytes = Buffer.concat([
    length,
    header,
    ...columns.map((column, c) => littleEndianBytes(storedColumn(column, kinds[c]!))),
  ]);
  return deflate(bytes, { level: constants.Z_BEST_SPEED });
}

/** A stored listing read back; `what` names it in the error when it cannot be read. */
export function decodeListing(blob: Buffer, what: string): StoredListing {
  let bytes: Buffer;
  let header: unknown;
  let start: number;
  try {
    bytes = inflateRawSync(blob);
    start = 4 + bytes.readUInt32LE(0);
    header = JSON.parse(bytes.toString('utf8', 4, start));
  } catch (error) {
    throw unreadable(what, error instanceof Error ? error.message : String(error));
  }
  const problem = headerProblem(header, bytes.length - start);
  if (problem) throw unreadable(what, problem);
  const { sent, counts, network, domains, isps, n, kinds } = header as StoredHeader;
  let at = start;
  const columns = kinds.map((kind) => {
    const column = readColumn(bytes, at, kind, n);
    at += BYTES[kind] * n;
    return column;
  });
  const listing = { network, domains, isps, columns };
  const damage = indexProblem(listing);
  if (damage) throw unreadable(what, damage);
  return { listing, sent: sent ?? null, ...(counts ? { counts } : {}) };
}

/**
 * One column as numbers: counts and indices as unsigned integers (so that they stay small
 * integers in the entries built from them, not doubles), the rest as doubles.
 */
function readColumn(bytes: Buffer, at: number, kind: Kind, n: number): Uint32Array | Float64Array {
  if (kind === 'u32') {
    if (LITTLE_ENDIAN)
      return new Uint32Array(
        bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 4 * n),
      );
    const column = new Uint32Array(n);
    for (let i = 0; i < n; i++) column[i] = bytes.readUInt32LE(at + 4 * i);
    return column;
  }
  const column = new Float64Array(n);
  if (kind === 'f64') {
    for (let i = 0; i < n; i++) column[i] = bytes.readDoubleLE(at + 8 * i);
    return column;
  }
  for (let i = 0; i < n; i++) {
    const h = bytes.readInt32LE(at + 4 * i);
    column[i] = kind === 'hundredths' && h === NONE ? NaN : h / 100;
  }
  return column;
}

interface StoredHeader {
  v: number;
  sent?: SentAlert | null;
  counts?: ClassCounts;
  network: number;
  domains: Array<number | string>;
  isps: string[];
  n: number;
  kinds: Kind[];
}

/**
 * What is wrong with a stored header, by its shape and the bytes after it: the store wrote
 * them, so this looks for damage and a version it does not know, not for every value's type.
 */
function headerProblem(header: unknown, columnBytes: number): string | undefined {
  if (typeof header !== 'object' || header === null) return 'not an object';
  const h = header as Partial<StoredHeader>;
  if (h.v !== VERSION) return `version ${String(h.v)}, expected ${VERSION}`;
  if (h.sent != null && typeof h.sent.subject !== 'string') return 'sent without a subject';
  if (typeof h.network !== 'number') return 'no network';
  if (!Array.isArray(h.domains) || h.domains.length % 2 !== 0) return 'no domain list';
  if (!Array.isArray(h.isps)) return 'no ISP list';
  if (!Number.isSafeInteger(h.n) || h.n! < 0) return 'no entry count';
  const kinds = h.kinds;
  if (
    !Array.isArray(kinds) ||
    kinds.length !== COLUMNS.length ||
    !kinds.every((k) => KINDS.includes(k))
  )
    return `not ${COLUMNS.length} known column kinds`;
  const expected = kinds.reduce((sum, kind) => sum + BYTES[kind] * h.n!, 0);
  if (columnBytes !== expected) return `${columnBytes} bytes of columns, expected ${expected}`;
  return undefined;
}

/** An entry whose domain or ISP is not in the lists. */
function indexProblem(listing: ListingColumns): string | undefined {
  const [domain, isp] = listing.columns as [ArrayLike<number>, ArrayLike<number>];
  const domainCount = listing.domains.length / 2;
  const ispCount = listing.isps.length;
  for (let i = 0; i < domain.length; i++) {
    const d = domain[i]!;
    const s = isp[i]!;
    if (!(
      Number.isInteger(d) &&
      d >= 0 &&
      d < domainCount &&
      Number.isInteger(s) &&
      s >= 0 &&
      s < ispCount
    ))
      return `entry ${i} names no stored domain or ISP`;
  }
  return undefined;
}

function unreadable(what: string, detail: string): ThmError {
  return new ThmError('THM_STORE', `${what} is unreadable (${detail})`);
}
