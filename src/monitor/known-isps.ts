import { dayNumber, type IsoDate } from '../dates.js';
import type { IspTrend, KnownDomain } from './types.js';

/**
 * The ISPs each tracking domain has shown (glossary in types.ts: "known ISPs"). The API lists
 * only the declining pairs, so only memory tells how many ISPs a domain has, and so whether
 * most of them are down together today (monitor/common-move.ts).
 *
 * An ISP is known from the day its pair is listed with a comparison day of at least
 * KNOWN_MIN_CLICKS (a smaller pair's listing is mostly chance) until KNOWN_DAYS as-of days
 * after it was last listed: a pair of some size is listed about one day in four, so a month
 * sees nearly every one. What is kept is a sample: the ISPs whose 16-bit hash is under a
 * limit that halves whenever more than MAX_SAMPLE are kept (all of a domain's ISPs while it
 * has fewer). Each counts for 2^level ISPs; the share of the sample listed today is the share
 * of the domain, and the memory stays a few numbers a domain however many ISPs it has.
 */

/** A pair becomes known when listed with its comparison days (7 and 14 back) at this mean. */
export const KNOWN_MIN_CLICKS = 20;
/** A known ISP not listed for this many as-of days is forgotten. */
export const KNOWN_DAYS = 28;
/** At most this many ISPs are kept per domain (then the sample halves). */
export const MAX_SAMPLE = 32;
/**
 * The share of days a pair of some size is in the list with no decline of its own (about one
 * in four when its days vary alike; fewer when day 30 back is a busier weekday): what a memory
 * of a few days misses.
 */
export const LISTED_DAY_SHARE = 0.2;

/**
 * How many ISPs the domain has, in sampled ISPs, seen from today's list: those listed today,
 * and those known but not listed today, divided by the share of the ISPs not listed today that
 * the memory of the days before holds (1 - (1 - LISTED_DAY_SHARE)^days). A domain first seen
 * today tells nothing of the ISPs not listed: undefined.
 */
export function knownCount(
  domain: KnownDomain,
  listedToday: number,
  asOf: IsoDate,
): number | undefined {
  const today = dayNumber(asOf);
  const daysBefore = today - domain.since;
  if (daysBefore <= 0) return undefined;
  let unlisted = 0;
  for (const last of domain.lastListed) if (last < today) unlisted++;
  return listedToday + unlisted / (1 - (1 - LISTED_DAY_SHARE) ** daysBefore);
}

/**
 * 16 bits of a hash of the ISP's UTF-16 code units: FNV-1a, then murmur3's finaliser, whose
 * avalanche spreads the last characters over all bits ("ISP 10" and "ISP 11" fall far apart).
 */
export function ispHash(isp: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < isp.length; i++) {
    h ^= isp.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 16) & 0xffff;
}

export function inSample(hash: number, level: number): boolean {
  return hash < 0x10000 >>> level;
}

/** ispHash of each entry's ISP, in order; each ISP name hashed once (a network has a few hundred). */
export function ispHashes(listed: readonly Pick<IspTrend, 'isp'>[]): number[] {
  const memo = new Map<string, number>();
  return listed.map(({ isp }) => {
    let hash = memo.get(isp);
    if (hash === undefined) {
      hash = ispHash(isp);
      memo.set(isp, hash);
    }
    return hash;
  });
}

/**
 * The memory after today's list: sampled pairs listed today with comparison days of
 * KNOWN_MIN_CLICKS are known as of today, those not listed for KNOWN_DAYS are forgotten.
 * A re-run of the same as-of date changes nothing more.
 */
export function updateKnown(
  prev: readonly KnownDomain[] | undefined,
  listed: readonly IspTrend[],
  /** ispHashes of `listed`. */
  hashes: readonly number[],
  asOf: IsoDate,
): KnownDomain[] {
  const today = dayNumber(asOf);
  const domains = new Map<number, Map<number, number>>();
  const levels = new Map<number, number>();
  const since = new Map<number, number>();
  for (const domain of prev ?? []) {
    since.set(domain.domainId, domain.since);
    const seen = new Map<number, number>();
    for (let i = 0; i < domain.hashes.length; i++) {
      const last = domain.lastListed[i]!;
      if (today - last < KNOWN_DAYS) seen.set(domain.hashes[i]!, last);
    }
    domains.set(domain.domainId, seen);
    levels.set(domain.domainId, domain.level);
  }
  for (let i = 0; i < listed.length; i++) {
    const pair = listed[i]!;
    const size = (pair.seven_days_ago_total_clicks + pair.fourteen_days_ago_total_clicks) / 2;
    if (size < KNOWN_MIN_CLICKS) continue;
    const hash = hashes[i]!;
    const domainId = pair.network_tracking_domain_id;
    const level = levels.get(domainId) ?? 0;
    if (!inSample(hash, level)) continue;
    let seen = domains.get(domainId);
    if (seen === undefined) {
      seen = new Map();
      domains.set(domainId, seen);
      levels.set(domainId, level);
      since.set(domainId, today);
    }
    seen.set(hash, Math.max(today, seen.get(hash) ?? today));
  }
  const result: KnownDomain[] = [];
  for (const [domainId, seen] of domains) {
    let level = levels.get(domainId) ?? 0;
    while (seen.size > MAX_SAMPLE) {
      level++;
      for (const hash of [...seen.keys()]) if (!inSample(hash, level)) seen.delete(hash);
    }
    if (seen.size === 0) continue;
    const hashes = [...seen.keys()].sort((a, b) => a - b);
    result.push({
      domainId,
      since: since.get(domainId) ?? today,
      level,
      hashes,
      lastListed: hashes.map((h) => seen.get(h)!),
    });
  }
  return result.sort((a, b) => a.domainId - b.domainId);
}
