import { addDays, daysBetween, type IsoDate } from '../dates.js';
import { inSample, knownCount } from './known-isps.js';
import { countedDomainMove, type CountedDomainMove, type CountedPoint } from './listed-count.js';
import type { IspTrend, KnownDomain, Variation } from './types.js';
import { median } from './variation.js';

/**
 * Today's common move of each domain, and of the whole network (glossary in types.ts: "common
 * move"). When most of a domain's known ISPs are in today's list together, the domain moved,
 * not each ISP on its own: a holiday, a tracking outage, a campaign that ended. Its move is the
 * median of its known ISPs' clicks against the comparison day, an ISP not in the list counting
 * as above it (its clicks are not below all its comparison days): that median is only known
 * when more than half of them are listed. Each ISP of the domain is then judged against that
 * move, not against its clicks alone (monitor/significance.ts).
 *
 * Day 30 back is a different weekday: when it was a quieter one (a weekend behind a Monday) a
 * lowered domain is listed only in part, the ISPs whose day 30 back was still above yesterday. On
 * such a day a domain moved as well when at least SHOWN_MIN_ISPS of its ISPs not reported before
 * are down beyond SHOWN_Z each on its own, together (chance alone seldom does that to one): its
 * move is then the median of its listed ISPs, as uncertain as one ISP's own variation
 * (ownPartialMove). (On other days those are declines of their own that met: the list would have
 * shown the domain whole.) The network moved when most of its domains did, by the median of its
 * domains' moves (a domain that did not move counting as above, one that shows a dip in part by the
 * median of its listed ISPs). On a day day 30 back was quieter, a domain seen whole beside
 * domains listed in part as deep is the network's dip (besideWhole), and so is a domain seen
 * dipping beside ISPs of every other domain down about as much (seenInEvery). A week after
 * the network's told dip, a domain listed in part is read against day 7 back as it would have
 * been without the dip (weekAfterDipMove). docs/alert-quality.md has the measurement.
 */

/** A domain (or the network) whose known ISPs are mostly in today's list. */
export interface CommonMove {
  /** Known ISPs in today's list, and known ISPs (sampled ISPs scaled to the domain). */
  listed: number;
  known: number;
  /** The move against 7 and 14 days back: ln(yesterday / that day), the median over the ISPs. */
  log7: number;
  log14: number;
  /**
   * The medians' standard error (log scale): what the pairs' own noise leaves in them (a
   * domain's partial move: one pair's own variation as well, ownPartialMove).
   */
  se: number;
  /** Found from the ISPs down on their own together, most of the domain not being listed. */
  partial?: boolean;
  /**
   * A week after the network's dip (weekAfterDipMove): log7 is against day 7 back as it would
   * have been without the dip, that day's clicks over this share.
   */
  weekBackShare?: number;
}

export interface NetworkMove extends CommonMove {
  /** Domains with a common move today, and domains with enough known ISPs to have one. */
  domainsMoved: number;
  domainsKnown: number;
}

/** What today's list shows of a domain's known ISPs, moved together or not. */
export interface DomainListing {
  listed: number;
  known: number;
  /** The median move of its listed known ISPs against 7 and 14 days back (undefined: none). */
  listedLog7?: number;
  listedLog14?: number;
  /** Its listed known ISPs' moves, each with its ispHash (what listingWithout leaves out). */
  points: readonly ListedMove[];
}

export interface CommonMoves {
  /** By domain id: the domains that moved together today. */
  domains: Map<number, CommonMove>;
  /** By domain id: every domain with MIN_KNOWN_ISPS known ISPs, as today's list shows it. */
  listings: Map<number, DomainListing>;
  /** The whole network, when most of it moved together across at least two domains. */
  network?: NetworkMove;
  /** Whether day 30 back was a quieter day (the list shows a lowered domain only in part). */
  day30Quieter?: boolean;
  /**
   * A domain with no move above whose count of listed ISPs says it moved down (listed-count.ts):
   * more of its ISPs are listed than its comparison days would list unmoved. Read when first
   * asked (a few solves of a domain's count: only for a new pair that would be a card).
   */
  counted?: (domainId: number) => CountedDomainMove | undefined;
}

