/**
 * Buffers kept for reuse: large ones, that a fresh allocation would fault in page by page (on
 * the reference machine ~12 us a page; target P1, docs/performance.md). One buffer per use in
 * progress (a worker runs `worker.concurrency` checks at once, so at most that many), kept while
 * uses come, released after `idleMs` without one so an idle worker's memory goes back (target
 * P3). Each kind of use has a pool of its own, so that one kind's sizes do not evict the
 * other's: response bodies (api/receive-buffer.ts) and the blobs a commit writes
 * (store/domain-lists.ts).
 */
export class BufferPool {
  private readonly free: Buffer[] = [];
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    /** Sizes are rounded up to this, so a use a little larger than the last still fits. */
    private readonly granule: number,
    /** A free buffer unused this long is dropped. */
    private readonly idleMs: number,
  ) {}

  /** A buffer of at least `bytes` bytes, for one use; give it back with `release`. */
  lease(bytes: number): Buffer {
    if (this.idleTimer !== undefined) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    const free = this.free;
    for (let i = 0; i < free.length; i++) {
      if (free[i]!.length >= bytes) return free.splice(i, 1)[0]!;
    }
    // None fits: the smallest free one would not be used again for this size.
    if (free.length > 0) free.shift();
    return Buffer.allocUnsafeSlow(Math.ceil(bytes / this.granule) * this.granule);
  }

  /** Gives back a buffer `lease` returned (or a view of one): nothing may use it after. */
  release(buffer: Buffer): void {
    const whole =
      buffer.byteOffset === 0 && buffer.length === buffer.buffer.byteLength
        ? buffer
        : Buffer.from(buffer.buffer, 0, buffer.buffer.byteLength);
    this.free.push(whole);
    this.free.sort((a, b) => a.length - b.length);
    this.idleTimer ??= setTimeout(() => this.drop(), this.idleMs).unref();
  }

  /** Bytes held by free buffers (for tests and the benchmark). */
  freeBytes(): number {
    return this.free.reduce((sum, b) => sum + b.length, 0);
  }

  drop(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.free.length = 0;
  }
}
