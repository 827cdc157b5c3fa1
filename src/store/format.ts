/**
 * The storage format: how this version lays out what it keeps in Redis. Raised when a version
 * writes something an earlier one cannot read (then every replica is stopped before the new
 * version starts: docs/operations.md, "Stopping and upgrading"). Format 2: a network's history and listed runs
 * as binary blobs (store/domain-lists.ts); this version still reads format 1 (JSON).
 */
export const STORAGE_FORMAT = 2;