/**
 * A domain needs this many known ISPs for "most of them" to mean something. A domain known for
 * only a few days counts the ISPs its memory has not seen yet as well (knownCount).
 */
export const MIN_KNOWN_ISPS = 5;

/** One listed ISP's move against 7 and 14 days back (log scale), by its ispHash. */
export interface ListedMove {
  hash: number;
  log7: number;
  log14: number;
}

interface Point extends ListedMove, CountedPoint {
  /** Its own noise on the log scale (variance): the pair's own variation and Poisson's. */
  noise: number;
  weight: number;
  /** Not reported before and down beyond SHOWN_Z on its own. */
  shows: boolean;
}

/** ln(after / before) with half a click on each side (a count of 0 stays finite). */
export function logRatio(after: number, before: number): number {
  return Math.log((after + 0.5) / (before + 0.5));
}

/** The drop in percent a move on the log scale is (a move up: negative). */
export function dropPercentOf(log: number): number {
  return (1 - Math.exp(log)) * 100;
}

/** A move down at least minDropPercent on both weeks (beyond noise or not). */
export function isDeepEnough(
  move: { log7: number; log14: number },
  minDropPercent: number,
): boolean {
  return dropPercentOf(move.log7) >= minDropPercent && dropPercentOf(move.log14) >= minDropPercent;
}

/**
 * What tells a domain's own move from the network's dip that day 30 back hides
 * (seenInEvery): which domains' own drops are active, and how deep a dip is worth a look.
 */
export interface SeenDipContext {
  /** Domains whose own common drop is active from an earlier run (told or remembered). */
  ownDrops: ReadonlySet<number>;
  /** alerts.minDropPercent: a domain seen dipping is down at least this on both weeks. */
  minDropPercent: number;
  /**
   * Domains whose comparison day 7 or 14 back lies inside their own drop (comparesInside): one
   * that lists nothing shows nothing of a dip, for or against it.
   */
  blind?: ReadonlySet<number>;
  /**
   * When today's day 7 back was the network's told dip (a holiday a week ago): the share of that
   * day the network kept (weekBackInNetworkDip, dip-week.ts). Absent on other days.
   */
  weekBackShare?: number;
  /**
   * Whether a domain's move is a drop worth a headline of its own (isCommonDrop, common-drops.ts).
   * Absent: a domain seen whole is never read beside a domain listed widely (besideWhole).
   */
  isHeadline?: (move: CommonMove) => boolean;
}

/**
 * Whether today's comparison day 7 or 14 back lies inside a domain's own drop, seen from
 * `firstSeen` to `lastSeen` (as-of dates): the list then holds none or few of its ISPs, each
 * being above that low day, whatever yesterday was.
 */
export function comparesInside(
  drop: { firstSeen: IsoDate; lastSeen: IsoDate },
  asOf: IsoDate,
  /** Which comparison days, in days back. */
  backs: readonly number[] = [7, 14],
): boolean {
  return backs.some((back) => {
    const day = addDays(asOf, -back);
    return daysBetween(drop.firstSeen, day) >= 0 && daysBetween(day, drop.lastSeen) >= 0;
  });
}

