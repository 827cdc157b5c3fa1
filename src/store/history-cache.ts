import { randomBytes } from 'node:crypto';
import { pairKey } from '../monitor/pair-key.js';
import type { ActivePair, HistoryChanges, WatchedRun } from '../monitor/types.js';
import { storedActivePair } from './active-codec.js';

/**
 * The history a store committed last, per network, kept decoded (target P1 and P6,
 * docs/performance.md). A network's next traffic-check, usually on the same worker the next
 * day, would read its active pairs and listed runs back from Redis and decode them: at 10,000
 * pairs about an eighth of the check. With the history kept here, the load asks Redis to leave
 * the two blobs out when they are still the ones this store wrote (store/scripts.ts,
 * `loadScript`), and takes them from here.
 *
 * "Still the ones": every commit that rewrites the history writes a new random stamp beside it
 * (FIELD.stamp); the load compares the stamp it has with the stored one, in Redis. Another
 * worker's commit, a deleted network or a restored backup changes or removes the stamp, and the
 * load reads and decodes as before. What is kept is exactly what decoding would give (the
 * stored form of each pair, the codecs' order), so a check decides the same either way.
 *
 * Only large histories are kept, and a bounded number of pairs in all: a small history decodes
 * in well under a millisecond, and a fleet of small networks (target P3's 200 x 2,000 pairs)
 * keeps its memory. The least recently used network goes first.
 */

/** A history smaller than this is not kept: decoding it is cheap. */
export const HISTORY_CACHE_MIN_PAIRS = 5_000;
/** At most this many pairs (active pairs and listed runs) kept in all, per store. */
export const HISTORY_CACHE_MAX_PAIRS = 250_000;

export interface CachedHistory {
  stamp: string;
  active: ReadonlyMap<string, ActivePair>;
  runs: ReadonlyMap<string, WatchedRun>;
  size: number;
}

export class HistoryCache {
  /** By network; the Map's order is the use order, least recent first. */
  private readonly networks = new Map<string, CachedHistory>();
  private pairs = 0;

  constructor(
    private readonly minPairs = HISTORY_CACHE_MIN_PAIRS,
    private readonly maxPairs = HISTORY_CACHE_MAX_PAIRS,
  ) {}

  /** A new stamp for a history about to be committed. */
  static newStamp(): string {
    return randomBytes(9).toString('base64url');
  }

  /**
   * The history kept for `networkId`, marked as just used. Its stamp is what the load hands to
   * Redis; the entry itself is what the load uses if Redis answers that stamp (a commit of this
   * store meanwhile replaces the entry, never changes it).
   */
  held(networkId: string): CachedHistory | undefined {
    const kept = this.networks.get(networkId);
    if (kept === undefined) return undefined;
    this.networks.delete(networkId);
    this.networks.set(networkId, kept);
    return kept;
  }

  /**
   * Keeps the history just committed under `stamp` (its `upsert` and `runs`), in the form
   * decoding it would give: `active` in encodeActive's order (domains by their first pair, pairs in list order) and
   * each pair as stored (storedActivePair: its domain's URL, the drop to 2 decimals); `runs`
   * in runs-codec's order, as they are (stored as they are).
   */
  keep(networkId: string, stamp: string, history: HistoryChanges): void {
    this.forget(networkId);
    const { upsert, runs = [] } = history;
    const size = upsert.length + runs.length;
    if (size < this.minPairs || size > this.maxPairs) return;
    const kept: CachedHistory = {
      stamp,
      active: byDomainOrder(upsert, (pair, first) => storedActivePair(pair, first.domainUrl)),
      runs: byDomainOrder(runs, (run) => run),
      size,
    };
    this.networks.set(networkId, kept);
    this.pairs += size;
    for (const [id, old] of this.networks) {
      if (this.pairs <= this.maxPairs) break;
      this.networks.delete(id);
      this.pairs -= old.size;
    }
  }

  forget(networkId: string): void {
    const kept = this.networks.get(networkId);
    if (kept === undefined) return;
    this.networks.delete(networkId);
    this.pairs -= kept.size;
  }

  /** Pairs kept in all (tests). */
  get size(): number {
    return this.pairs;
  }
}

/**
 * Items keyed by pairKey in the codecs' order: domains in the order of their first item, the
 * items of a domain in list order (store/domain-lists.ts).
 */
function byDomainOrder<T extends { domainId: number; isp: string }>(
  items: readonly T[],
  stored: (item: T, firstOfDomain: T) => T,
): Map<string, T> {
  /** Item indexes by domain, in the order of each domain's first item. */
  const domains = new Map<number, number[]>();
  for (let i = 0; i < items.length; i++) {
    const domainId = items[i]!.domainId;
    const list = domains.get(domainId);
    if (list === undefined) domains.set(domainId, [i]);
    else list.push(i);
  }
  const out = new Map<string, T>();
  domains.forEach((list) => {
    const first = items[list[0]!]!;
    for (let j = 0; j < list.length; j++) {
      const i = list[j]!;
      const item = stored(items[i]!, first);
      out.set(pairKey(item.domainId, item.isp), item);
    }
  });
  return out;
}
