/**
 * In-process retries of transient API failures: exponential backoff with full jitter (each
 * wait is uniform in [0, min(cap, base * 2^(n-1))], so many workers hitting the same failing API
 * spread out instead of retrying in lockstep), `Retry-After` honoured, all within a budget of
 * waiting time. What the budget cannot cover goes back to the job layer: a Retry-After beyond it
 * becomes THM_API_RETRY_LATER with `retryAt`, so the job is rescheduled, not cut short.
 */

import { backoffDelay } from '../backoff.js';

export interface RetryPolicy {
  /** Attempts in all, the first included (config `api.attempts`). */
  attempts: number;
  /** Longest total waiting between attempts (config `api.retryBudgetMs`). */
  budgetMs: number;
  /** Base of the exponential backoff. @defaultValue 250 */
  baseDelayMs: number;
  /** Largest single backoff wait. @defaultValue 10000 */
  maxDelayMs: number;
}

export const DEFAULT_BASE_DELAY_MS = 250;
export const DEFAULT_MAX_DELAY_MS = 10_000;

/** The wait before attempt `attempt + 1` (attempt is 1-based): full jitter (src/backoff.ts). */
export function retryWait(
  attempt: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  return backoffDelay(
    attempt,
    { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, jitter: 'full' },
    random,
  );
}

/**
 * `Retry-After` as a wait in ms from `now`: delta-seconds (`120`, also `1.5`) or an HTTP date.
 * A date in the past is 0. Anything else is undefined (ignored).
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number,
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