export function commonMoves(
  known: readonly KnownDomain[],
  listed: readonly IspTrend[],
  /** ispHashes of `listed`. */
  hashes: readonly number[],
  variation: Variation,
  asOf: IsoDate,
  /**
   * Whether `listed[index]` is not active and down beyond SHOWN_Z on its own clicks (the learned
   * variation, no common move): what a domain's or the network's dip shows on a day day 30 back
   * hides most of it. Asked only of a domain's sampled known ISPs.
   */
  shows: (index: number) => boolean,
  /**
   * Whether today's day 30 back was a quieter day than yesterday's weekday, or the list does
   * not show it (Day30Evidence.quieter, hold.ts): a day it can hide most of a domain's or the
   * network's dip.
   */
  day30Quieter = false,
  /** Absent: a domain seen dipping is never read with the others' few ISPs (seenInEvery). */
  seenDip?: SeenDipContext,
  /**
   * Whether `listed[index]` is active (an ISP's own decline, told before): it is listed for its
   * own reasons, and says nothing of its domain's count (countedMoves).
   */
  isActive: (index: number) => boolean = () => false,
): CommonMoves {
  const own = 2 * Math.max(0, variation.extra - variation.common);
  const byDomain = new Map<number, { domain: KnownDomain; hashes: Set<number>; points: Point[] }>();
  for (const domain of known) {
    byDomain.set(domain.domainId, { domain, hashes: new Set(domain.hashes), points: [] });
  }
  for (let index = 0; index < listed.length; index++) {
    const pair = listed[index]!;
    const slot = byDomain.get(pair.network_tracking_domain_id);
    if (slot === undefined) continue;
    const hash = hashes[index]!;
    if (!inSample(hash, slot.domain.level) || !slot.hashes.has(hash)) continue;
    const yesterday = pair.yesterday_total_clicks;
    const d7 = pair.seven_days_ago_total_clicks;
    const d14 = pair.fourteen_days_ago_total_clicks;
    const d30 = pair.thirty_days_ago_total_clicks;
    slot.points.push({
      hash,
      size: (d7 + d14) / 2,
      log30: Math.log(d30 + 0.5) - (Math.log(d7 + 0.5) + Math.log(d14 + 0.5)) / 2,
      half7: (Math.log(d7 + 0.5) - Math.log(d14 + 0.5)) / 2,
      log7: logRatio(yesterday, d7),
      log14: logRatio(yesterday, pair.fourteen_days_ago_total_clicks),
      noise: own + 1 / (yesterday + 0.5) + 1 / (d7 + 0.5),
      weight: 2 ** slot.domain.level,
      shows: shows(index),
      active: isActive(index),
    });
  }
  const domains = new Map<number, CommonMove>();
  const listings = new Map<number, DomainListing>();
  /** Each domain with enough known ISPs: its known weight, and its move (0: none). */
  const ofNetwork: Array<{ weight: number; log7: number; log14: number; se: number }> = [];
  /** The listed points of the domains that moved or show the network's dip in part. */
  const showing: Point[][] = [];
  /** How many of them show it in part only (not most of their known ISPs listed). */
  let inPart = 0;
  /** Beside domains seen whole: what the domains not seen whole show of a hidden dip. */
  const beside: Beside = { whole: [], domains: [], deepestWhole: 0, headline: false };
  /** The domains that moved, whole or in part, and the listed points of those that did not. */
  const seen: Array<{ domainId: number; move: CommonMove; points: Point[] }> = [];
  const unmoved: Point[][] = [];
  let knownWeight = 0;
  let listedWeight = 0;
  /** A domain's own drop is active (a campaign's end): its move is that drop and a dip together. */
  const ownBeside = (seenDip?.ownDrops.size ?? 0) > 0;
  for (const [domainId, { domain, points }] of byDomain) {
    const sample = knownCount(domain, points.length, asOf);
    if (sample === undefined || sample < MIN_KNOWN_ISPS) continue;
    const weight = 2 ** domain.level;
    const known = sample * weight;
    const listed = points.length * weight;
    knownWeight += known;
    listedWeight += listed;
    const censored = censoredMove(points, known, sample);
    // Most of it not listed: what its listed ISPs show of a dip (its own move only when day 30
    // back was quieter, ownPartialMove).
    const partial = censored === undefined ? partialMove(points, weight, known) : undefined;
    // A week after the network's dip (not when day 30 back hides the other domains as well).
    const afterDip =
      censored === undefined && !day30Quieter
        ? weekAfterDipMove(points, weight, known, own, seenDip?.weekBackShare)
        : undefined;
    const move =
      censored ??
      (day30Quieter && partial !== undefined ? ownPartialMove(partial, own) : undefined) ??
      afterDip;
    if (move !== undefined) {
      domains.set(domainId, move);
      seen.push({ domainId, move, points });
    } else if (points.length > 0 || seenDip?.blind?.has(domainId) !== true) unmoved.push(points);
    if (move !== undefined || showsDip(points)) {
      showing.push(points);
      if (move === undefined || move.partial === true) inPart++;
    }
    if (move !== undefined && move.partial !== true) {
      beside.whole.push(points);
      beside.deepestWhole = Math.min(beside.deepestWhole, move.log7);
      if (seenDip?.isHeadline?.(move) === true) beside.headline = true;
    } else if (shownCount(points) > 0 || listed >= known * BESIDE_LISTED_SHARE) {
      beside.domains.push({ points, listedShare: listed / known });
    }
    // In the network's median a domain showing the dip in part counts by its listed ISPs on any
    // day (day 30 back quieter or not); a week after the network's dip, against the same day as
    // its own move.
    const shownMove = censored ?? afterDip ?? partial;
    const listing = listingOf(points, listed, known);
    ofNetwork.push(
      shownMove === undefined
        ? { weight: known, log7: 0, log14: 0, se: 0 }
        : networkPart(
            shownMove,
            points,
            listing,
            known,
            day30Quieter && ownBeside && censored !== undefined,
          ),
    );
    listings.set(domainId, listing);
  }
  const moves: CommonMoves = {
    domains,
    listings,
    day30Quieter,
    counted: countedMoves(byDomain, domains, variation, asOf),
  };
  if (domains.size >= 2 && domains.size * 2 > ofNetwork.length) {
    const half = knownWeight / 2;
    const log7 = weightedLower(ofNetwork, (d) => d.log7, half);
    const log14 = weightedLower(ofNetwork, (d) => d.log14, half);
    if (log7 < 0 && log14 < 0) {
      let se = 0;
      for (const d of ofNetwork) se += (d.weight * d.se) ** 2;
      moves.network = {
        listed: listedWeight,
        known: knownWeight,
        log7,
        log14,
        se: Math.sqrt(se) / knownWeight,
        domainsMoved: domains.size,
        domainsKnown: ofNetwork.length,
      };
    }
  }
  if (moves.network === undefined && inPart >= 2) {
    moves.network = hiddenNetworkMove(showing, ofNetwork.length, listedWeight, knownWeight);
  }
  if (moves.network === undefined && day30Quieter && beside.whole.length > 0) {
    const alike = besideWhole(beside);
    if (alike !== undefined) {
      moves.network = hiddenNetworkMove(
        [...beside.whole, ...alike],
        ofNetwork.length,
        listedWeight,
        knownWeight,
      );
    }
  }
  if (moves.network === undefined && day30Quieter && seenDip !== undefined) {
    const alike = seenInEvery(seen, unmoved, seenDip);
    if (alike !== undefined) {
      moves.network = hiddenNetworkMove(alike, ofNetwork.length, listedWeight, knownWeight);
    }
  }
  return moves;
}

