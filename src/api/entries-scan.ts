/**
 * The entries of a large `{"entries":[...]}` body read straight from its bytes, for the
 * isptrends list (target P1, docs/performance.md, "Reading the entries from the bytes").
 *
 * Why: `JSON.parse` reads each entry's 33 keys as text and looks each up, and it is most of a
 * traffic-check's time (40 ms of 14 MB at 10,000 pairs). Every entry of the list has the same
 * keys in the same order, so this reader learns an entry's keys once (its shape), then for each
 * entry compares the key bytes with the shape's, eight bytes at a time (see Shape), reads the
 * values, and builds the object with a literal generated for the shape: ~8 ms for the same body
 * where `JSON.parse` took ~20 on the same machine.
 *
 * Why it is the same value: it accepts only a narrow, exactly specified subset of JSON, and
 * gives up (undefined) at anything else, and the caller then parses as before
 * (src/api/json-body.ts), which gives the value or the error `JSON.parse` gives:
 * - entries are objects whose keys are identifier-like ASCII (`[A-Za-z_][A-Za-z0-9_]*`, not
 *   `__proto__`, no repeats): such keys are safe to write into generated code as they are,
 *   their order is their insertion order, and their bytes are their text;
 * - values are numbers, strings without escapes or control characters, true, false, null, or
 *   such objects (nested at most MAX_DEPTH deep); an array anywhere gives up;
 * - no whitespace between tokens.
 * Numbers follow JSON's grammar exactly. One of at most 15 significant digits and no exponent
 * is an integer below 2^53 divided by a power of ten up to 10^15, both exact in a double, so
 * the one rounded division gives the correctly rounded value, as `JSON.parse` does; any other
 * number is read by `Number()` of its text, V8's same conversion. Strings are decoded from
 * UTF-8 as `Buffer#toString` decodes the whole body (a string's bounds are ASCII quotes, where
 * a decoder always resynchronises).
 */

/** Objects nested deeper than this give up (the entries' `relationship` is at depth 1). */
const MAX_DEPTH = 4;
/**
 * Shapes remembered between bodies (the API sends one); when full, they are forgotten and
 * learned again, so memory stays bounded and no body is shut out for good.
 */
const MAX_SHAPES = 64;
/** Shapes one body may add (each compiles a function); past this, the body gives up. */
const MAX_NEW_SHAPES_PER_BODY = 8;
/** Keys of one object; more give up. */
const MAX_KEYS = 256;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** 10^0 .. 10^15, exact in a double. */
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** What a read returns when the bytes are outside the subset above. */
const GIVE_UP = Symbol('give up');
type Read = unknown;

/**
 * The keys of one kind of object, as bytes to compare and as a literal to build it with. Key k's
 * part is `"key":` (after a comma but for the first key), at least 4 bytes (a key has a
 * character), all of it ASCII from `"`, `:`, `,` and KEY's characters.
 *
 * A part of 8 bytes or more is compared 8 bytes at a time, as little-endian doubles: its whole
 * 8-byte words from its start, then, when its length is not a multiple of 8, the 8 bytes that
 * end where it ends (overlapping the last whole word), so every byte is compared and none a byte
 * at a time. Comparing doubles is comparing bits here: a double is NaN or infinite only when its
 * top byte's low 7 bits are all set (0x7f or 0xff, neither in a part), and zero only when it has
 * no set bit besides the sign (a part has no 0x00 byte), so an expected word is a finite, nonzero
 * double, and only the same 64 bits compare equal to it. A shorter part is compared as its first
 * and its last 4 bytes (overlapping).
 */
interface Shape {
  /** Key k's part's length in bytes. */
  lengths: Int32Array;
  /**
   * The whole 8-byte words of the parts of 8 bytes or more, key by key; key k's from
   * wordStarts[k].
   */
  words: Float64Array;
  wordStarts: Int32Array;
  /**
   * Per key, two entries: for a part of 8 bytes or more, its last 8 bytes as a double (0 when
   * its length is a multiple of 8) and 0; for a shorter one, its first and its last 4 bytes.
   */
  ends: Float64Array;
  /** The shape of key k's value when it is an object, as first seen. */
  nested: Array<Shape | undefined>;
  /** The last string read at key k (see readString). */
  strings: Array<string | undefined>;
  build: (values: unknown[]) => object;
}

