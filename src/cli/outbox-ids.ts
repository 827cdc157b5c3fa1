import { parseChannelDeliveryId } from '../notify/channels/delivery-id.js';
import { UsageError } from '../errors.js';

/**
 * How the CLI shows and takes outbox ids. A notification id is 32 hex characters, too long to
 * read in a table or type: `thm notify failed` and `thm status` show its first 8 (a channel
 * delivery's with `-<channel>` after them, as the .eml file names do), and `thm notify retry`
 * takes that, the whole id, or any longer beginning of it, as long as it names one failed
 * delivery.
 */
export const SHORT_ID_LENGTH = 8;

export function shortOutboxId(id: string): string {
  const delivery = parseChannelDeliveryId(id);
  return delivery
    ? `${delivery.notificationId.slice(0, SHORT_ID_LENGTH)}-${delivery.channel}`
    : id.slice(0, SHORT_ID_LENGTH);
}

/** The one id of `ids` that `given` names; a usage error when it names none or several. */
export function resolveOutboxId(given: string, ids: readonly string[]): string {
  if (ids.includes(given)) return given;
  const named = ids.filter(
    (id) =>
      shortOutboxId(id) === given || (given.length >= SHORT_ID_LENGTH && id.startsWith(given)),
  );
  if (named.length === 1) return named[0]!;
  if (named.length === 0) throw new UsageError(`no failed notification with id ${given}`);
  throw new UsageError(
    `${given} names ${named.length} failed notifications (${named.join(', ')}): give more of the id`,
  );
}
