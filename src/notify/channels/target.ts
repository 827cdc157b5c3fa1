import type { ChannelConfig } from '../../config/load.js';
import type { Secret } from '../../config/secret.js';

/** A channel with its URL and signing key read: what one post uses. */
export interface ChannelTarget extends Omit<ChannelConfig, 'url' | 'secret'> {
  url?: Secret;
  secret?: Secret;
}

/**
 * The channel's secrets read now, for one delivery: a file again each time, so a rotated one is
 * used by the next delivery. A ConfigError naming the option (`channels[0].urlFile: cannot read
 * ...`), never the value, when one does not resolve.
 */
export function readChannel(channel: ChannelConfig): ChannelTarget {
  const { url, secret, ...rest } = channel;
  return {
    ...rest,
    ...(url === undefined ? {} : { url: url.read() }),
    ...(secret === undefined ? {} : { secret: secret.read() }),
  };
}