const shapes = new Map<string, Shape>();

/**
 * Entries read by the general reader (a shape not yet known, or not the one before) and by the
 * shape's fast path, since the process started; the tests check which path a list takes.
 */
export const scanCounts = { learned: 0, fast: 0 };

/** The shape of the last entry read: the next body's first entry is tried with it. */
let lastEntryShape: Shape | undefined;

/**
 * The remembered shape of these keys (`id`: the keys joined by commas), with the nested shapes
 * it lacked; or undefined.
 */
function knownShape(id: string, nested: ReadonlyArray<Shape | undefined>): Shape | undefined {
  const known = shapes.get(id);
  if (known) for (let k = 0; k < nested.length; k += 1) known.nested[k] ??= nested[k];
  return known;
}

function newShape(
  id: string,
  keys: readonly string[],
  nested: ReadonlyArray<Shape | undefined>,
): Shape {
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  const parts = keys.map((key, k) => Buffer.from(`${k === 0 ? '' : ','}"${key}":`, 'latin1'));
  const words: number[] = [];
  const lengths = new Int32Array(keys.length);
  const wordStarts = new Int32Array(keys.length + 1);
  const ends = new Float64Array(2 * keys.length);
  parts.forEach((part, k) => {
    wordStarts[k] = words.length;
    const length = part.length;
    lengths[k] = length;
    if (length >= 8) {
      for (let w = 0; w + 8 <= length; w += 8) words.push(part.readDoubleLE(w));
      if (length % 8 !== 0) ends[2 * k] = part.readDoubleLE(length - 8);
    } else {
      ends[2 * k] = part.readUInt32LE(0);
      ends[2 * k + 1] = part.readUInt32LE(length - 4);
    }
  });
  wordStarts[keys.length] = words.length;
  // The keys matched KEY, so each is its own JSON string literal; values come in by index.
  const literal = keys.map((key, k) => `${JSON.stringify(key)}:v[${k}]`).join(',');
  const shape: Shape = {
    lengths,
    words: Float64Array.from(words),
    wordStarts,
    ends,
    nested: [...nested],
    strings: keys.map(() => undefined),
    build: new Function('v', `return {${literal}};`) as Shape['build'],
  };
  shapes.set(id, shape);
  return shape;
}

/**
 * The array of entries between `open` (its `[`) and `close` (its `]`) of `buffer`, or undefined
 * when the bytes are outside the subset this reader takes (see the top).
 */
export function scanEntries(buffer: Buffer, open: number, close: number): unknown[] | undefined {
  return new Scanner(buffer, close).entries(open);
}

class Scanner {
  private pos = 0;
  private readonly view: DataView;
  /** One array of values per depth, reused: an object is built before its parent is. */
  private readonly values: unknown[][] = Array.from({ length: MAX_DEPTH + 1 }, () => []);
  /** The shape of the object readObject last read. */
  private lastShape: Shape | undefined;
  /** Shapes this body has added. */
  private added = 0;

