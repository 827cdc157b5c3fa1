import { describe, expect, it } from 'vitest';
import { ApiError, ConfigError } from '../../src/errors.js';
import {
  backoffDelay,
  describeFailure,
  isFinalFailure,
  isRetryable,
} from '../../src/jobs/failures.js';
import { nextPremiumState, withoutSentEvents } from '../../src/jobs/traffic-check.js';
import type { Classification, ClassifiedPair } from '../../src/monitor/types.js';

const pair = (key: string, cls: ClassifiedPair['class']): ClassifiedPair => ({
  key,
  domainId: 1,
  isp: key,
  domainUrl: 'https://d.example',
  class: cls,
  alertable: true,
  severity: 'warning',
  dropPercent: 30,
  significance: 5,
  firstSeen: '2026-11-20',
  quietRuns: 0,
});

describe('withoutSentEvents: a forced re-run never e-mails a pair event twice', () => {
  const classification: Classification = {
    asOf: '2026-11-21',
    pairs: [
      pair('1:a', 'new'),
      pair('1:b', 'worse'),
      pair('1:c', 'cleared'),
      pair('1:d', 'ongoing'),
    ],
    counts: { new: 1, worse: 1, reminder: 0, ongoing: 1, cleared: 1, silenced: 0 },
    domains: [],
    changes: { upsert: [], remove: [] },
  };

  it('moves pairs whose (class, pair) was already sent to ongoing, and fixes the counts', () => {
    const result = withoutSentEvents(
      classification,
      new Set(['new|1:a', 'cleared|1:c', 'worse|1:x']),
    );
    expect(result.pairs.map((p) => [p.key, p.class])).toEqual([
      ['1:a', 'ongoing'],
      ['1:b', 'worse'],
      ['1:c', 'ongoing'],
      ['1:d', 'ongoing'],
    ]);
    expect(result.counts).toEqual({
      new: 0,
      worse: 1,
      reminder: 0,
      ongoing: 3,
      cleared: 0,
      silenced: 0,
    });
  });

  it('an event of another class for the same pair is not the same event', () => {
    const result = withoutSentEvents(classification, new Set(['new|1:b']));
    expect(result.pairs[1]?.class).toBe('worse');
  });

  it('nothing sent: the classification itself', () => {
    expect(withoutSentEvents(classification, new Set())).toBe(classification);
  });
});

describe('nextPremiumState', () => {
  it('keeps "since" while the state holds, restarts it on a change or the first sight', () => {
    expect(nextPremiumState(undefined, false, 100)).toEqual({
      hasPremium: false,
      checkedAt: 100,
      since: 100,
    });
    expect(nextPremiumState({ hasPremium: false, checkedAt: 100, since: 100 }, false, 200)).toEqual(
      { hasPremium: false, checkedAt: 200, since: 100 },
    );
    expect(nextPremiumState({ hasPremium: false, checkedAt: 200, since: 100 }, true, 300)).toEqual({
      hasPremium: true,
      checkedAt: 300,
      since: 300,
    });
  });
});

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

  it('backoff: exponential, capped, with jitter between half and all of the step', () => {
    expect(backoffDelay(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffDelay(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffDelay(4, 1000, 60_000, () => 1)).toBe(8000);
    expect(backoffDelay(30, 1000, 60_000, () => 1)).toBe(60_000);
    expect(backoffDelay(30, 1000, 60_000, () => 0)).toBe(30_000);
  });
});
