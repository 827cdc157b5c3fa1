import { NOTIFICATION_ID } from '../notification.js';
import { CHANNEL_NAME } from '../../notification-names.js';

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
 * sets an unreadable entry aside (store/outbox.ts).
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
