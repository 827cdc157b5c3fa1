import { expect } from 'vitest';
import { ApiError } from '../../src/errors.js';

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
