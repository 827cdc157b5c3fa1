import type { NetworkConfig } from '../config/load.js';
import type { DecidedNotification } from '../monitor/decide.js';
import { buildChannelDeliveries } from './channels/deliveries.js';
import { notificationEvent } from './channels/event.js';
import { renderNotifications, type RenderContext } from './emails.js';
import type { ChannelDelivery, Notification } from './types.js';

/**
 * The render step's whole output, what the commit puts into the outbox beside the history
 * change (src/jobs/commit.ts). Pure, like the renderers.
 */
export interface RenderedRun {
  /** Every decided notification, in order: its id is its identity on every channel. */
  notifications: Notification[];
  /** The e-mails to send: the notifications, when the network has recipients (else none). */
  emails: Notification[];
  /** One per (notification, channel that takes its kind), each an outbox entry of its own. */
  deliveries: ChannelDelivery[];
}

export interface RunRenderContext extends RenderContext {
  network: RenderContext['network'] & Pick<NetworkConfig, 'channels'>;
}

export function renderRun(
  decided: readonly DecidedNotification[],
  ctx: RunRenderContext,
): RenderedRun {
  const notifications = renderNotifications(decided, ctx);
  const network = { id: ctx.network.id, name: ctx.network.name };
  const deliveries =
    ctx.network.channels.length === 0
      ? []
      : notifications.flatMap((notification, i) =>
          buildChannelDeliveries({
            notification,
            network,
            channels: ctx.network.channels,
            event: notificationEvent(decided[i]!, ctx.network.alerts.notifyCleared),
          }),
        );
  return {
    notifications,
    emails: ctx.network.recipients.length > 0 ? notifications : [],
    deliveries,
  };
}
