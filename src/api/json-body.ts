/**
 * `JSON.parse` of a response body held in a Buffer, with large `{"entries":[...]}` bodies (the
 * isptrends list) read straight from their bytes when their entries are of the subset
 * entries-scan.ts reads (the API's are), else parsed in pieces of about PIECE_BYTES; either way
 * not as one string.
 *
 * Why: V8 puts every string over 128 KB in memory mapped for it alone, and unmaps it when the
 * string dies, so the kernel faults a large body's text in page by page on every run: for the
 * 14 MB body of 10,000 pairs that was ~40 ms on a virtual machine, more than `JSON.parse`
 * itself. Pieces of ~16 KB are young-generation strings, in memory V8 reuses. Decoding and
 * parsing a 10,000-pair body: 62 -> 22 ms, 3,450 page faults -> 0 (target P1,
 * docs/performance.md).
 *
 * Why it is the same value: the bytes between `[` and `]` of the entries array are cut at the
 * comma of a `},{"` (between two entries, as a rule), and each piece is parsed as an array of
 * its own. When every piece parses, each is a complete list of JSON values, and the array is
 * their concatenation, wherever the cuts fell; a cut anywhere else (inside a string or a nested
 * array) leaves a piece that does not parse. The envelope around the array is parsed apart,
 * with an empty array in its place. Anything unexpected (a body of another shape, a piece or
 * the envelope that does not parse, a key after the array that could be "entries" again) falls
 * back to parsing the body whole, which gives the value or the error `JSON.parse` always gave
 * (docs/api-notes.md).
 */

import { scanEntries } from './entries-scan.js';

/** Bodies this large or larger are parsed in pieces when they have the entries shape. */
export const PIECES_FROM_BYTES = 256 * 1024;
/**
 * A piece runs to the first cut point after this many bytes. Small enough that the pieces pack
 * V8's 256 KB young-generation pages closely: pieces of 64 KB left a fifth of each page unused,
 * which counted as ~30% more heap for the body's text at 50,000 pairs; 16 KB pieces ~3%
 * (target P6). Parsing takes the same time from 8 to 64 KB.
 */
const PIECE_BYTES = 16 * 1024;

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
/** Between two objects of an array: the cut is at the comma. */
const BETWEEN_OBJECTS = Buffer.from('},{"');
const ENTRIES_KEY = Buffer.from('"entries"');

/** The JSON value of `buffer`'s first `end` bytes (UTF-8); throws JSON.parse's SyntaxError. */
export function parseJsonBody(buffer: Buffer, end: number): unknown {
  if (end >= PIECES_FROM_BYTES) {
    const value = parseEntriesInPieces(buffer, end);
    if (value !== undefined) return value;
  }
  return JSON.parse(buffer.toString('utf8', 0, end));
}

/**
 * The body's value, its entries read by scanEntries or parsed in pieces, or undefined when
 * neither can vouch for it (see the top). Exported for the tests, which check which bodies take
 * this way.
 */
export function parseEntriesInPieces(buffer: Buffer, end: number): unknown {
  const open = entriesArrayStart(buffer, end);
  if (open < 0) return undefined;
  const close = buffer.lastIndexOf(CLOSE_BRACKET, end - 1);
  if (close <= open) return undefined;
  const tail = buffer.toString('utf8', close + 1, end);
  // A second "entries" key after the array would replace it (JSON.parse keeps the last), and
  // a key may be spelled with escapes: leave such a body to the whole parse.
  if (tail.includes('entries') || tail.includes('\\')) return undefined;
  const envelope = tryParse(`{"entries":[]${tail}`);
  if (!isEmptyEntries(envelope)) return undefined;
  const entries = scanEntries(buffer, open, close) ?? parsePieces(buffer, open, close);
  if (entries === undefined) return undefined;
  (envelope as { entries: unknown[] }).entries = entries;
  return envelope;
}

/**
 * The index of the `[` of a body that begins `{"entries":[` (whitespace allowed between the
 * tokens), or -1.
 */
function entriesArrayStart(buffer: Buffer, end: number): number {
  let at = skipSpace(buffer, 0, end);
  if (buffer[at] !== 0x7b) return -1;
  at = skipSpace(buffer, at + 1, end);
  if (buffer.compare(ENTRIES_KEY, 0, ENTRIES_KEY.length, at, at + ENTRIES_KEY.length) !== 0) {
    return -1;
  }
  at = skipSpace(buffer, at + ENTRIES_KEY.length, end);
  if (buffer[at] !== 0x3a) return -1;
  at = skipSpace(buffer, at + 1, end);
  return buffer[at] === OPEN_BRACKET ? at : -1;
}

function skipSpace(buffer: Buffer, at: number, end: number): number {
  while (at < end) {
    const byte = buffer[at];
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
    at += 1;
  }
  return at;
}

/**
 * The array between `open` (its `[`) and `close` (its `]`), parsed piece by piece, or
 * undefined when a piece does not parse. Each piece is decoded with a `[` and a `]` written
 * over the commas around it, and the commas are put back before anything else can read the
 * buffer.
 */
function parsePieces(buffer: Buffer, open: number, close: number): unknown[] | undefined {
  const entries: unknown[] = [];
  let start = open;
  while (start < close) {
    const cut = buffer.indexOf(BETWEEN_OBJECTS, start + PIECE_BYTES);
    /** The piece's last byte: the array's `]`, or the comma after a `}`. */
    const stop = cut < 0 || cut >= close ? close : cut + 1;
    if (start !== open) buffer[start] = OPEN_BRACKET;
    if (stop !== close) buffer[stop] = CLOSE_BRACKET;
    let piece: unknown;
    try {
      piece = tryParse(buffer.toString('utf8', start, stop + 1));
    } finally {
      if (start !== open) buffer[start] = COMMA;
      if (stop !== close) buffer[stop] = COMMA;
    }
    if (!Array.isArray(piece)) return undefined;
    for (let i = 0; i < piece.length; i++) entries.push(piece[i]);
    start = stop;
  }
  return entries;
}

/** JSON.parse, or undefined for text that is not JSON (never a JSON value: `null` is one). */
function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isEmptyEntries(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = (value as { entries?: unknown }).entries;
  return Array.isArray(entries) && entries.length === 0;
}
