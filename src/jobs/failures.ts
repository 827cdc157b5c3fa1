import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { ApiError, ThmError, type ThmErrorCode } from '../errors.js';

/**
 * How a failure of a run becomes BullMQ's behaviour:
 * - retryable (network, timeouts, 429, 5xx): rethrown, BullMQ retries with backoff and jitter;
 * - a Retry-After beyond the in-process budget: the job is moved to delayed until then, as long
 *   as that is within MAX_RETRY_LATER_MS of when the job was queued; past that it fails for good
 *   (problem e-mail, /fail ping) instead of waiting on the API forever;
 * - anything else (401, 403, premium required, invalid response, config): UnrecoverableError,
 *   no retry, with the API's own message.
 */
export function isRetryable(error: unknown): boolean {
  return error instanceof ThmError ? error.retryable || error.code === 'THM_API_RETRY_LATER' : true;
}

/** How long a run keeps waiting on the API's Retry-After, counted from when it was queued. */
export const MAX_RETRY_LATER_MS = 24 * 3_600_000;

type JobTiming = Pick<Job, 'attemptsMade' | 'opts' | 'timestamp'>;

/** A Retry-After the in-process budget could not wait for (the API said when). */
function isRetryLater(error: unknown): error is ApiError & { retryAt: Date } {
  return (
    error instanceof ApiError && error.code === 'THM_API_RETRY_LATER' && error.retryAt !== undefined
  );
}

/** When to try again after a Retry-After, or undefined when it falls past the run's window. */
function retryLaterAt(
  error: ApiError & { retryAt: Date },
  job: JobTiming,
  now = Date.now(),
): number | undefined {
  const at = Math.max(error.retryAt.getTime(), now);
  return at - job.timestamp <= MAX_RETRY_LATER_MS ? at : undefined;
}

/** Whether this failure ends the job for good (no attempt left, or not worth retrying). */
export function isFinalFailure(error: unknown, job: JobTiming, now = Date.now()): boolean {
  if (isRetryLater(error)) return retryLaterAt(error, job, now) === undefined;
  if (!isRetryable(error)) return true;
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/** One line for humans: the code and message, with the API's own words when there are some. */
export function describeFailure(error: unknown): { code: ThmErrorCode; message: string } {
  if (error instanceof ThmError) {
    const remote =
      error.remoteMessage && !error.message.includes(error.remoteMessage)
        ? ` (API said: ${error.remoteMessage})`
        : '';
    return { code: error.code, message: `${error.message}${remote}` };
  }
  return { code: 'THM_INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

export async function toBullMqError(
  error: unknown,
  job: Job,
  token: string | undefined,
): Promise<Error> {
  const { code, message } = describeFailure(error);
  if (isRetryLater(error)) {
    const at = retryLaterAt(error, job);
    if (at === undefined) {
      return new UnrecoverableError(
        `${code}: ${message}; that is more than ${MAX_RETRY_LATER_MS / 3_600_000} h after the run was queued`,
      );
    }
    await job.moveToDelayed(at, token);
    return new DelayedError(`retry later at ${new Date(at).toISOString()}`);
  }
  if (!isRetryable(error)) return new UnrecoverableError(`${code}: ${message}`);
  return error instanceof Error ? error : new Error(message);
}
