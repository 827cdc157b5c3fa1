import type { BufferPool } from './buffer-pool.js';

/** JSON's punctuation, as bytes: for writers of lists, and the store's reader of them. */
export const COMMA = 0x2c;
export const OPEN = 0x5b;
export const CLOSE = 0x5d;
export const NEWLINE = 0x0a;
export const QUOTE = 0x22;
export const MINUS = 0x2d;
export const POINT = 0x2e;
export const ZERO = 0x30;
const BACKSLASH = 0x5c;
const MAX_INT32 = 0x7fffffff;

/** Decimal digits of a non-negative 32-bit integer. */
function digitsOf(value: number): number {
  if (value < 10_000) return value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : 4;
  if (value < 100_000_000)
    return value < 100_000 ? 5 : value < 1_000_000 ? 6 : value < 10_000_000 ? 7 : 8;
  return value < 1_000_000_000 ? 9 : 10;
}

/** Strings up to this long are tried as printable ASCII first (`string`). */
const SHORT = 64;

/** Nothing JSON escapes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * JSON values written as UTF-8 into a Buffer that grows by doubling, each as JSON.stringify
 * writes it, with no string made for a value but a non-integer number's or an escaped string's:
 * the 50,000 values of a 10,000-pair history were 500,000 small strings of garbage (target P6).
 * The store's blobs (store/domain-lists.ts), the sent-events record and the notification id's
 * hashed text (notify/notification.ts) are written with it.
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
      // A number of cents (a rounded percentage) is written with no string made for it.
      const cents = Math.round(value * 100);
      if (cents / 100 === value) this.cents(cents);
      else this.asText(value);
      return;
    }
    this.room(17);
    const buffer = this.buffer;
    // -0 is written 0, as JSON.stringify writes it.
    if (value < 0) {
      buffer[this.at++] = MINUS;
      value = -value;
    }
    if (value <= MAX_INT32) {
      // Most values (days, clicks, ids): digits counted and taken in 32-bit integer arithmetic.
      let small = value | 0;
      let at = (this.at += digitsOf(small));
      do {
        const next = (small / 10) | 0;
        buffer[--at] = ZERO + (small - next * 10);
        small = next;
      } while (small > 0);
      return;
    }
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let at = (this.at += digits);
    do {
      const next = Math.floor(value / 10);
      buffer[--at] = ZERO + (value - next * 10);
      value = next;
    } while (value > 0);
  }

  /**
   * `hundredths / 100`, as JSON.stringify writes it: the integer part, a point and the cents
   * without a trailing zero. That is the shortest text that reads back as the same double when
   * it has at most 15 digits (no two such decimals share a double), as JavaScript's own
   * number-to-text chooses; longer ones are written by String().
   */
  cents(hundredths: number): void {
    const value = hundredths / 100;
    if (Number.isSafeInteger(value)) {
      this.number(value);
      return;
    }
    if (!(Math.abs(hundredths) < 1e15)) {
      this.asText(value);
      return;
    }
    let rest = Math.abs(hundredths);
    if (hundredths < 0) this.byte(MINUS);
    const whole = Math.floor(rest / 100);
    rest -= whole * 100;
    this.number(whole);
    this.room(3);
    this.buffer[this.at++] = POINT;
    const tens = Math.floor(rest / 10);
    this.buffer[this.at++] = ZERO + tens;
    if (rest !== tens * 10) this.buffer[this.at++] = ZERO + (rest - tens * 10);
  }

  string(value: string): void {
    // Short printable ASCII (an ISP name, a date, an event), the most common case: copied a
    // character at a time, cheaper than the test and the native write below for a few dozen.
    if (value.length <= SHORT) {
      this.room(value.length + 2);
      const buffer = this.buffer;
      let at = this.at;
      buffer[at++] = QUOTE;
      let i = 0;
      for (; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) break;
        buffer[at++] = c;
      }
      if (i === value.length) {
        buffer[at++] = QUOTE;
        this.at = at;
        return;
      }
      // Anything else: written again below, over what was copied.
    }
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

  /** Bytes written so far. */
  get length(): number {
    return this.at;
  }

  /** Hands what is written to `consume` (which must not keep it) and starts again, empty. */
  drain(consume: (bytes: Buffer) => void): void {
    consume(this.buffer.subarray(0, this.at));
    this.at = 0;
  }

  /** A number by String(), as JSON.stringify writes it (null when not finite). */
  private asText(value: number): void {
    this.ascii(Number.isFinite(value) ? String(value) : 'null');
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
