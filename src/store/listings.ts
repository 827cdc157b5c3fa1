import { ThmError } from '../errors.js';
import type { RedisClient } from '../redis/connection.js';
import type { IsoDate } from '../monitor/types.js';
import type { StoreKeys } from './keys.js';

/*
 * The stored listings of a network, read for `thm replay`. Each traffic-check writes its own in
 * the commit of its run (store/scripts.ts, commitScript; the format is store/listing-codec.ts),
 * and Redis expires it history.keepListingsDays later: nothing here writes or deletes.
 */

/** A stored listing, still in its stored bytes (decoded one at a time by the reader). */
export interface StoredListingBytes {
  asOf: IsoDate;
  bytes: Buffer;
}

/**
 * The listings stored for `dates`, in that order; a date without one (no run that day, a failed
 * or premium-inactive run, or expired) is left out. One command however many dates.
 */
export async function readListings(
  redis: RedisClient,
  keys: StoreKeys,
  networkId: string,
  dates: readonly IsoDate[],
): Promise<StoredListingBytes[]> {
  if (dates.length === 0) return [];
  let replies: Array<Buffer | null>;
  try {
    replies = await redis.mgetBuffer(...dates.map((asOf) => keys.listing(networkId, asOf)));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ThmError('THM_STORE', `redis read listings: ${message.split('\n', 1)[0]}`, {
      retryable: true,
    });
  }
  const found: StoredListingBytes[] = [];
  replies.forEach((bytes, i) => {
    if (bytes) found.push({ asOf: dates[i]!, bytes });
  });
  return found;
}
