import { decodeListing, listingEntries } from '../store/listing-codec.js';
import type { StoredListingBytes } from '../store/listings.js';
import type { ReplaySource } from './replay.js';

/**
 * The stored listings as replay sources, each decoded when its day is replayed: one day's
 * entries are held at a time, however long the range.
 */
export function* storedSources(
  networkId: string,
  stored: readonly StoredListingBytes[],
): Generator<ReplaySource> {
  for (const { asOf, bytes } of stored) {
    const day = decodeListing(bytes, `the stored listing of ${networkId} for ${asOf}`);
    yield {
      asOf,
      entries: () => listingEntries(day.listing),
      sent: day.sent,
      ...(day.counts ? { sentCounts: day.counts } : {}),
    };
  }
}
