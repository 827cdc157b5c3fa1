/*
 * The bytes of the store's binary blobs (store/domain-lists.ts has the layout): unsigned
 * varints, numbers, and strings, written into a Buffer and read back with every read checked
 * against the end. docs/design.md, "The history blobs", says why the history is binary.
 *
 * A varint is LEB128: 7 bits a byte, least significant first, the high bit set on every byte
 * but the last. At most VARINT_BYTES bytes (49 bits); a longer one is damage.
 *
 * A number is one varint, its code: an integer n with |n| <= MAX_INLINE is 4n when n >= 0 and
 * -4n - 2 when n < 0 (so a small count or a day number takes 1 - 3 bytes), and any other double
 * (a fraction, a huge integer, NaN, an infinity) is code 1 and its 8 bytes (IEEE 754, little-
 * endian) after it. -0 is an integer and reads back as 0, as JSON writes it. Every double but -0
 * reads back as itself.
 *
 * A string is a varint, 2 x its byte length + its encoding (0: UTF-8; 1: UTF-16LE, for a string
 * with a surrogate: a lone one, which UTF-8 cannot hold and an ISP name from the API's JSON may
 * have, and for simplicity any pair), then its bytes.
 */

const VARINT_BYTES = 7;
const MAX_INLINE = 2 ** 40;
const FLOAT_CODE = 1;
const SURROGATE = /[\ud800-\udfff]/;

/** A blob's bytes, written into a Buffer that grows by doubling. */
export class BlobWriter {
  private buffer: Buffer;
  private at = 0;

  /** `estimate`: the bytes the blob will take, about (the first buffer's size). */
  constructor(estimate: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(estimate, 64));
  }

  /** Bytes written so far. */
  get length(): number {
    return this.at;
  }

  /** What is written, as a view of the writer's buffer. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.at++] = value;
  }

  /** An unsigned 32-bit integer, little-endian, at `offset` (a place reserved before). */
  patchUint32(offset: number, value: number): void {
    this.buffer.writeUInt32LE(value, offset);
  }

  /** A non-negative integer below 2^49. */
  varint(value: number): void {
    this.room(VARINT_BYTES);
    while (value >= 0x80) {
      this.buffer[this.at++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buffer[this.at++] = value;
  }

  number(value: number): void {
    if (Number.isInteger(value) && value <= MAX_INLINE && value >= -MAX_INLINE) {
      this.varint(value >= 0 ? value * 4 : -value * 4 - 2);
      return;
    }
    this.varint(FLOAT_CODE);
    this.room(8);
    this.at = this.buffer.writeDoubleLE(value, this.at);
  }

  string(value: string): void {
    const utf8 = !SURROGATE.test(value);
    const bytes = utf8 ? Buffer.byteLength(value, 'utf8') : value.length * 2;
    this.varint(bytes * 2 + (utf8 ? 0 : 1));
    this.room(bytes);
    this.at += this.buffer.write(value, this.at, utf8 ? 'utf8' : 'utf16le');
  }

  /** Makes room for `bytes` more. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }
}

/**
 * A position in a blob's bytes, up to `end`. A read that would pass `end`, or that reads what
 * no writer writes, sets `damaged` and returns 0 or '' without moving: the caller checks
 * `damaged` once an item, not at every read, and says what is damaged.
 */
export class BlobReader {
  at: number;
  damaged = false;

  constructor(
    private readonly bytes: Buffer,
    start: number,
    public end: number,
  ) {
    this.at = start;
  }

  atEnd(): boolean {
    return this.at === this.end;
  }

  /** What `BlobWriter.varint` wrote. */
  varint(): number {
    const bytes = this.bytes;
    let at = this.at;
    let value = 0;
    let scale = 1;
    for (let n = 0; n < VARINT_BYTES && at < this.end; n++) {
      const b = bytes[at++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.at = at;
        return value;
      }
      scale *= 0x80;
    }
    this.damaged = true;
    return 0;
  }

  /** What `BlobWriter.number` wrote. */
  number(): number {
    const code = this.varint();
    if (code % 2 === 0) {
      const half = code / 2;
      return half % 2 === 0 ? half / 2 : -(half + 1) / 2;
    }
    if (code !== FLOAT_CODE || this.at + 8 > this.end) {
      this.damaged = true;
      return 0;
    }
    const value = this.bytes.readDoubleLE(this.at);
    this.at += 8;
    return value;
  }

  /** What `BlobWriter.string` wrote. */
  string(): string {
    const header = this.varint();
    const length = Math.floor(header / 2);
    const utf16 = header % 2 === 1;
    const start = this.at;
    if (start + length > this.end || (utf16 && length % 2 === 1)) {
      this.damaged = true;
      return '';
    }
    this.at = start + length;
    return this.bytes.toString(utf16 ? 'utf16le' : 'utf8', start, start + length);
  }
}