  constructor(
    private readonly b: Buffer,
    /** The array's `]`: nothing at or after it is read as part of an entry. */
    private readonly end: number,
  ) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }

  entries(open: number): unknown[] | undefined {
    const { b, end } = this;
    const out: unknown[] = [];
    this.pos = open + 1;
    if (this.pos === end) return out;
    let shape = lastEntryShape;
    for (;;) {
      const start = this.pos;
      let entry = shape ? this.scanObject(shape, 0) : GIVE_UP;
      if (entry !== GIVE_UP) scanCounts.fast += 1;
      else {
        scanCounts.learned += 1;
        // Not the shape of the entry before: learn this one's.
        this.pos = start;
        entry = this.readObject(0);
        if (entry === GIVE_UP) return undefined;
        shape = this.lastShape;
      }
      out.push(entry);
      const next = b[this.pos];
      if (next === COMMA) {
        this.pos += 1;
        continue;
      }
      lastEntryShape = shape;
      return this.pos === end ? out : undefined;
    }
  }

  /** An object of `shape` (its keys in its order, nothing else), or GIVE_UP. */
  private scanObject(shape: Shape, depth: number): Read {
    const { b, view, end } = this;
    if (b[this.pos] !== OPEN_BRACE) return GIVE_UP;
    let pos = this.pos + 1;
    const { lengths, words, wordStarts, ends, nested, strings } = shape;
    const values = this.values[depth]!;
    const count = lengths.length;
    for (let k = 0; k < count; k += 1) {
      const length = lengths[k]!;
      if (pos + length > end) return GIVE_UP;
      if (length >= 8) {
        // The whole words, two to an iteration (the API's keys are 4 - 6 words long), then
        // the last 8 bytes.
        const last = wordStarts[k + 1]!;
        let w = wordStarts[k]!;
        let at = pos;
        for (; w + 1 < last; w += 2, at += 16) {
          if (
            view.getFloat64(at, true) !== words[w] ||
            view.getFloat64(at + 8, true) !== words[w + 1]
          ) {
            return GIVE_UP;
          }
        }
        if (w < last && view.getFloat64(at, true) !== words[w]) return GIVE_UP;
        if ((length & 7) !== 0 && view.getFloat64(pos + length - 8, true) !== ends[2 * k]) {
          return GIVE_UP;
        }
      } else if (
        view.getUint32(pos, true) !== ends[2 * k] ||
        view.getUint32(pos + length - 4, true) !== ends[2 * k + 1]
      ) {
        return GIVE_UP;
      }
      pos += length;
      this.pos = pos;
      let value: Read;
      const c = b[pos];
      if (c === QUOTE) {
        value = this.readString(strings[k]);
        if (value !== GIVE_UP) strings[k] = value as string;
      } else if (c === OPEN_BRACE) {
        const inner = nested[k];
        if (inner === undefined || depth === MAX_DEPTH) return GIVE_UP;
        value = this.scanObject(inner, depth + 1);
      } else {
        value = this.readScalar();
      }
      if (value === GIVE_UP) return GIVE_UP;
      values[k] = value;
      pos = this.pos;
    }
    if (b[pos] !== CLOSE_BRACE) return GIVE_UP;
    this.pos = pos + 1;
    return shape.build(values);
  }

  /** An object of any keys in the subset, learning (or finding) its shape; or GIVE_UP. */
  private readObject(depth: number): Read {
    const { b, end } = this;
    if (b[this.pos] !== OPEN_BRACE) return GIVE_UP;
    this.pos += 1;
    const keys: string[] = [];
    const values: unknown[] = [];
    const nested: Array<Shape | undefined> = [];
    if (b[this.pos] !== CLOSE_BRACE) {
      for (;;) {
        const key = b[this.pos] === QUOTE ? this.readString() : GIVE_UP;
        if (typeof key !== 'string' || !KEY.test(key) || key === '__proto__') return GIVE_UP;
        if (keys.includes(key) || keys.length === MAX_KEYS) return GIVE_UP;
        if (b[this.pos] !== COLON) return GIVE_UP;
        this.pos += 1;
        let value: Read;
        let shape: Shape | undefined;
        if (b[this.pos] === OPEN_BRACE) {
          if (depth === MAX_DEPTH) return GIVE_UP;
          value = this.readObject(depth + 1);
          shape = this.lastShape;
        } else {
          value = this.readScalar();
        }
        if (value === GIVE_UP) return GIVE_UP;
        keys.push(key);
        values.push(value);
        nested.push(shape);
        if (b[this.pos] === COMMA) this.pos += 1;
        else break;
      }
    }
    if (this.pos >= end || b[this.pos] !== CLOSE_BRACE) return GIVE_UP;
    this.pos += 1;
    const id = keys.join(',');
    let shape = knownShape(id, nested);
    if (!shape) {
      if (this.added === MAX_NEW_SHAPES_PER_BODY) return GIVE_UP;
      this.added += 1;
      shape = newShape(id, keys, nested);
    }
    this.lastShape = shape;
    return shape.build(values);
  }

  /** A string, number, true, false or null at `pos`; or GIVE_UP. */
  private readScalar(): Read {
    const c = this.b[this.pos];
    if (c === QUOTE) return this.readString();
    if (c === MINUS || (c !== undefined && c >= ZERO && c <= NINE)) return this.readNumber();
    if (c === 0x6e) return this.literal('null', null);
    if (c === 0x74) return this.literal('true', true);
    if (c === 0x66) return this.literal('false', false);
    return GIVE_UP;
  }

  private literal(text: string, value: unknown): Read {
    const { b, end } = this;
    const at = this.pos;
    if (at + text.length > end) return GIVE_UP;
    for (let i = 1; i < text.length; i += 1) {
      if (b[at + i] !== text.charCodeAt(i)) return GIVE_UP;
    }
    this.pos = at + text.length;
    return value;
  }

  /**
   * A string without escapes or control characters, its quotes included; or GIVE_UP. When its
   * bytes are all ASCII and spell `previous` (the last string read at the same key of the same
   * shape), that string is handed back instead of a new one: a network's tracking URLs and
   * ISP names recur from entry to entry. (Only ASCII: a byte of 0x80 or more is not its own
   * character in UTF-8.)
   */
  private readString(previous?: string): Read {
    const { b, end } = this;
    const start = this.pos + 1;
    let ascii = true;
    let same = previous !== undefined;
    let i = start;
    for (;;) {
      if (i >= end) return GIVE_UP;
      const c = b[i]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH || c < 0x20) return GIVE_UP;
      if (c >= 0x80) ascii = false;
      else if (same && previous!.charCodeAt(i - start) !== c) same = false;
      i += 1;
    }
    this.pos = i + 1;
    if (same && ascii && i - start === previous!.length) return previous;
    return b.toString(ascii ? 'latin1' : 'utf8', start, i);
  }

  /** A number of JSON's grammar (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`); or GIVE_UP. */
  private readNumber(): Read {
    const b = this.b;
    const start = this.pos;
    let i = start;
    const negative = b[i] === MINUS;
    if (negative) i += 1;
    let c = b[i];
    let mantissa = 0;
    let digits = 0;
    if (c === ZERO) {
      i += 1;
      c = b[i];
      digits = 1;
      if (c !== undefined && c >= ZERO && c <= NINE) return GIVE_UP;
    } else {
      while (c !== undefined && c >= ZERO && c <= NINE) {
        mantissa = mantissa * 10 + (c - ZERO);
        digits += 1;
        i += 1;
        c = b[i];
      }
      if (digits === 0) return GIVE_UP;
    }
    let fraction = 0;
    if (c === DOT) {
      i += 1;
      c = b[i];
      const from = i;
      while (c !== undefined && c >= ZERO && c <= NINE) {
        mantissa = mantissa * 10 + (c - ZERO);
        digits += 1;
        i += 1;
        c = b[i];
      }
      fraction = i - from;
      if (fraction === 0) return GIVE_UP;
    }
    if (c === 0x65 || c === 0x45) return this.readExponent(start, i + 1);
    this.pos = i;
    // Leading zeros of a fraction count as digits here: fewer may still be exact, never more.
    if (digits > 15) return Number(b.toString('latin1', start, i));
    const value = fraction === 0 ? mantissa : mantissa / POW10[fraction]!;
    return negative ? -value : value;
  }

  /** The rest of a number from just after its `e` (rare: kept apart so readNumber is small). */
  private readExponent(start: number, at: number): Read {
    const b = this.b;
    let i = at;
    let c = b[i];
    if (c === 0x2b || c === MINUS) {
      i += 1;
      c = b[i];
    }
    const from = i;
    while (c !== undefined && c >= ZERO && c <= NINE) {
      i += 1;
      c = b[i];
    }
    if (i === from) return GIVE_UP;
    this.pos = i;
    return Number(b.toString('latin1', start, i));
  }
}
