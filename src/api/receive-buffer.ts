import { BufferPool } from '../buffer-pool.js';

/**
 * Large response bodies are received into a reused buffer instead of a fresh one per response.
 * Collecting a 50,000-pair isptrends body's chunks and concatenating them allocated a new
 * ~35 MB buffer each run; the kernel then faults its pages in, about 50 ms at that size, more
 * than the copy itself (target P1, docs/performance.md). The buffers are kept as src/buffer-pool.ts
 * says: one per read in progress, released after IDLE_MS without one.
 *
 * A body of declared length (Content-Length) goes into a buffer of that size from its first
 * byte. A body of unknown length (chunked transfer) is collected as a list of chunks until it
 * reaches REUSE_FROM_BYTES, then moved into a leased buffer that grows as needed: the buffer it
 * ends in is the one kept, so the next body of about that size is received without growing.
 */
/** Bodies smaller than this are concatenated as before: the saving is in the large ones. */
export const REUSE_FROM_BYTES = 1024 * 1024;
/** A free buffer unused this long is dropped. */
const IDLE_MS = 30_000;
/** Sizes are rounded up to this, so a body a little larger than the last still fits. */
const GRANULE = 1024 * 1024;

const bodies = new BufferPool(GRANULE, IDLE_MS);

/** A buffer of at least `bytes` bytes, for one read; give it back with `releaseBuffer`. */
export function leaseBuffer(bytes: number): Buffer {
  return bodies.lease(bytes);
}

export function releaseBuffer(buffer: Buffer): void {
  bodies.release(buffer);
}

/** Bytes held by free buffers (for tests and the benchmark). */
export function freeBufferBytes(): number {
  return bodies.freeBytes();
}

export function dropFreeBuffers(): void {
  bodies.drop();
}

/**
 * One body's bytes as they arrive (see the top). `contents()` is valid until `release()`, which
 * hands a leased buffer back for the next body.
 */
export class BodyCollector {
  /** The chunks of a small body (or of a large one before it moves into `buffer`). */
  private chunks: Buffer[] = [];
  private buffer: Buffer | undefined;
  /** Bytes of the body in `buffer`. */
  private filled = 0;
  /** Bytes added in all. */
  private added = 0;

  /** `declared`: the Content-Length, when one was sent (NaN otherwise). */
  constructor(declared: number) {
    if (Number.isFinite(declared) && declared >= REUSE_FROM_BYTES) {
      this.buffer = leaseBuffer(declared);
    }
  }

  /** Bytes added so far. */
  get bytes(): number {
    return this.added;
  }

  add(chunk: Buffer): void {
    this.added += chunk.length;
    const buffer = this.buffer;
    if (buffer === undefined) {
      this.chunks.push(chunk);
      if (this.added >= REUSE_FROM_BYTES) this.moveIntoBuffer();
      return;
    }
    const into =
      this.filled + chunk.length > buffer.length ? this.grow(this.filled + chunk.length) : buffer;
    chunk.copy(into, this.filled);
    this.filled += chunk.length;
  }

  /** The body: a buffer and the number of its first bytes that are the body. */
  contents(): { buffer: Buffer; end: number } {
    if (this.buffer !== undefined) return { buffer: this.buffer, end: this.filled };
    const buffer =
      this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.added);
    return { buffer, end: buffer.length };
  }

  release(): void {
    if (this.buffer !== undefined) releaseBuffer(this.buffer);
    this.buffer = undefined;
    this.chunks = [];
  }

  private moveIntoBuffer(): void {
    const buffer = leaseBuffer(this.added * 2);
    let at = 0;
    for (const chunk of this.chunks) {
      chunk.copy(buffer, at);
      at += chunk.length;
    }
    this.buffer = buffer;
    this.filled = at;
    this.chunks = [];
  }

  /**
   * A larger buffer, twice the size or what is needed. The outgrown one is left to the garbage
   * collector, not kept: the pool then holds the size bodies end at, not every step up to it.
   */
  private grow(needed: number): Buffer {
    const outgrown = this.buffer!;
    const bigger = leaseBuffer(Math.max(needed, outgrown.length * 2));
    outgrown.copy(bigger, 0, 0, this.filled);
    this.buffer = bigger;
    return bigger;
  }
}
