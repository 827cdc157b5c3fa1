import { isAscii } from 'node:buffer';

/**
 * Bodies up to this size that are all ASCII are decoded as Latin-1 (see `bodyText`): glibc's
 * malloc serves blocks up to its largest dynamic mmap threshold (32 MiB on 64-bit) from memory
 * it keeps and reuses; above it every block is freshly mapped again.
 */
export const REUSED_TEXT_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The text of a response body: `buffer`'s first `end` bytes as UTF-8.
 *
 * A string decoded from UTF-8 is put by V8 in freshly mapped memory, which the kernel then
 * faults in page by page: for a 14 MB isptrends body (10,000 pairs) that was ~40 ms, twice
 * its `JSON.parse`. Bytes that are all ASCII mean the same in Latin-1, and Node makes a large
 * Latin-1 string an external one, copied into malloc'd memory that is reused once the previous
 * body's string is collected: the same decode takes ~1 ms (target P1, docs/performance.md).
 * Checking for ASCII costs ~0.3 ms at that size. Above REUSED_TEXT_MAX_BYTES malloc maps fresh
 * memory too, and a 70 MB body measured slower that way, so large bodies decode as before.
 */
export function bodyText(buffer: Buffer, end: number): string {
  if (
    end <= REUSED_TEXT_MAX_BYTES &&
    isAscii(end === buffer.length ? buffer : buffer.subarray(0, end))
  ) {
    return buffer.toString('latin1', 0, end);
  }
  return buffer.toString('utf8', 0, end);
}
