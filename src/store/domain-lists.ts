import { isoDateOfDay, type IsoDate } from '../dates.js';
import { BlobReader, BlobWriter } from './blob-bytes.js';

/**
 * The codecs' per-domain lists (active-codec.ts, runs-codec.ts), written and read back.
 *
 * Written in binary (version 2), with the bytes of store/blob-bytes.ts:
 *
 *   byte 0      0x00 (a version-1 blob is JSON, and begins with "{")
 *   byte 1      the version, 2
 *   bytes 2-5   where the string table begins (unsigned 32-bit, little-endian)
 *   then        the number of items (varint), so that a reader sizes its list once
 *   then        the number of domains (varint), and for each: its id (number), its URL (string,
 *               where the format has one), its number of items (varint), and its items: the
 *               index of the item's ISP in the string table (varint), then its other values
 *               (numbers; the format's `cents` value as hundredths)
 *   then        the string table: the number of strings (varint), then each string
 *
 * Domains in the order of their first item, a domain's items in their order. Each ISP name is
 * stored once a blob, however many domains have it, and a domain's id and URL once: a history
 * takes about a third of its JSON's bytes in Redis (docs/design.md, "The history blobs").
 *
 * Items come grouped by domain as a rule (today's list in the API's order, then the pairs of the
 * history that are not in it, stored by domain), so the map is touched once per run of items of
 * one domain, not once per item. Any order is still correct.
 */
export function writeDomains(
  /** The codec's format: whether a domain has a URL. */
  format: Pick<StoredFormat, 'withUrl'>,
  /** Items 0 .. count - 1: a codec may take them from more than one list (by index). */
  count: number,
  domainOf: (item: number) => number,
  /** The URL of the domain whose first item this is (where the format has one). */
  urlOf: (first: number) => string,
  /** Writes one item's values: its ISP, then its numbers. */
  values: (item: number, out: ItemWriter) => void,
  /** Bytes an item takes, about: the first buffer's size. */
  perItem: number,
): Buffer {
  // Each domain's runs of consecutive items, as [start, end) pairs.
  const runsOf = new Map<number, number[]>();
  const order: number[] = [];
  for (let i = 0; i < count;) {
    const id = domainOf(i);
    let end = i + 1;
    while (end < count && domainOf(end) === id) end++;
    const runs = runsOf.get(id);
    if (runs === undefined) {
      runsOf.set(id, [i, end]);
      order.push(id);
    } else runs.push(i, end);
    i = end;
  }
  const out = new ItemWriter(64 + count * perItem);
  out.byte(0);
  out.byte(VERSION);
  const tableOffset = out.length;
  for (let i = 0; i < 4; i++) out.byte(0);
  out.varint(count);
  out.varint(order.length);
  for (const id of order) {
    const runs = runsOf.get(id)!;
    out.number(id);
    if (format.withUrl) out.string(urlOf(runs[0]!));
    let size = 0;
    for (let r = 0; r < runs.length; r += 2) size += runs[r + 1]! - runs[r]!;
    out.varint(size);
    for (let r = 0; r < runs.length; r += 2) {
      for (let i = runs[r]!; i < runs[r + 1]!; i++) values(i, out);
    }
  }
  out.patchUint32(tableOffset, out.length);
  out.varint(out.names.length);
  for (const name of out.names) out.string(name);
  return out.bytes();
}

/** What a codec writes an item's values with: its ISP (by its index in the string table), then numbers. */
export class ItemWriter extends BlobWriter {
  /** The string table, in the order of first use. */
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();

  isp(name: string): void {
    let index = this.index.get(name);
    if (index === undefined) {
      index = this.names.length;
      this.index.set(name, index);
      this.names.push(name);
    }
    this.varint(index);
  }
}

const VERSION = 2;
/** The header's fixed part: 0x00, the version, and the string table's offset. */
const HEADER = 6;

export type Flat = (string | number)[];

/**
 * A codec's stored format: the binary one above, or (as written by earlier versions, still
 * read) version 1, JSON: {"v":1,"d":[[domainId,("domainUrl",)[...values]],...]}, with the
 * `cents` value as a decimal.
 */
export interface StoredFormat {
  /** Values per item: a string (the ISP), then numbers. */
  stride: number;
  /** Whether a domain stores its URL between its id and its values. */
  withUrl: boolean;
  /** The value stored in hundredths in the binary format (a percentage to 2 decimals). */
  cents?: number;
  /** The values' name in an error: "bad pair list". */
  list: string;
  corrupt: (detail: string) => Error;
}

/**
 * What reads a codec's items: called once per item, with its domain and its values at
 * `values[at]` .. `values[at + stride - 1]` (an array it must not keep).
 */
export type ItemSink = (domainId: number, url: string, values: Flat, at: number) => void;

/** Told how many items a blob holds, before the first is handed on. */
export type SizeSink = (items: number) => void;

/**
 * A codec's blob read and checked whole (every domain's shape, every item's values): a reader
 * that only counts (`thm status`) still tells a damaged blob as a run would. Empty (null, '', no
 * bytes) is no domains. Items are handed on as they are read; a damaged blob throws the format's
 * error part-way, so a reader must not keep what it was handed before a throw.
 *
 * The binary format is read from the bytes as Redis returns them, with no string made for the
 * blob and no array for a domain's values. A blob of version 1 (JSON, from an earlier version of
 * the monitor; the next commit writes it again in binary) is read by JSON.parse.
 */
