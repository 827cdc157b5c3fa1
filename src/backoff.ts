/**
 * Exponential backoff with jitter: the one helper behind every retry schedule (the API
 * client's in-process retries, the outbox's SMTP retries). Jitter spreads many waiting
 * callers apart so they do not hit a recovering server at the same instant:
 *
 * - `full`: uniform in [0, step): the widest spread, for short in-process waits;
 * - `equal`: uniform in [step/2, step]: keeps a floor under each wait, for a server that
 *   asked to be left alone for a while (SMTP 4xx).
 *
 * `step` is `baseMs * 2^(failures - 1)`, capped at `maxMs`.
 */
export interface Backoff {
  baseMs: number;
  maxMs: number;
  jitter: 'full' | 'equal';
}

/** The wait after the `failures`-th failure in a row (1 after the first). */
export function backoffDelay(
  failures: number,
  backoff: Backoff,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(0, failures - 1), 30);
  const step = Math.min(backoff.maxMs, backoff.baseMs * 2 ** exponent);
  return backoff.jitter === 'full'
    ? Math.floor(random() * step)
    : Math.round(step / 2 + (random() * step) / 2);
}