/**
 * A domain's part in the network's median: its move (`seenWhole`: a move of most of its known
 * ISPs, on a day day 30 back was quieter while a domain's own drop is active). Such a domain's
 * median counts its unlisted ISPs as above, though on that day many are only hidden; when most of
 * its listed ISPs show the dip it counts by the deeper of its move and its listed ISPs' median, as
 * seenInEvery reads it. The domain in its own drop (a campaign's end) moves by that drop and the
 * dip together, so the network's median falls on the shallower domains: a holiday beside a
 * campaign's end read 14% of its 29% (`poisson`, held out), and a large ISP down with the holiday
 * became a card beside no headline.
 */
function networkPart(
  move: CommonMove,
  points: readonly Point[],
  listing: DomainListing,
  weight: number,
  seenWhole: boolean,
): { weight: number; log7: number; log14: number; se: number } {
  const part = { weight, log7: move.log7, log14: move.log14, se: move.se };
  if (!seenWhole || shownCount(points) * 2 <= points.length) return part;
  return { ...part, ...deeperOfListed(part, listing) };
}

/**
 * Week by week, the deeper of a domain's move and its listed ISPs' median: on a day the list
 * shows the domain only in part (day 30 back quieter), its move counts the ISPs left out as
 * above and reads shallow. The move itself when none of its ISPs is listed.
 */
export function deeperOfListed(
  move: { log7: number; log14: number },
  listing: DomainListing | undefined,
): { log7: number; log14: number } {
  if (listing?.listedLog7 === undefined || listing.listedLog14 === undefined) return move;
  return {
    log7: Math.min(move.log7, listing.listedLog7),
    log14: Math.min(move.log14, listing.listedLog14),
  };
}