export function readDomains(
  blob: string | Buffer | null | undefined,
  format: StoredFormat,
  sink: ItemSink,
  size: SizeSink = () => {},
): void {
  if (blob === null || blob === undefined || blob.length === 0) return;
  if (typeof blob !== 'string') {
    if (blob[0] === 0) {
      readBinary(blob, format, sink, size);
      return;
    }
    blob = blob.toString('utf8');
  }
  const domains = parseDomains(blob, format);
  size(domains.reduce((sum, d) => sum + d.flat.length / format.stride, 0));
  for (const { id, url, flat } of domains) {
    for (let i = 0; i < flat.length; i += format.stride) sink(id, url, flat, i);
  }
}

/** The last day a stored date may be: 9999-12-31. */
const LAST_DAY = 2_932_896;

/** A stored day number's date; a number that is no day of years 1970 - 9999 is damage. */
export function storedDate(day: number, format: StoredFormat): IsoDate {
  if (!(day >= 0 && day <= LAST_DAY && Number.isInteger(day))) throw format.corrupt('bad date');
  return isoDateOfDay(day);
}

/** A codec's items read into a list, one `toItem` result an item, in the stored order. */
export function readItems<T>(
  blob: string | Buffer | null | undefined,
  format: StoredFormat,
  toItem: (domainId: number, url: string, values: Flat, at: number) => T,
): T[] {
  let items: T[] = [];
  let next = 0;
  readDomains(
    blob,
    format,
    (domainId, url, values, at) => {
      items[next++] = toItem(domainId, url, values, at);
    },
    (count) => {
      items = new Array<T>(count);
    },
  );
  return items;
}

/** The binary format (see `writeDomains`). */
function readBinary(bytes: Buffer, format: StoredFormat, sink: ItemSink, size: SizeSink): void {
  const { corrupt, stride, cents } = format;
  if (bytes.length < HEADER) throw corrupt('truncated');
  if (bytes[1] !== VERSION) throw corrupt('unknown version');
  const tableAt = bytes.readUInt32LE(2);
  if (tableAt < HEADER || tableAt > bytes.length) throw corrupt('truncated');
  const names = readNames(new BlobReader(bytes, tableAt, bytes.length), corrupt);
  const r = new BlobReader(bytes, HEADER, tableAt);
  const values: Flat = Array.from({ length: stride }, () => 0);
  // Each item takes at least `stride` bytes, each domain at least 2 (its id and its count): a
  // count above what the bytes could hold is damage, found before anything is sized by it.
  const items = r.varint();
  const domains = r.varint();
  if (r.damaged || items * stride > r.end - r.at || domains * 2 > r.end - r.at) {
    throw corrupt('bad domain');
  }
  size(items);
  let left = items;
  for (let d = 0; d < domains; d++) {
    const id = r.number();
    const url = format.withUrl ? r.string() : '';
    const count = r.varint();
    if (r.damaged || count > left) throw corrupt('bad domain');
    left -= count;
    for (let i = 0; i < count; i++) {
      const isp = names[r.varint()];
      if (isp === undefined) throw corrupt('bad ISP');
      values[0] = isp;
      for (let j = 1; j < stride; j++) values[j] = r.number();
      if (r.damaged) throw corrupt('bad number');
      if (cents !== undefined) values[cents] = (values[cents] as number) / 100;
      sink(id, url, values, 0);
    }
  }
  if (left !== 0 || !r.atEnd()) throw corrupt('bad domain');
}

/** The string table, read whole: it must end where the blob ends. */
function readNames(r: BlobReader, corrupt: StoredFormat['corrupt']): string[] {
  const count = r.varint();
  if (r.damaged || count > r.end - r.at) throw corrupt('bad string table');
  const names: string[] = new Array<string>(count);
  for (let i = 0; i < count; i++) names[i] = r.string();
  if (r.damaged || !r.atEnd()) throw corrupt('bad string table');
  return names;
}

interface StoredDomain {
  id: number;
  /** '' when the format stores none. */
  url: string;
  flat: Flat;
}

/** A version-1 blob by JSON.parse, checked whole before any item is handed on. */
function parseDomains(blob: string, format: StoredFormat): StoredDomain[] {
  const domains: StoredDomain[] = [];
  const { corrupt, stride } = format;
  let parsed: unknown;
  try {
    parsed = JSON.parse(blob);
  } catch {
    throw corrupt('not JSON');
  }
  const doc = parsed as { v?: unknown; d?: unknown };
  if (doc === null || typeof doc !== 'object' || doc.v !== 1 || !Array.isArray(doc.d)) {
    throw corrupt('unknown version');
  }
  for (const domain of doc.d as unknown[]) {
    if (!Array.isArray(domain) || domain.length !== (format.withUrl ? 3 : 2)) {
      throw corrupt('bad domain');
    }
    const id: unknown = domain[0];
    const url: unknown = format.withUrl ? domain[1] : '';
    const flat: unknown = domain[domain.length - 1];
    if (typeof id !== 'number' || typeof url !== 'string' || !Array.isArray(flat)) {
      throw corrupt('bad domain');
    }
    if (flat.length % stride !== 0) throw corrupt(`bad ${format.list}`);
    for (let i = 0; i < flat.length; i += stride) {
      if (typeof flat[i] !== 'string') throw corrupt('bad ISP');
      for (let j = 1; j < stride; j++) {
        if (typeof flat[i + j] !== 'number') throw corrupt('bad number');
      }
    }
    domains.push({ id, url, flat: flat as Flat });
  }
  return domains;
}
