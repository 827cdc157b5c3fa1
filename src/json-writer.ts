import { ByteWriter } from './byte-writer.js';

/** JSON's punctuation, as bytes: for writers of lists. */
export const COMMA = 0x2c;
export const OPEN = 0x5b;
export const CLOSE = 0x5d;
export const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Strings up to this long are tried as printable ASCII first (`string`). */
const SHORT = 64;

/** Nothing JSON escapes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * JSON strings written as UTF-8 into a growing Buffer (src/byte-writer.ts), each as
 * JSON.stringify writes it, with no string made for one but an escaped one: the sent-events
 * record (store/redis-store.ts) and the notification id's hashed text (notify/notification.ts),
 * each tens of thousands of strings in a large alert (target P6, docs/performance.md).
 */
export class JsonWriter extends ByteWriter {
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
}
