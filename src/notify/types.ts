import type { IsoDate } from '../monitor/types.js';
import type { ChannelType, NotificationKind } from '../notification-names.js';

/** A rendered e-mail: what the sender hands to nodemailer, nothing more. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/**
 * One decided e-mail. It is recorded in the Redis outbox in the same atomic step as the
 * history change that decided it, then delivered (at least once) by the sender. Everything the
 * sender needs is here, so delivery never re-reads the history.
 */
export interface Notification extends RenderedEmail {
  /** Deterministic: derived from networkId, asOf, kind and the pair events carried. */
  id: string;
  /** `<id@domain>`, the same for every retry of this notification. */
  messageId: string;
  networkId: string;
  kind: NotificationKind;
  asOf: IsoDate;
  to: string[];
  /** Pair events carried (`class|pairKey`), so a forced re-run never e-mails one twice. */
  events: string[];
  /** Epoch milliseconds. */
  createdAt: number;
}

/**
 * A notification as the outbox keeps it: everything delivery needs, without the pair events.
 * The events matter only to the run that decides the e-mail (they go to the network's
 * sent-events record in the same commit); carried along they would be thousands of strings to
 * write, read and parse per alert for nothing.
 */
export type OutboxNotification = Omit<Notification, 'events'>;

/** What the outbox keeps of one channel delivery: everything the post needs but the secrets. */
export interface ChannelDelivery {
  /** `<notificationId>-<channel name>` (channelDeliveryId). */
  id: string;
  /** The notification this delivers: the webhook's X-Thm-Notification-Id. */
  notificationId: string;
  /** The e-mail's Message-ID: the same identity on every channel. */
  messageId: string;
  networkId: string;
  kind: NotificationKind;
  asOf: IsoDate;
  /** The e-mail's subject, for listings (`thm notify failed`, `thm status`). */
  subject: string;
  /** Epoch milliseconds. */
  createdAt: number;
  channel: { type: ChannelType; name: string };
  /** The exact request body (JSON text), signed as it is at send time. */
  body: string;
}

/** What one outbox entry delivers: an e-mail, or one notification to one channel. */
export type OutboxItem = OutboxNotification | ChannelDelivery;

export function isChannelDelivery(item: OutboxItem): item is ChannelDelivery {
  return 'channel' in item;
}

export type DeliveryState = 'pending' | 'sent' | 'failed';

export interface OutboxEntry {
  /** The e-mail, or the channel delivery (isChannelDelivery). */
  notification: OutboxItem;
  state: DeliveryState;
  attempts: number;
  /** Last error (SMTP reply) while pending or failed. */
  lastError?: string;
  sentAt?: number;
  /** Epoch milliseconds before which a pending entry is not due (set by recordAttempt). */
  nextAttemptAt?: number;
  /** Epoch milliseconds of markFailed. */
  failedAt?: number;
}

/**
 * The outbox as the sender sees it: exactly these store methods, implemented by RedisStore
 * (src/store/) with these names and signatures. Recording a notification happens elsewhere, in
 * the same atomic step as the history change that decided it.
 */
export interface OutboxStore {
  getNotification(id: string): Promise<OutboxEntry | undefined>;
  /** Ids of the pending entries whose next attempt is due at `now` (epoch ms), oldest first. */
  pendingNotificationIds(limit: number, now: number): Promise<string[]>;
  /**
   * Takes the delivery lease of a pending notification that is due at `now` (epoch ms) for
   * `leaseMs`, atomically with reading its state, so two senders (two replicas, or a job and a
   * sweep in one process) never send it at the same time, and none sends it before its
   * nextAttemptAt. The lease ends with the next transition below (recordAttempt, markSent,
   * markFailed), with `releaseNotification`, or when it expires (the holder crashed).
   */
  claimNotification(id: string, owner: string, leaseMs: number, now: number): Promise<OutboxClaim>;
  /** Gives a lease back without a transition (only the owner's lease). */
  releaseNotification(id: string, owner: string): Promise<void>;
  /** One more failed attempt: keeps the entry pending, due again at nextAttemptAt. */
  recordAttempt(id: string, error: string, nextAttemptAt: number): Promise<void>;
  /** Only after the SMTP server accepted the message (or it was written to the outbox dir). */
  markSent(id: string, at: number): Promise<void>;
  /** A permanent refusal (SMTP 5xx, a channel's 4xx): kept, visible in `thm status`, never retried. */
  markFailed(id: string, error: string, at: number): Promise<void>;
}

/**
 * What `claimNotification` found: the entry, now leased to the caller; or why not: it is
 * pending but not due before `dueAt` (its nextAttemptAt), another sender holds the lease
 * ('busy'), it is no longer pending, or it is not in the outbox.
 */
export type OutboxClaim =
  | { status: 'claimed'; entry: OutboxEntry }
  | { status: 'not-due'; dueAt: number }
  | { status: 'busy' | 'sent' | 'failed' | 'missing' };

export interface SendResult {
  accepted: boolean;
  /** The server's reply line, or where the message was written. */
  response: string;
}

/**
 * Hands one notification to the mail system. Throws SmtpError: THM_SMTP_TRANSIENT (retry) or
 * THM_SMTP_REJECTED (do not).
 */
export interface MailTransport {
  send(notification: OutboxNotification, from: string): Promise<SendResult>;
  close(): Promise<void>;
}

/** What one delivery attempt of `NotificationSender.deliver` came to. */
export type DeliveryOutcome =
  | 'sent'
  | 'retry'
  | 'failed'
  | 'missing'
  | 'already-sent'
  /** Another sender holds the lease and is delivering it now. */
  | 'in-flight'
  /** Pending, but its next attempt is not due yet (see OutboxEntry.nextAttemptAt). */
  | 'not-due'
  /** A channel delivery held back unposted: its endpoint has as many posts in flight as allowed. */
  | 'endpoint-busy';

export interface DeliverySummary {
  /** Entries looked at. */
  due: number;
  sent: number;
  retry: number;
  failed: number;
  alreadySent: number;
  /** Being delivered by another sender meanwhile. */
  inFlight: number;
  /** Pending but not due (another sender recorded a failed attempt meanwhile). */
  notDue: number;
  missing: number;
  /** Attempts that threw for another reason (e.g. the store was unreachable); retried later. */
  errors: number;
}
