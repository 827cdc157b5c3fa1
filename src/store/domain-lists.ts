import type { BufferPool } from '../buffer-pool.js';

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
export function writeDomains<T>(
  /** The codec's format: its version is written. */
  format: Pick<StoredFormat, 'version'>,
  items: readonly T[],
  domainOf: (item: T) => number,
  /** Writes the domain's values before its list: its id, and its URL where the format has one. */
  head: (first: T, out: JsonWriter) => void,
  /** Writes one item's values, comma-separated. */
  values: (item: T, out: JsonWriter) => void,
  /** Bytes an item takes, about: the first buffer's size. */
  perItem: number,
  /** Where the buffer comes from: a pool (the caller gives it back), or a fresh allocation. */
  pool?: BufferPool,
): Buffer {
  // Each domain's runs of consecutive items, as [start, end) pairs.
  const runsOf = new Map<number, number[]>();
  const order: number[] = [];
  for (let i = 0; i < items.length;) {
    const id = domainOf(items[i]!);
    let end = i + 1;
    while (end < items.length && domainOf(items[end]!) === id) end++;
    const runs = runsOf.get(id);
    if (runs === undefined) {
      runsOf.set(id, [i, end]);
      order.push(id);
    } else runs.push(i, end);
    i = end;
  }
  const out = new JsonWriter(64 + items.length * perItem, pool);
  out.ascii('{"v":');
  out.number(format.version);
  out.ascii(',"d":[');
  for (let d = 0; d < order.length; d++) {
    const runs = runsOf.get(order[d]!)!;
    if (d > 0) out.byte(COMMA);
    out.byte(OPEN);
    head(items[runs[0]!]!, out);
    out.byte(COMMA);
    out.byte(OPEN);
    let first = true;
    for (let r = 0; r < runs.length; r += 2) {
      for (let i = runs[r]!; i < runs[r + 1]!; i++) {
        if (!first) out.byte(COMMA);
        values(items[i]!, out);
        first = false;
      }
    }
    out.byte(CLOSE);
    out.byte(CLOSE);
  }
  out.ascii(']}');
  return out.bytes();
}

/** A comma, for the codecs to write between values. */
export const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const QUOTE = 0x22;
const ZERO = 0x30;

/** Nothing JSON escapes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * JSON values written as UTF-8 into a Buffer that grows by doubling, each as JSON.stringify
 * writes it, with no string made for a value but a non-integer number's or an escaped string's:
 * the 50,000 values of a 10,000-pair history were 500,000 small strings of garbage (target P6).
 */
export class JsonWriter {
  private buffer: Buffer;
  private at = 0;

  constructor(
    estimate: number,
    private readonly pool: BufferPool | undefined,
  ) {
    this.buffer = pool ? pool.lease(estimate) : Buffer.allocUnsafe(estimate);
  }

  byte(value: number): void {
    if (this.at === this.buffer.length) this.room(1);
    this.buffer[this.at++] = value;
  }

  /** Text known to be ASCII and to need no escape (punctuation, a number's digits). */
  ascii(text: string): void {
    this.room(text.length);
    this.at += this.buffer.write(text, this.at, 'latin1');
  }

  /** A comma, then `value`: the next number of an item's values. */
  next(value: number): void {
    this.byte(COMMA);
    this.number(value);
  }

  number(value: number): void {
    if (!Number.isSafeInteger(value)) {
      this.ascii(Number.isFinite(value) ? String(value) : 'null');
      return;
    }
    this.room(17);
    const buffer = this.buffer;
    // -0 is written 0, as JSON.stringify writes it.
    if (value < 0) {
      buffer[this.at++] = 0x2d;
      value = -value;
    }
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let at = (this.at += digits);
    do {
      const next = Math.floor(value / 10);
      buffer[--at] = ZERO + value - next * 10;
      value = next;
    } while (value > 0);
  }

  string(value: string): void {
    if (!PLAIN.test(value)) {
      // Escaped: ASCII but for the characters JSON keeps as they are.
      const json = JSON.stringify(value);
      this.room(json.length * 3);
      this.at += this.buffer.write(json, this.at, 'utf8');
      return;
    }
    this.room(value.length * 3 + 2);
    this.buffer[this.at++] = QUOTE;
    this.at += this.buffer.write(value, this.at, 'utf8');
    this.buffer[this.at++] = QUOTE;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  /** Makes room for `bytes` more. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const size = Math.max(this.buffer.length * 2, this.at + bytes);
    const grown = this.pool ? this.pool.lease(size) : Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.at);
    this.pool?.release(this.buffer);
    this.buffer = grown;
  }
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

export interface StoredDomain {
  id: number;
  /** '' when the format stores none. */
  url: string;
  flat: Flat;
}

/**
 * A codec's blob parsed and checked whole (every domain's shape, every item's values): a
 * reader that only counts (`thm status`) still tells a damaged blob as a run would, and one
 * that decodes need not check again. Empty (null, '') is no domains.
 */
export function readDomains(blob: string | null | undefined, format: StoredFormat): StoredDomain[] {
  const domains: StoredDomain[] = [];
  if (blob === null || blob === undefined || blob === '') return domains;
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
