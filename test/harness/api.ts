import { expect } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { buildEntry } from '../../src/sandbox/trends.js';

/** Awaits a call that must fail with an ApiError, and returns that error for assertions. */
export async function apiFailure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected the call to fail');
}

/** One well-formed isptrends entry (network 7, Comcast on trk12), as the sandbox builds it. */
export function sampleTrendsEntry(): Record<string, unknown> {
  return buildEntry(7, {
    domainId: 12,
    url: 'https://trk12.example.com',
    isp: 'Comcast',
    clicks: [100, 400, 390, 410],
    conversions: [2, 10, 9, 11],
    revenue: [9, 45, 40.5, 49.5],
  });
}
