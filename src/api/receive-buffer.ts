/**
 * Large response bodies are received into a reused buffer instead of a fresh one per response.
 * Collecting a 50,000-pair isptrends body's chunks and concatenating them allocated a new
 * ~35 MB buffer each run; the kernel then faults its pages in, about 50 ms at that size, more
 * than the copy itself (target P1, docs/performance.md). One buffer per read in progress (a
 * worker runs `worker.concurrency` checks at once, so at most that many), kept while reads
 * come, released after IDLE_MS without one so an idle worker's memory goes back (target P3).
 */

/** Bodies smaller than this are concatenated as before: the saving is in the large ones. */
export const REUSE_FROM_BYTES = 1024 * 1024;
/** A free buffer unused this long is dropped. */
const IDLE_MS = 30_000;
/** Sizes are rounded up to this, so a body a little larger than the last still fits. */
const GRANULE = 1024 * 1024;

const free: Buffer[] = [];
let idleTimer: NodeJS.Timeout | undefined;

/** A buffer of at least `bytes` bytes, for one read; give it back with `releaseBuffer`. */
export function leaseBuffer(bytes: number): Buffer {
  if (idleTimer !== undefined) {
    clearTimeout(idleTimer);
    idleTimer = undefined;
  }
  for (let i = 0; i < free.length; i++) {
    if (free[i]!.length >= bytes) return free.splice(i, 1)[0]!;
  }
  // None fits: the smallest free one would not be used again for this size.
  if (free.length > 0) free.shift();
  return Buffer.allocUnsafeSlow(Math.ceil(bytes / GRANULE) * GRANULE);
}

export function releaseBuffer(buffer: Buffer): void {
  free.push(buffer);
  free.sort((a, b) => a.length - b.length);
  idleTimer ??= setTimeout(dropFreeBuffers, IDLE_MS).unref();
}

/** Bytes held by free buffers (for tests and the benchmark). */
export function freeBufferBytes(): number {
  return free.reduce((sum, b) => sum + b.length, 0);
}

export function dropFreeBuffers(): void {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
  free.length = 0;
}
