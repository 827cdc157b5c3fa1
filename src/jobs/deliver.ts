import { DelayedError, type Processor } from 'bullmq';
import { ThmError } from '../errors.js';
import type { Logger } from '../log.js';
import type { DeliveryOutcome, OutboxStore } from '../notify/types.js';
import { deliverJobDataSchema, type DeliverJobData } from './job-data.js';
import { enqueueOutbox, type Runtime } from './runtime.js';

/**
 * The mail and channels queues: one `deliver` job per outbox entry (an e-mail, or one
 * notification to one channel). The retry schedule has one owner, the sender: a transient
 * failure records the entry's `nextAttemptAt` in the outbox (src/notify/sender.ts,
 * src/notify/channels/sender.ts), and this job moves itself to BullMQ's delayed set until then
 * (not a BullMQ retry: the job makes no attempts of its own). The claim refuses an entry that
 * is not due, so a sweep or another replica cannot send it early either. A permanent refusal
 * (SMTP 5xx, a channel's 4xx) ends the job and leaves the entry failed and visible.
 *
 * The outbox in Redis is the source of truth: the sweeper re-enqueues whatever is due and
 * pending (after a crash, or when a job failed outside the send, e.g. Redis was unreachable),
 * so an entry is retried until it is accepted, across restarts.
 */
export interface OutboxDeliverer {
  /** One attempt; after 'retry', 'not-due' or 'endpoint-busy', when it is due again. */
  attempt(id: string): Promise<{ outcome: DeliveryOutcome; retryAt?: number }>;
}

export function createDeliverProcessor(
  sender: OutboxDeliverer,
  logger: Logger,
  /** Who refuses for good, for the log line: 'the mail server', 'the endpoint'. */
  refusedBy = 'the mail server',
): Processor<DeliverJobData, string> {
  return async (job, token) => {
    const { notificationId } = deliverJobDataSchema.parse(job.data);
    const log = logger.child({ notification: notificationId, jobId: job.id });
    let attempt;
    try {
      attempt = await sender.attempt(notificationId);
    } catch (error) {
      // A store error no retry can fix (an unreadable entry, which the claim moved to failed):
      // this is its one log line; retrying would only repeat it.
      if (error instanceof ThmError && error.code === 'THM_STORE' && !error.retryable) {
        log.error({ code: error.code }, error.message);
        return 'unreadable';
      }
      throw error;
    }
    const { outcome, retryAt } = attempt;
    if (retryAt !== undefined && token !== undefined) {
      if (outcome === 'retry')
        log.warn({ dueAt: new Date(retryAt).toISOString() }, 'delivery deferred; will retry');
      await job.moveToDelayed(retryAt, token);
      throw new DelayedError(
        `delivery of ${notificationId} due at ${new Date(retryAt).toISOString()}`,
      );
    }
    if (outcome === 'failed')
      log.error(`delivery refused permanently by ${refusedBy}; see thm notify failed`);
    // 'in-flight': another replica holds the lease and owns the outcome; if it dies, the lease
    // expires and the sweeper hands the still-pending entry out again.
    return outcome;
  };
}

/**
 * How long one replica's claim on a notification keeps the others off: longer than the
 * slowest send, whose every SMTP step (connect, greeting, EHLO, MAIL, RCPT, DATA, the body's
 * socket inactivity, the reply) is bounded by `mail.timeoutMs`. At least a minute.
 */
export function deliveryLeaseMs(timeoutMs: number): number {
  return Math.max(60_000, 20 * timeoutMs);
}

/**
 * The same for a channel delivery: three times the longest post deadline among the channels
 * (a post is one bounded exchange, plus the outcome's record), at least 5 s.
 */
export function channelLeaseMs(longestTimeoutMs: number): number {
  return Math.max(5_000, 3 * longestTimeoutMs);
}

/**
 * Enqueue a deliver job for every pending entry that is due, each to its queue (duplicates of
 * waiting jobs are no-ops).
 */
export async function sweepOutbox(
  store: OutboxStore,
  queues: Pick<Runtime, 'mailQueue' | 'channelsQueue'>,
  logger: Logger,
  now: number,
): Promise<number> {
  const pending = await store.pendingNotificationIds(1000, now);
  await enqueueOutbox(queues, pending);
  if (pending.length > 0)
    logger.info({ pending: pending.length }, 'outbox swept: pending entries handed to delivery');
  return pending.length;
}
