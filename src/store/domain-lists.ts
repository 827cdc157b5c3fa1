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
  version: number,
  items: readonly T[],
  domainOf: (item: T) => number,
  /** The domain's values before its list: its id, and its URL where the format has one. */
  head: (first: T) => string,
  /** One item's values, comma-separated JSON (`jsonString`, `jsonNumber`). */
  values: (item: T) => string,
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
  const out = new TextBuffer(64 + items.length * perItem, pool);
  out.add(`{"v":${version},"d":[`);
  for (let d = 0; d < order.length; d++) {
    const runs = runsOf.get(order[d]!)!;
    out.add(`${d === 0 ? '' : ','}[${head(items[runs[0]!]!)},[`);
    let first = true;
    for (let r = 0; r < runs.length; r += 2) {
      for (let i = runs[r]!; i < runs[r + 1]!; i++) {
        out.add(first ? values(items[i]!) : `,${values(items[i]!)}`);
        first = false;
      }
    }
    out.add(']]');
  }
  out.add(']}');
  return out.bytes();
}

/** A string as JSON.stringify writes it. */
export function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** Nothing JSON escapes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A number as JSON.stringify writes it (not finite: null). */
export function jsonNumber(value: number): string | number {
  return Number.isFinite(value) ? value : 'null';
}

/**
 * UTF-8 text gathered in a string of up to CHUNK characters, then written into a Buffer that
 * grows by doubling: small strings that die young, and one write per chunk.
 */
class TextBuffer {
  private buffer: Buffer;
  private length = 0;
  private chunk = '';

  constructor(
    estimate: number,
    private readonly pool: BufferPool | undefined,
  ) {
    this.buffer = pool ? pool.lease(estimate) : Buffer.allocUnsafe(estimate);
  }

  add(text: string): void {
    this.chunk += text;
    if (this.chunk.length >= CHUNK) this.flush();
  }

  bytes(): Buffer {
    this.flush();
    return this.buffer.subarray(0, this.length);
  }

  private flush(): void {
    const chunk = this.chunk;
    this.chunk = '';
    // At most 3 bytes per UTF-16 unit.
    if (this.length + chunk.length * 3 > this.buffer.length) {
      const grown = Buffer.allocUnsafe(
        Math.max(this.buffer.length * 2, this.length + chunk.length * 3),
      );
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(chunk, this.length, 'utf8');
  }
}

const CHUNK = 16 * 1024;

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
