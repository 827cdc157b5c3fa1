import { describe, expect, it } from 'vitest';
import { ApiError, ConfigError } from '../../src/errors.js';
import { describeFailure, isFinalFailure, isRetryable } from '../../src/jobs/failures.js';

describe('failure mapping', () => {
  const QUEUED = Date.UTC(2026, 10, 21, 7);
  const job = (attemptsMade: number, attempts: number) => ({
    attemptsMade,
    opts: { attempts },
    timestamp: QUEUED,
  });
  const NOW = QUEUED + 3_600_000;
  const transient = new ApiError('THM_API_TRANSIENT', 'isptrends', 'HTTP 503', {
    retryable: true,
    status: 503,
  });
  const auth = new ApiError('THM_API_AUTH', 'access', 'the API key was not accepted', {
    remoteMessage: 'No Authentication Method Found',
  });
  const later = new ApiError('THM_API_RETRY_LATER', 'isptrends', 'retry later', {
    retryAt: new Date(NOW + 2 * 3_600_000),
  });
  // Past a day after the run was queued: waiting on would skip the next run's whole period.
  const tooLate = new ApiError('THM_API_RETRY_LATER', 'isptrends', 'retry later', {
    retryAt: new Date(QUEUED + 24 * 3_600_000 + 1),
  });

  it.each([
    ['transient, attempts left', transient, job(0, 3), false],
    ['transient, last attempt', transient, job(2, 3), true],
    ['auth: final at once', auth, job(0, 5), true],
    ['config: final at once', new ConfigError('x'), job(0, 5), true],
    ['retry later: rescheduled, whatever the attempts', later, job(9, 3), false],
    ['retry later past a day since queued: final', tooLate, job(0, 3), true],
    ['an unknown error: retried like a transient one', new Error('boom'), job(0, 3), false],
  ] as const)('%s', (_name, error, j, final) => {
    expect(isFinalFailure(error, j, NOW)).toBe(final);
  });

  it('says what failed with the API own words, once', () => {
    expect(describeFailure(auth)).toEqual({
      code: 'THM_API_AUTH',
      message: 'the API key was not accepted (API said: No Authentication Method Found)',
    });
    expect(isRetryable(auth)).toBe(false);
    expect(isRetryable(later)).toBe(true);
  });
});
