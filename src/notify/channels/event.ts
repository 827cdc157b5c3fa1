import type { DecidedNotification } from '../../monitor/decide.js';
import type {
  Classification,
  InvoiceChange,
  InvoiceSnapshot,
  ProblemEpisode,
} from '../../monitor/types.js';
import type { Notification } from '../types.js';

/**
 * What a decided notification is about, as data: the e-mail renders its own view of the same
 * facts, and the channel renderers (webhook JSON, Slack blocks) theirs. Decided with the
 * notification, so every channel says the same thing as the e-mail.
 */
export type NotificationEvent =
  | { kind: 'alert'; classification: Classification; notifyCleared: boolean }
  | { kind: 'problem'; problem: ProblemEpisode }
  | { kind: 'restored'; problem: ProblemEpisode; restoredAt: number }
  | { kind: 'premium-lost' | 'premium-regained'; firstSight: boolean }
  | { kind: 'invoice'; snapshot: InvoiceSnapshot; change?: InvoiceChange };

/** The parts of a decided notification a channel message carries. */
export type NotificationHeader = Pick<
  Notification,
  'id' | 'messageId' | 'networkId' | 'kind' | 'asOf' | 'subject' | 'createdAt'
>;

export interface ChannelMessageInput {
  notification: NotificationHeader;
  network: { id: string; name: string };
  event: NotificationEvent;
}

/** The event of a notification the run decided (src/monitor/decide.ts), for the channels. */
export function notificationEvent(
  decided: DecidedNotification,
  notifyCleared: boolean,
): NotificationEvent {
  switch (decided.kind) {
    case 'alert':
      return { kind: 'alert', classification: decided.classification, notifyCleared };
    case 'problem':
      return { kind: 'problem', problem: decided.problem };
    case 'restored':
      return { kind: 'restored', problem: decided.problem, restoredAt: decided.restoredAt };
    case 'premium-lost':
    case 'premium-regained':
      return { kind: decided.kind, firstSight: decided.firstSight };
    case 'invoice':
      return {
        kind: 'invoice',
        snapshot: decided.snapshot,
        ...(decided.change ? { change: decided.change } : {}),
      };
  }
}
