import type { IsoDate } from '../monitor/types.js';

export type NotificationKind =
  | 'alert'
  | 'problem'
  | 'restored'
  | 'premium-lost'
  | 'premium-regained'
  | 'invoice';

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

export type DeliveryState = 'pending' | 'sent' | 'failed';

export interface OutboxEntry {
  notification: Notification;
  state: DeliveryState;
  attempts: number;
  /** Last error (SMTP reply) while pending or failed. */
  lastError?: string;
  sentAt?: number;
}
