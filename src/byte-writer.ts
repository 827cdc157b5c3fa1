import type { BufferPool } from './buffer-pool.js';

/**
 * Bytes written into a Buffer that grows by doubling, taken from `pool` when one is given (the
 * caller gives the buffer back once it is done with the bytes; src/buffer-pool.ts) or allocated.
 * What the writers of text and blobs share: JsonWriter (src/json-writer.ts) and the store's
 * BlobWriter (store/blob-bytes.ts).
 */
export class ByteWriter {
  protected buffer: Buffer;
  protected at = 0;

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

  /** Makes room for `bytes` more. */
  protected room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const size = Math.max(this.buffer.length * 2, this.at + bytes);
    const grown = this.pool ? this.pool.lease(size) : Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.at);
    this.pool?.release(this.buffer);
    this.buffer = grown;
  }
}
