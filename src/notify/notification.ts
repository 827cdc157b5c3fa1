import { createHash } from 'node:crypto';
import type { IsoDate } from '../monitor/types.js';
import { headerValue } from './render/format.js';
import type { NotificationKind } from '../notification-names.js';
import type { Notification, RenderedEmail } from './types.js';

export interface BuildNotificationInput {
  networkId: string;
  kind: NotificationKind;
  asOf: IsoDate;
  to: string[];
  email: RenderedEmail;
  /** The events it carries: `class|pairKey` for alerts (pairEvents, src/monitor/decide.ts); any stable strings for other kinds. */
  events: string[];
  /** mail.from: its domain becomes the Message-ID's right-hand side. */
  from: string;
  /** Epoch milliseconds (createdAt); not part of the identity. */
  now: number;
}

/**
 * What notificationId returns: 32 lower-case hex digits (128 bits of the hash). The outbox tells
 * an e-mail from a channel delivery by this format (channels/delivery-id.ts), so it is checked, not
 * guessed from a character.
 */
export const NOTIFICATION_ID = /^[0-9a-f]{32}$/;

/**
 * The notification's identity: network, as-of date, kind and the events it carries, and
 * nothing else (not the time, not the rendered text), so a retried or re-decided send of the
 * same thing has the same id and the same Message-ID. JSON-encoded before hashing, so no choice
 * of separator inside an ISP name can make two identities collide.
 */
export function notificationId(
  networkId: string,
  asOf: IsoDate,
  kind: NotificationKind,
  events: readonly string[],
  /** The events are already sorted (saves a second sort of 10,000 strings). */
  sorted = false,
): string {
  const list = sorted ? events : [...events].sort();
  const identity = JSON.stringify([networkId, asOf, kind, list]);
  return createHash('sha256').update(identity).digest('hex').slice(0, 32);
}

/** The domain of `mail.from` ("Name <a@b.example>" or "a@b.example"), safe for a Message-ID. */
export function messageIdDomain(from: string): string {
  const address = /<([^<>]*)>\s*$/.exec(from)?.[1] ?? from;
  const domain = address
    .slice(address.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase();
  return /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/.test(domain) && address.includes('@')
    ? domain
    : 'traffic-health.invalid';
}

export function buildNotification(input: BuildNotificationInput): Notification {
  const events = [...input.events].sort();
  const id = notificationId(input.networkId, input.asOf, input.kind, events, true);
  return {
    id,
    messageId: `<${id}@${messageIdDomain(input.from)}>`,
    networkId: input.networkId,
    kind: input.kind,
    asOf: input.asOf,
    to: [...input.to],
    events,
    createdAt: input.now,
    // The renderers already keep the subject to one line; this is the last gate before a header.
    subject: headerValue(input.email.subject),
    text: input.email.text,
    html: input.email.html,
  };
}
