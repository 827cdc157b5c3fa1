import type { BufferPool } from '../buffer-pool.js';
import { CLOSE, COMMA, JsonWriter, MINUS, OPEN, POINT, QUOTE, ZERO } from '../json-writer.js';

export { COMMA };

/**
 * The codecs' per-domain lists (active-codec.ts, runs-codec.ts), written and read back.
 *
 * Written as JSON text straight into a Buffer, a domain's items in their order, domains in the
 * order of their first item. Built as one string, the blob of a 10,000-pair history was a string
 * of ~750 KB, and its per-domain value lists arrays of as much again: V8 puts each such object
 * in memory mapped for it alone and unmapped when it dies, so every commit paid for its pages
 * again, in faults (~12 us a page here), and ioredis flattened the string and the socket copied
 * it once more (target P1, docs/performance.md). The Buffer's memory comes from malloc, which
 * reuses; the store's commit takes it from a pool of its own (src/buffer-pool.ts) and gives it
 * back once the command is done, so its pages are faulted in once, not at every commit. The text
 * is what JSON.stringify would write for the same value (the codecs' tests compare them).
 *
 * Items come grouped by domain as a rule (today's list in the API's order, then the pairs of the
 * history that are not in it, stored by domain), so the map is touched once per run of items of
 * one domain, not once per item. Any order is still correct.
 */
export function writeDomains(
  /** The codec's format: its version is written. */
  format: Pick<StoredFormat, 'version'>,
  /** Items 0 .. count - 1: a codec may take them from more than one list (by index). */
  count: number,
  domainOf: (item: number) => number,
  /** Writes the domain's values before its list: its id, and its URL where the format has one. */
  head: (first: number, out: JsonWriter) => void,
  /** Writes one item's values, comma-separated. */
  values: (item: number, out: JsonWriter) => void,
  /** Bytes an item takes, about: the first buffer's size. */
  perItem: number,
  /** Where the buffer comes from: a pool (the caller gives it back), or a fresh allocation. */
  pool?: BufferPool,
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
  const out = new JsonWriter(64 + count * perItem, pool);
  out.ascii('{"v":');
  out.number(format.version);
  out.ascii(',"d":[');
  for (let d = 0; d < order.length; d++) {
    const runs = runsOf.get(order[d]!)!;
    if (d > 0) out.byte(COMMA);
    out.byte(OPEN);
    head(runs[0]!, out);
    out.byte(COMMA);
    out.byte(OPEN);
    let first = true;
    for (let r = 0; r < runs.length; r += 2) {
      for (let i = runs[r]!; i < runs[r + 1]!; i++) {
        if (!first) out.byte(COMMA);
        values(i, out);
        first = false;
      }
    }
    out.byte(CLOSE);
    out.byte(CLOSE);
  }
  out.ascii(']}');
  return out.bytes();
}

export type Flat = (string | number)[];

/** A codec's stored format: {"v":version,"d":[[domainId,("domainUrl",)[...values]],...]}. */
export interface StoredFormat {
  version: number;
  /** Values per item: a string (the ISP), then numbers. */
  stride: number;
  /** Whether a domain stores its URL between its id and its values. */
  withUrl: boolean;
  /** The values' name in an error: "bad pair list". */
  list: string;
  corrupt: (detail: string) => Error;
}

/**
 * What reads a codec's items: `item` once per item, with its domain and its values at
 * `values[at]` .. `values[at + stride - 1]` (an array it must not keep). `begin` comes first, and
 * again if the blob has to be read a second time (see `readDomains`): what was gathered before it
 * is dropped.
 */
export interface ItemSink {
  begin(): void;
  item(domainId: number, url: string, values: Flat, at: number): void;
}

