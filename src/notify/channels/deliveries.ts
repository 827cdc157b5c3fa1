import type { ChannelDelivery, Notification } from '../types.js';
import type { NotificationEvent } from './event.js';
import { renderSlackMessage } from './slack-message.js';
import type { ChannelConfig } from '../../config/load.js';
import { channelDeliveryId } from './delivery-id.js';
import { renderWebhookPayload } from './webhook-payload.js';

export interface ChannelDeliveriesInput {
  notification: Notification;
  network: { id: string; name: string };
  /** The channels' kinds decide; their secrets are read only when a delivery is posted. */
  channels: readonly Pick<ChannelConfig, 'type' | 'name' | 'kinds'>[];
  event: NotificationEvent;
}

/**
 * The channel deliveries of one decided notification: one per channel that takes its kind,
 * each with the body it will post, rendered here (pure) so the outbox holds exactly what goes
 * out and a retry posts the same bytes. Committed with the notification, in the same step.
 */
export function buildChannelDeliveries(input: ChannelDeliveriesInput): ChannelDelivery[] {
  const { notification: n } = input;
  const wanted = input.channels.filter((c) => !c.kinds || c.kinds.includes(n.kind));
  if (wanted.length === 0) return [];
  const message = { notification: n, network: input.network, event: input.event };
  const bodies = new Map<ChannelConfig['type'], string>();
  const bodyFor = (type: ChannelConfig['type']): string => {
    let body = bodies.get(type);
    if (body === undefined) {
      body = JSON.stringify(
        type === 'webhook' ? renderWebhookPayload(message) : renderSlackMessage(message),
      );
      bodies.set(type, body);
    }
    return body;
  };
  return wanted.map((channel) => ({
    id: channelDeliveryId(n.id, channel.name),
    notificationId: n.id,
    messageId: n.messageId,
    networkId: n.networkId,
    kind: n.kind,
    asOf: n.asOf,
    subject: n.subject,
    createdAt: n.createdAt,
    channel: { type: channel.type, name: channel.name },
    body: bodyFor(channel.type),
  }));
}
