import type { Processor, Queue } from 'bullmq';
import type { Logger } from '../log.js';
import type { NotificationSender } from '../notify/sender.js';
import type { OutboxStore } from '../notify/types.js';
import { deliverJobDataSchema, type DeliverJobData } from './job-data.js';
import { backoffDelay } from './failures.js';
import { enqueueDeliveries } from './runtime.js';

/**
 * The mail queue: one `deliver` job per decided notification. A transient SMTP failure throws,
 * so BullMQ retries with capped exponential backoff; a 5xx ends the job and leaves the
 * notification failed and visible. The outbox in Redis is the source of truth: the sweeper
 * re-enqueues whatever is still pending (after a crash, or once a job's attempts ran out), so
 * a notification is retried until the server accepts it, across restarts.
 */
export function createDeliverProcessor(
  sender: NotificationSender,
  logger: Logger,
): Processor<DeliverJobData, string> {
  return async (job) => {
    const { notificationId } = deliverJobDataSchema.parse(job.data);
    const outcome = await sender.deliver(notificationId);
    const log = logger.child({ notification: notificationId, jobId: job.id });
    if (outcome === 'retry') {
      log.warn({ attempt: job.attemptsMade + 1 }, 'delivery deferred; will retry');
      throw new Error(`delivery of ${notificationId} deferred by the mail server`);
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

/** BullMQ custom backoff for the mail queue: 2 s doubling to 10 min, with jitter. */
export function mailBackoff(attemptsMade: number): number {
  return backoffDelay(attemptsMade, 2_000, 600_000);
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