function listingOf(points: readonly ListedMove[], listed: number, known: number): DomainListing {
  const listing: DomainListing = { listed, known, points };
  if (points.length > 0) {
    listing.listedLog7 = median(points.map((p) => p.log7));
    listing.listedLog14 = median(points.map((p) => p.log14));
  }
  return listing;
}

/**
 * The domain's listing without the ISPs of `hashes` (ispHashes): as its other ISPs show it. The
 * same listing when none of them is among its listed known ISPs.
 */
export function listingWithout(listing: DomainListing, hashes: ReadonlySet<number>): DomainListing {
  const points = listing.points.filter((p) => !hashes.has(p.hash));
  return points.length === listing.points.length
    ? listing
    : listingOf(points, listing.listed, listing.known);
}

/**
 * A domain whose listed ISPs show a dip in part: at least SHOWN_MIN_ISPS of them, not reported
 * before, are down beyond SHOWN_Z each on its own.
 */
function showsDip(points: readonly Point[]): boolean {
  return shownCount(points) >= SHOWN_MIN_ISPS;
}

function shownCount(points: readonly Point[]): number {
  let shown = 0;
  for (const p of points) if (p.shows) shown++;
  return shown;
}

/**
 * Beside the domains seen whole on a day day 30 back was quieter: the domains not seen whole
 * whose listed ISPs are at least as deep as every domain seen whole moved (a network's dip
 * lowers every domain alike, and the list shows only the deepest ISPs of a domain it hides; a
 * domain's own event, an outage or a campaign's end, is deeper than what chance lists in
 * another). They show the same dip when together they list SHOWN_MIN_ISPS ISPs down beyond
 * SHOWN_Z, or, beside a domain seen whole whose move is a headline of its own, when one of them
 * lists BESIDE_LISTED_SHARE of its known ISPs; undefined when they do not.
 *
 * The second is asked before a domain's drop is told as the domain's own event. On a day day 30
 * back was quieter a domain that did not move seldom lists a third of its ISPs as deep as such a
 * drop: each must be below its quieter day 30 back by its own variation. One that does moved with
 * it, though at `heavy` the weaker week of each may lie within SHOWN_Z: a holiday was told as one
 * domain's drop (docs/alert-quality.md has the measurement).
 */
function besideWhole(beside: Beside): Point[][] | undefined {
  const alike = beside.domains.filter(
    (domain) => median(domain.points.map((p) => p.log7)) <= beside.deepestWhole,
  );
  let shown = 0;
  for (const domain of alike) shown += shownCount(domain.points);
  const listedWide =
    beside.headline && alike.some((domain) => domain.listedShare >= BESIDE_LISTED_SHARE);
  return shown >= SHOWN_MIN_ISPS || listedWide ? alike.map((domain) => domain.points) : undefined;
}

/** Beside a domain's headline, a domain listing this share of its known ISPs, as deep, moved. */
export const BESIDE_LISTED_SHARE = 1 / 3;

/** The domains seen whole on a day day 30 back was quieter, and what the others list. */
interface Beside {
  whole: Point[][];
  /** The domains not seen whole that list an ISP shown, or BESIDE_LISTED_SHARE of them. */
  domains: Array<{ points: Point[]; listedShare: number }>;
  /** The deepest move of a domain seen whole (log7). */
  deepestWhole: number;
  /** Whether a domain seen whole moved enough for a headline of its own (isHeadline). */
  headline: boolean;
}

/**
 * A network's dip on a day day 30 back hides most of it, read from a domain seen dipping (whole,
 * or in part) and the few ISPs of every other domain that show it. A holiday lowers every domain
 * alike; the list shows whole the domain whose day 30 back was busy enough, and of the others
 * only the ISPs whose day 30 back was still above yesterday: one or two of each, down beyond
 * SHOWN_Z on their own and within SHOWN_Z of their own noise of the dip seen. Every other domain
 * must show one: on the simulation's days day 30 back was quieter, chance shows one in a domain
 * about one day in ten at `poisson` and one in six at `heavy`, a holiday in 86% to 42% of them
 * (docs/alert-quality.md). A domain's own event is none of it: its drop seen on the days before
 * (a campaign's end is listed for a week), a move under minDropPercent on either week (its bad
 * day), an outage (no other domain's ISP is as deep); an ISP's own step down beside it is
 * deeper than the dip by more than SHOWN_Z and shows nothing of it. Returns the listed points of
 * the domains seen and the ISPs of the others that show the dip (the move is their median), or
 * undefined.
 */
