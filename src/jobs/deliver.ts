import { DelayedError, type Processor, type Queue } from 'bullmq';
import { ThmError } from '../errors.js';
import type { Logger } from '../log.js';
import type { NotificationSender } from '../notify/sender.js';
import type { OutboxStore } from '../notify/types.js';
import { deliverJobDataSchema, type DeliverJobData } from './job-data.js';
import { enqueueDeliveries } from './runtime.js';

/**
 * The mail queue: one `deliver` job per decided notification. The retry schedule has one
 * owner, the sender: a transient SMTP failure records the entry's `nextAttemptAt` in the
 * outbox (src/notify/sender.ts), and this job moves itself to BullMQ's delayed set until then
 * (not a BullMQ retry: the job makes no attempts of its own). The claim refuses an entry that
 * is not due, so a sweep or another replica cannot send it early either. A 5xx ends the job
 * and leaves the notification failed and visible.
 *
 * The outbox in Redis is the source of truth: the sweeper re-enqueues whatever is due and
 * pending (after a crash, or when a job failed outside SMTP, e.g. Redis was unreachable), so a
 * notification is retried until the server accepts it, across restarts.
 */
export function createDeliverProcessor(
  sender: NotificationSender,
  logger: Logger,
): Processor<DeliverJobData, string> {
  return async (job, token) => {
    const { notificationId } = deliverJobDataSchema.parse(job.data);
    const log = logger.child({ notification: notificationId, jobId: job.id });
    let outcome;
    try {
      outcome = await sender.deliver(notificationId);
    } catch (error) {
      // A store error no retry can fix (an unreadable entry, which the claim moved to failed):
      // this is its one log line; retrying would only repeat it.
      if (error instanceof ThmError && error.code === 'THM_STORE' && !error.retryable) {
        log.error({ code: error.code }, error.message);
        return 'unreadable';
      }
      throw error;
    }
    if (outcome === 'retry' || outcome === 'not-due') {
      const dueAt = await sender.dueAt(notificationId);
      if (dueAt !== undefined && token !== undefined) {
        if (outcome === 'retry')
          log.warn({ dueAt: new Date(dueAt).toISOString() }, 'delivery deferred; will retry');
        await job.moveToDelayed(dueAt, token);
        throw new DelayedError(
          `delivery of ${notificationId} due at ${new Date(dueAt).toISOString()}`,
        );
      }
    }
    if (outcome === 'failed')
      log.error('delivery refused permanently by the mail server; see thm status');
    // 'in-flight': another replica holds the lease and owns the outcome; if it dies, the lease
    // expires and the sweeper hands the still-pending notification out again.
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

/** Enqueue a deliver job for every pending notification (duplicates of waiting jobs are no-ops). */
export async function sweepOutbox(
  store: OutboxStore,
  mailQueue: Queue<DeliverJobData>,
  logger: Logger,
  now: number,
): Promise<number> {
  const pending = await store.pendingNotificationIds(1000, now);
  await enqueueDeliveries(mailQueue, pending);
  if (pending.length > 0)
    logger.info(
      { pending: pending.length },
      'outbox swept: pending notifications handed to delivery',
    );
  return pending.length;
}