/**
 * A codec's blob read and checked whole (every domain's shape, every item's values): a reader
 * that only counts (`thm status`) still tells a damaged blob as a run would, and one that
 * decodes need not check again. Empty (null, '', no bytes) is no domains.
 *
 * The bytes as the store reads them are read directly (`readWritten`) when they are as
 * `writeDomains` writes them, with no array made for a domain's values and no string for the
 * blob: JSON.parse's arrays and the text were ~11 MiB of garbage for a 50,000-pair history
 * (target P6, docs/performance.md). Anything else (an escaped string, an exponent, a blob
 * written otherwise or damaged) is read again by JSON.parse, which has the last word on what
 * is JSON and says what is wrong.
 */
export function readDomains(
  blob: string | Buffer | null | undefined,
  format: StoredFormat,
  sink: ItemSink,
): void {
  sink.begin();
  if (blob === null || blob === undefined || blob.length === 0) return;
  if (typeof blob !== 'string') {
    if (readWritten(blob, format, sink)) return;
    sink.begin();
    blob = blob.toString('utf8');
  }
  for (const { id, url, flat } of parseDomains(blob, format)) {
    for (let i = 0; i < flat.length; i += format.stride) sink.item(id, url, flat, i);
  }
}

/**
 * A codec's items read into a list, one `toItem` result an item, in the stored order (a
 * second read, see `readDomains`, starts the list again).
 */
export function readItems<T>(
  blob: string | Buffer | null | undefined,
  format: StoredFormat,
  toItem: (domainId: number, url: string, values: Flat, at: number) => T,
): T[] {
  let items: T[] = [];
  readDomains(blob, format, {
    begin: () => {
      items = [];
    },
    item: (domainId, url, values, at) => {
      items.push(toItem(domainId, url, values, at));
    },
  });
  return items;
}

interface StoredDomain {
  id: number;
  /** '' when the format stores none. */
  url: string;
  flat: Flat;
}

/** The blob by JSON.parse, checked whole before any item is handed on. */
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
  if (
    doc === null ||
    typeof doc !== 'object' ||
    doc.v !== format.version ||
    !Array.isArray(doc.d)
  ) {
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

const BACKSLASH = 0x5c;
const BRACE_CLOSE = 0x7d;
const NINE = 0x39;
const E_LOWER = 0x65;
const E_UPPER = 0x45;
/** Powers of ten that are exact doubles: a mantissa of at most 15 digits over one is exact. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
const MAX_DIGITS = 15;

/**
 * The blob read as `writeDomains` writes it, byte by byte, each item handed to `sink` as it is
 * read. Returns false at the first byte it does not expect (the caller reads the blob again
 * with JSON.parse): whitespace, an escape in a string, a number with an exponent or more than 15
 * digits, a version not the format's, anything malformed. What it accepts is JSON, and reads
 * as JSON.parse reads it: a number of at most 15 digits over an exact power of ten is the
 * correctly rounded double (both are exact doubles, and IEEE division rounds correctly).
 */
function readWritten(bytes: Buffer, format: StoredFormat, sink: ItemSink): boolean {
  const cursor = new Cursor(bytes);
  if (!cursor.ascii('{"v":') || cursor.number() !== format.version) return false;
  if (!cursor.ascii(',"d":[')) return false;
  const values: Flat = Array.from({ length: format.stride }, () => 0);
  if (!cursor.byte(CLOSE)) {
    do {
      if (!cursor.byte(OPEN)) return false;
      const id = cursor.number();
      if (Number.isNaN(id) || !cursor.byte(COMMA)) return false;
      let url = '';
      if (format.withUrl) {
        const text = cursor.string();
        if (text === undefined || !cursor.byte(COMMA)) return false;
        url = text;
      }
      if (!cursor.byte(OPEN)) return false;
      if (!cursor.byte(CLOSE)) {
        do {
          const isp = cursor.string();
          if (isp === undefined) return false;
          values[0] = isp;
          for (let j = 1; j < format.stride; j++) {
            if (!cursor.byte(COMMA)) return false;
            const value = cursor.number();
            if (Number.isNaN(value)) return false;
            values[j] = value;
          }
          sink.item(id, url, values, 0);
        } while (cursor.byte(COMMA));
        if (!cursor.byte(CLOSE)) return false;
      }
      if (!cursor.byte(CLOSE)) return false;
    } while (cursor.byte(COMMA));
    if (!cursor.byte(CLOSE)) return false;
  }
  return cursor.byte(BRACE_CLOSE) && cursor.atEnd();
}

/** Short ASCII strings read from blobs, by a hash of their bytes (Cursor.string). */
const SHARED: string[] = Array.from({ length: 1024 }, () => '');
const SHARED_MAX_LENGTH = 64;

/** Whether `text` (ASCII) is the bytes from `start` on. */
function sameAscii(text: string, bytes: Buffer, start: number): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== bytes[start + i]) return false;
  }
  return true;
}