function seenInEvery(
  seen: ReadonlyArray<{ domainId: number; move: CommonMove; points: readonly Point[] }>,
  unmoved: readonly (readonly Point[])[],
  context: SeenDipContext,
): Point[][] | undefined {
  if (seen.length === 0 || unmoved.length === 0) return undefined;
  let dip = -Infinity;
  for (const { domainId, move, points } of seen) {
    if (context.ownDrops.has(domainId) || !isDeepEnough(move, context.minDropPercent)) {
      return undefined;
    }
    // A domain seen whole on such a day lists its deeper ISPs; its median counts the unlisted
    // ones as above, though many are only hidden. The dip is the deeper of the two, the
    // shallowest over the domains seen.
    dip = Math.max(dip, Math.min(move.log7, median(points.map((p) => p.log7))));
  }
  const alike: Point[][] = [];
  for (const points of unmoved) {
    const near = points.filter(
      (p) => p.shows && Math.abs(p.log7 - dip) < SHOWN_Z * Math.sqrt(p.noise),
    );
    if (near.length === 0) return undefined;
    alike.push(near);
  }
  return [...seen.map((s) => [...s.points]), ...alike];
}

/** A domain shows the network's dip in part with this many ISPs ... */
export const SHOWN_MIN_ISPS = 3;
/** ... each down beyond this many standard deviations on its own (z, not reported before). */
export const SHOWN_Z = 2;

/**
 * The network's dip on a day day 30 back hides most of it (a quieter weekend behind a Monday or
 * a Tuesday): most domains with enough known ISPs moved or show the dip in part (showsDip), but
 * fewer than half of the network's known ISPs are listed, so no median over them is known. The
 * move is then the median of the listed ISPs of those domains. Chance alone seldom puts three
 * ISPs of each of two domains beyond 2 sd on one day; a domain's own event (a campaign's end,
 * an outage) is one domain.
 */
function hiddenNetworkMove(
  showing: readonly Point[][],
  domainsKnown: number,
  listedWeight: number,
  knownWeight: number,
): NetworkMove | undefined {
  if (showing.length < 2 || showing.length * 2 <= domainsKnown) return undefined;
  const points = showing.flat();
  let noise = 0;
  for (const p of points) noise += p.noise;
  const log7 = median(points.map((p) => p.log7));
  const log14 = median(points.map((p) => p.log14));
  if (log7 >= 0 || log14 >= 0) return undefined;
  return {
    listed: listedWeight,
    known: knownWeight,
    log7,
    log14,
    se: 1.2533 * Math.sqrt(noise / points.length / points.length),
    partial: true,
    domainsMoved: showing.length,
    domainsKnown,
  };
}

/**
 * A domain listed in part on a day day 30 back was quieter, whose listed ISPs show a dip
 * together (showsDip; see the module's comment): the median of its listed ISPs; undefined when
 * they do not.
 */
function partialMove(
  points: readonly Point[],
  weight: number,
  known: number,
): CommonMove | undefined {
  return showsDip(points) ? listedMove(points, weight, known) : undefined;
}

/**
 * A domain's own move found in part (partialMove), judged as what it is: its listed ISPs are in
 * the list because each one's own variation took it below its day 30 back, so their median is as
 * uncertain as one ISP's own variation (`own`, log variance), however many of them are listed.
 * Its se carries that variation besides the median's own: on a quiet day, a domain's bad day
 * lists its deepest ISPs as a move (5 of 29 listed, their median 54%) that is no move of the
 * domain (docs/alert-quality.md). The network's median of the domains' moves reads partialMove.
 */
function ownPartialMove(partial: CommonMove, own: number): CommonMove {
  return { ...partial, se: Math.sqrt(partial.se * partial.se + own) };
}

/** A week after the network's dip, a domain listing this share of its known ISPs moved. */
export const DIP_WEEK_LISTED_SHARE = 1 / 3;

