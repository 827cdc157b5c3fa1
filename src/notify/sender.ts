import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { backoffDelay } from '../backoff.js';
import { SmtpError } from '../errors.js';
import type { Logger } from '../log.js';
import { isChannelDeliveryId } from './channels/delivery-id.js';
import {
  isChannelDelivery,
  type OutboxItem,
  DeliveryOutcome,
  DeliverySummary,
  MailTransport,
  OutboxEntry,
  OutboxNotification,
  OutboxStore,
} from './types.js';

type EmailEntry = OutboxEntry & { notification: OutboxNotification };

/*
 * Delivers outbox entries: one attempt per call, the state kept in the store, so retries
 * survive restarts. The job layer calls `deliver(id)` from a BullMQ job (which waits for the
 * entry's nextAttemptAt after a retry); `deliverDue()` delivers whatever is due, for a test.
 *
 * The order is what makes "no alert lost" and "duplicates only from a crash" true:
 * claim (an atomic state check plus a lease in the store, so two replicas never send the same
 * entry at once) -> send -> markSent only after the server accepted. A crash between acceptance
 * and markSent re-sends the same message (same Message-ID) once the lease has expired.
 */

/** How a NotificationSender is made. */
export interface SenderOptions {
  store: OutboxStore;
  transport: MailTransport;
  /** mail.from */
  from: string;
  logger: Logger;
  /** Epoch milliseconds; injectable for tests. @defaultValue Date.now */
  now?: () => number;
  /**
   * The retry schedule of every notification, the only one: after the n-th transient failure
   * in a row the entry is due again in baseMs * 2^(n-1), capped at maxMs, with equal jitter
   * (src/backoff.ts). The outbox keeps it as `nextAttemptAt`; the claim refuses an entry before
   * then, and the deliver job waits for it (src/jobs/deliver.ts).
   * @defaultValue { baseMs: 30_000, maxMs: 3_600_000 }
   */
  backoff?: { baseMs: number; maxMs: number };
  /** Random source in [0, 1) for the jitter; injectable for tests. @defaultValue Math.random */
  random?: () => number;
  /**
   * How long a claim keeps other senders off one notification. Must outlast the slowest send
   * (every SMTP step has its own timeout); a holder that crashed blocks it this long.
   * @defaultValue DEFAULT_LEASE_MS
   */
  leaseMs?: number;
  /** Told every attempt's outcome, with the notification (for metrics). */
  onOutcome?: (notification: OutboxItem, outcome: 'sent' | 'retry' | 'failed') => void;
}

/** Five minutes: 20 SMTP steps at the default 15 s timeout. */
export const DEFAULT_LEASE_MS = 300_000;

export const DEFAULT_BACKOFF = { baseMs: 30_000, maxMs: 3_600_000 } as const;

export class NotificationSender {
  readonly #store: OutboxStore;
  readonly #transport: MailTransport;
  readonly #from: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #backoff: { baseMs: number; maxMs: number };
  readonly #random: () => number;
  readonly #leaseMs: number;
  readonly #onOutcome: SenderOptions['onOutcome'];
  /** Names this sender as a lease holder (host, pid and a random part, for diagnosis). */
  readonly #owner = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;

  constructor(options: SenderOptions) {
    this.#store = options.store;
    this.#transport = options.transport;
    this.#from = options.from;
    this.#logger = options.logger.child({ component: 'sender' });
    this.#now = options.now ?? Date.now;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#random = options.random ?? Math.random;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#onOutcome = options.onOutcome;
  }

