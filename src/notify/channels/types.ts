import type { Secret } from '../../config/secret.js';
import type { IsoDate } from '../../monitor/types.js';
import { NOTIFICATION_ID } from '../notification.js';
import type { NotificationKind } from '../types.js';

/**
 * Channels beside e-mail: a signed JSON webhook, or a Slack incoming webhook.
 *
 * Glossary:
 * - channel: one configured endpoint of a network (`networks[].channels`, or the top-level
 *   `channels` default list), named (`name`, default its type) so a delivery can find it again.
 * - channel delivery: one (notification, channel) in the outbox, with the exact body to post.
 *   It is decided in the same commit as the notification, and delivered, retried, leased and
 *   failed on its own: one endpoint being down never holds up another one or the e-mail.
 * - delivery id: `<notification id>-<channel name>`; the e-mail keeps the bare notification id.
 */
export type ChannelType = 'webhook' | 'slack';
export const CHANNEL_TYPES: readonly ChannelType[] = ['webhook', 'slack'];

/** A channel of the effective config, with its secrets resolved. */
export interface ChannelConfig {
  type: ChannelType;
  /** Unique among the network's channels; part of every delivery id. */
  name: string;
  /**
   * Where to post; undefined: no endpoint, the body is written to `mail.outboxDir` as a `.json`
   * file beside the e-mails (the demo, a dry run).
   */
  url?: Secret;
  /** webhook: the HMAC-SHA256 key of the X-Thm-Signature header. */
  secret?: Secret;
  /** Kinds posted to this channel; undefined: every kind. */
  kinds?: NotificationKind[];
  /** The deadline of one post; undefined: the transport's (DEFAULT_CHANNEL_TIMEOUTS.totalMs). */
  timeoutMs?: number;
}

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

/** Channel names are slugs: they go into delivery ids, job ids and file names. */
export const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]{0,23}$/;

/**
 * How the e-mail is named where channels are listed (`thm status`, `thm notify failed`, the
 * metrics' `channel` label): no configured channel may take the name.
 */
export const EMAIL_CHANNEL = 'email';

export function channelDeliveryId(notificationId: string, channelName: string): string {
  return `${notificationId}-${channelName}`;
}

/** `<notification id>-<channel name>`, both parts exactly as they are made: nothing else. */
const CHANNEL_DELIVERY_ID = new RegExp(
  `^(${NOTIFICATION_ID.source.slice(1, -1)})-(${CHANNEL_NAME.source.slice(1, -1)})$`,
);

/**
 * Whether an outbox id is a channel delivery's, by its whole format: a junk id that merely
 * contains a `-` is neither a delivery nor an e-mail, and goes the e-mail's way, whose claim
 * sets an unreadable entry aside (store/redis-store.ts).
 */
export function isChannelDeliveryId(id: string): boolean {
  return CHANNEL_DELIVERY_ID.test(id);
}

/** The parts of a channel delivery id; undefined for any other id. */
export function parseChannelDeliveryId(
  id: string,
): { notificationId: string; channel: string } | undefined {
  const match = CHANNEL_DELIVERY_ID.exec(id);
  return match ? { notificationId: match[1]!, channel: match[2]! } : undefined;
}