/**
 * A domain's own move a week after the network's told dip, most of it not listed: against the
 * dip as day 7 back, a domain that dropped about as deep as the dip lists only about half its
 * ISPs (those whose day was under the dip's), and one that did not move hardly any (each would
 * have to be down as deep as the dip on its own). When at least DIP_WEEK_LISTED_SHARE of its
 * known ISPs are listed, its move is the median of its listed ISPs, against day 7 back as it
 * would have been without the dip (that day's clicks over `weekBackShare`), as uncertain as one
 * ISP's own variation (ownPartialMove: they are listed by their own days). Undefined otherwise.
 * Not on a day day 30 back was quieter (commonMoves does not ask then): the list hides the other
 * domains too, and a second holiday on the same weekday, every domain as low as a week before,
 * would read as this domain's own move. On other days such a holiday moves every domain, and the
 * network's median of them is its dip.
 */
function weekAfterDipMove(
  points: readonly Point[],
  weight: number,
  known: number,
  own: number,
  weekBackShare: number | undefined,
): CommonMove | undefined {
  if (weekBackShare === undefined || points.length === 0) return undefined;
  if (points.length * weight < known * DIP_WEEK_LISTED_SHARE) return undefined;
  const move = ownPartialMove(listedMove(points, weight, known), own);
  return { ...move, log7: move.log7 + Math.log(weekBackShare), weekBackShare };
}

function listedMove(points: readonly Point[], weight: number, known: number): CommonMove {
  let noise = 0;
  for (const p of points) noise += p.noise;
  return {
    listed: points.length * weight,
    known,
    log7: median(points.map((p) => p.log7)),
    log14: median(points.map((p) => p.log14)),
    se: 1.2533 * Math.sqrt(noise / points.length / points.length),
    partial: true,
  };
}

/**
 * The weighted median of the points' moves over `known` (the ISPs not listed count as above
 * every listed one), when more than half of that weight is listed; else undefined. `sample`:
 * how many ISPs the median is taken over (what its noise depends on).
 */
function censoredMove(
  points: readonly Point[],
  known: number,
  sample: number,
): CommonMove | undefined {
  let listed = 0;
  for (const p of points) listed += p.weight;
  if (listed * 2 <= known) return undefined;
  const half = known / 2;
  let noise = 0;
  for (const p of points) noise += p.noise;
  noise /= points.length;
  return {
    listed,
    known,
    log7: weightedLower(points, (p) => p.log7, half),
    log14: weightedLower(points, (p) => p.log14, half),
    // The median of n draws varies about 1.25 of their sd / sqrt(n).
    se: 1.2533 * Math.sqrt(noise / sample),
  };
}

/** The value at which the points' weight, taken from the lowest up, reaches `half`. */
function weightedLower<P extends { weight: number }>(
  points: readonly P[],
  value: (p: P) => number,
  half: number,
): number {
  const sorted = [...points].sort((a, b) => value(a) - value(b));
  let sum = 0;
  for (const p of sorted) {
    sum += p.weight;
    if (sum >= half) return value(p);
  }
  return value(sorted[sorted.length - 1]!);
}

/**
 * The counted move of each domain with no move of most of its ISPs, nor a partial one
 * (countedDomainMove, listed-count.ts), read once when first asked.
 */
function countedMoves(
  byDomain: ReadonlyMap<number, { domain: KnownDomain; points: Point[] }>,
  moved: ReadonlyMap<number, CommonMove>,
  variation: Variation,
  asOf: IsoDate,
): (domainId: number) => CountedDomainMove | undefined {
  const read = new Map<number, CountedDomainMove | undefined>();
  return (domainId) => {
    if (read.has(domainId)) return read.get(domainId);
    const slot = byDomain.get(domainId);
    let counted: CountedDomainMove | undefined;
    if (slot !== undefined && !moved.has(domainId)) {
      const sample = knownCount(slot.domain, slot.points.length, asOf);
      if (sample !== undefined && sample >= MIN_KNOWN_ISPS) {
        counted = countedDomainMove(slot.points, sample, variation);
      }
    }
    read.set(domainId, counted);
    return counted;
  };
}