  /**
   * One delivery attempt of one notification. Store errors (Redis down) are thrown, so the
   * calling job retries; SMTP errors are recorded and reported as 'retry' or 'failed'.
   */
  async deliver(id: string): Promise<DeliveryOutcome> {
    if (isChannelDeliveryId(id)) {
      // Not an e-mail: the channels queue's sender (notify/channels/sender.ts) posts it.
      this.#logger.debug({ notificationId: id }, 'channel delivery left to the channel sender');
      return 'in-flight';
    }
    const claim = await this.#store.claimNotification(id, this.#owner, this.#leaseMs, this.#now());
    switch (claim.status) {
      case 'claimed': {
        if (isChannelDelivery(claim.entry.notification)) {
          // Not an e-mail id, yet a channel delivery: a hand-edited store. Not ours to send.
          await this.#store.releaseNotification(id, this.#owner);
          return 'in-flight';
        }
        const outcome = await this.#attempt(claim.entry as EmailEntry);
        this.#onOutcome?.(claim.entry.notification, outcome);
        return outcome;
      }
      case 'missing':
        this.#logger.warn({ notificationId: id }, 'notification not in the outbox');
        return 'missing';
      case 'busy':
        this.#logger.debug(
          { notificationId: id },
          'notification being delivered by another sender',
        );
        return 'in-flight';
      case 'not-due':
        return 'not-due';
      case 'sent':
        return 'already-sent';
      case 'failed':
        return 'failed';
    }
  }

  /**
   * One attempt, and when the notification is due again after 'retry' or 'not-due' (the deliver
   * job waits until then): the shape the channel sender's `attempt` has too.
   */
  async attempt(id: string): Promise<{ outcome: DeliveryOutcome; retryAt?: number }> {
    const outcome = await this.deliver(id);
    if (outcome !== 'retry' && outcome !== 'not-due') return { outcome };
    const retryAt = await this.dueAt(id);
    return retryAt === undefined ? { outcome } : { outcome, retryAt };
  }

  /** When a pending notification is due for its next attempt; undefined when not pending. */
  async dueAt(id: string): Promise<number | undefined> {
    const entry = await this.#store.getNotification(id);
    if (entry?.state !== 'pending') return undefined;
    return entry.nextAttemptAt ?? this.#now();
  }

  /** Delivers every due pending entry (oldest first); one failing does not stop the others. */
  async deliverDue(limit = 100): Promise<DeliverySummary> {
    const summary: DeliverySummary = {
      due: 0,
      sent: 0,
      retry: 0,
      failed: 0,
      alreadySent: 0,
      inFlight: 0,
      notDue: 0,
      missing: 0,
      errors: 0,
    };
    const ids = await this.#store.pendingNotificationIds(limit, this.#now());
    summary.due = ids.length;
    for (const id of ids) {
      try {
        const outcome = await this.deliver(id);
        if (outcome === 'already-sent') summary.alreadySent += 1;
        else if (outcome === 'in-flight' || outcome === 'endpoint-busy') summary.inFlight += 1;
        else if (outcome === 'not-due') summary.notDue += 1;
        else summary[outcome] += 1;
      } catch (error) {
        summary.errors += 1;
        this.#logger.error(
          {
            notificationId: id,
            reason: error instanceof Error ? error.message : String(error),
          },
          'delivery attempt failed outside SMTP',
        );
      }
    }
    if (summary.due > 0) this.#logger.info(summary, 'delivered due notifications');
    return summary;
  }

  /** One send of a claimed entry; every way out ends the lease. */
  async #attempt(entry: EmailEntry): Promise<'sent' | 'retry' | 'failed'> {
    const n = entry.notification;
    const log = { notificationId: n.id, networkId: n.networkId, kind: n.kind, asOf: n.asOf };
    let transitioned = false;
    try {
      let result;
      try {
        result = await this.#transport.send(n, this.#from);
      } catch (error) {
        const smtp =
          error instanceof SmtpError
            ? error
            : new SmtpError(
                'THM_SMTP_TRANSIENT',
                error instanceof Error ? error.message : String(error),
              );
        if (smtp.code === 'THM_SMTP_REJECTED') {
          await this.#store.markFailed(n.id, smtp.message, this.#now());
          transitioned = true;
          this.#logger.error(
            { ...log, error: smtp.message },
            'notification rejected by the SMTP server',
          );
          return 'failed';
        }
        const delay = backoffDelay(
          entry.attempts + 1,
          { ...this.#backoff, jitter: 'equal' },
          this.#random,
        );
        await this.#store.recordAttempt(n.id, smtp.message, this.#now() + delay);
        transitioned = true;
        this.#logger.warn(
          { ...log, attempts: entry.attempts + 1, retryInMs: delay, error: smtp.message },
          'notification not delivered, will retry',
        );
        return 'retry';
      }
      if (!result.accepted) {
        // No error but no recipient accepted: the server refused them all.
        const reason = `no recipient accepted: ${result.response}`;
        await this.#store.markFailed(n.id, reason, this.#now());
        transitioned = true;
        this.#logger.error({ ...log, error: reason }, 'notification rejected by the SMTP server');
        return 'failed';
      }
      await this.#store.markSent(n.id, this.#now());
      transitioned = true;
      this.#logger.info({ ...log, response: result.response }, 'notification sent');
      return 'sent';
    } finally {
      // A transition ends the lease in the same step. Without one (the store was unreachable),
      // give it back if possible; else it expires.
      if (!transitioned) await this.#store.releaseNotification(n.id, this.#owner).catch(() => {});
    }
  }
}