/** A position in the bytes of a blob; each read moves past what it read, or fails in place. */
class Cursor {
  private at = 0;

  constructor(private readonly bytes: Buffer) {}

  atEnd(): boolean {
    return this.at === this.bytes.length;
  }

  /** Whether the next byte is `value` (and moves past it). */
  byte(value: number): boolean {
    if (this.bytes[this.at] !== value) return false;
    this.at++;
    return true;
  }

  /** Whether the next bytes are `text` (ASCII). */
  ascii(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      if (this.bytes[this.at + i] !== text.charCodeAt(i)) return false;
    }
    this.at += text.length;
    return true;
  }

  /**
   * A string with no escape in it; undefined if there is none here, or one with an escape. A
   * short ASCII string read before (by any reader) is returned again, not made anew: the same
   * few dozen ISP names recur across a network's domains, and 50,000 copies of them were ~2 MiB
   * a run (target P6).
   */
  string(): string | undefined {
    const bytes = this.bytes;
    if (bytes[this.at] !== QUOTE) return undefined;
    const start = this.at + 1;
    let ascii = true;
    let hash = 0;
    let at = start;
    for (; at < bytes.length; at++) {
      const c = bytes[at]!;
      if (c === QUOTE) break;
      // An escape, or a control character JSON does not allow raw.
      if (c === BACKSLASH || c < 0x20) return undefined;
      if (c >= 0x80) ascii = false;
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    if (at === bytes.length) return undefined;
    this.at = at + 1;
    if (!ascii || at - start > SHARED_MAX_LENGTH) return bytes.toString('utf8', start, at);
    const slot = hash & (SHARED.length - 1);
    const known = SHARED[slot]!;
    if (known.length === at - start && sameAscii(known, bytes, start)) return known;
    return (SHARED[slot] = bytes.toString('latin1', start, at));
  }

  /** A number of at most 15 digits and no exponent; NaN if there is none such here. */
  number(): number {
    const bytes = this.bytes;
    let at = this.at;
    const negative = bytes[at] === MINUS;
    if (negative) at++;
    const first = at;
    let mantissa = 0;
    for (let c = bytes[at]; c !== undefined && c >= ZERO && c <= NINE; c = bytes[++at]) {
      mantissa = mantissa * 10 + (c - ZERO);
    }
    let digits = at - first;
    // None, or a leading zero (not JSON).
    if (digits === 0 || (digits > 1 && bytes[first] === ZERO)) return NaN;
    let scale = 0;
    if (bytes[at] === POINT) {
      const point = ++at;
      for (let c = bytes[at]; c !== undefined && c >= ZERO && c <= NINE; c = bytes[++at]) {
        mantissa = mantissa * 10 + (c - ZERO);
      }
      scale = at - point;
      if (scale === 0) return NaN;
      digits += scale;
    }
    if (digits > MAX_DIGITS || bytes[at] === E_LOWER || bytes[at] === E_UPPER) return NaN;
    this.at = at;
    const value = scale === 0 ? mantissa : mantissa / POWERS_OF_TEN[scale]!;
    return negative ? -value : value;
  }
}
