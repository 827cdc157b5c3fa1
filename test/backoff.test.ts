import { describe, expect, it } from 'vitest';
import { backoffDelay, type Backoff } from '../src/backoff.js';

describe('backoffDelay: exponential, capped, jittered', () => {
  const full: Backoff = { baseMs: 1_000, maxMs: 60_000, jitter: 'full' };
  const equal: Backoff = { ...full, jitter: 'equal' };
  it.each([
    // failures, backoff, random, wait
    [1, equal, 0, 500],
    [1, equal, 1, 1_000],
    [4, equal, 1, 8_000],
    [30, equal, 1, 60_000],
    [30, equal, 0, 30_000],
    [1_000, equal, 1, 60_000],
    [0, equal, 1, 1_000],
    [1, full, 0, 0],
    [1, full, 0.999, 999],
    [3, full, 0.5, 2_000],
    [30, full, 0.5, 30_000],
  ] as const)('failure %i, %o, random %d: %i ms', (failures, backoff, random, wait) => {
    expect(backoffDelay(failures, backoff, () => random)).toBe(wait);
  });
});
