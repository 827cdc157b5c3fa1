/**
 * The names the config and the notifications share: the kinds of notification and the channels
 * they go out on. A module of its own that imports nothing, so that the config's schema and the
 * notify code can both take them without depending on each other.
 */

/** Every kind of notification, as the config's `channels[].kinds` names them. */
export const NOTIFICATION_KINDS = [
  'alert',
  'problem',
  'restored',
  'premium-lost',
  'premium-regained',
  'invoice',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Channels beside e-mail: a signed JSON webhook, or a Slack incoming webhook. */
export type ChannelType = 'webhook' | 'slack';
export const CHANNEL_TYPES: readonly ChannelType[] = ['webhook', 'slack'];

/** Channel names are slugs: they go into delivery ids, job ids and file names. */
export const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]{0,23}$/;

/**
 * How the e-mail is named where channels are listed (`thm status`, `thm notify failed`, the
 * metrics' `channel` label): no configured channel may take the name.
 */
export const EMAIL_CHANNEL = 'email';
