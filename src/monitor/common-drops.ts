import { daysBetween, type IsoDate } from '../dates.js';
import {
  deeperOfListed,
  dropPercentOf,
  isDeepEnough,
  listingWithout,
  type CommonMove,
  type CommonMoves,
  type DomainListing,
} from './common-move.js';
import {
  isLastingDrop,
  moveEvidence,
  moveEvidenceBeyond,
  runSignificance,
  type MoveEvidence,
} from './domain-runs.js';
import { severityOf, type Thresholds } from './thresholds.js';
import type {
  ActiveDrop,
  ClassifiedDrop,
  DomainRun,
  DropClass,
  DropScope,
  Variation,
} from './types.js';

/**
 * Common drops (glossary in types.ts): most ISPs of a domain, or most of the network, down
 * together beyond what the network's days vary by. One event, told once as a headline, not one
 * card per ISP; its ISPs are judged against it (monitor/common-move.ts) and are not reported
 * for it one by one, so nothing of it is "cleared" afterwards either. A drop that lasts is
 * reminded like a pair; one that ends leaves quietly (its end is told by the e-mails that stop,
 * and a domain whose campaign ended stays lower for good while the list stops showing it).
 *
 * A network drop (a holiday, a tracking outage, a large partner pausing) is told instead of the
 * drops of its domains.
 */

/** The classes of a common drop that put it into an e-mail. */
export const EMAILED_DROP_CLASSES: readonly DropClass[] = ['new', 'worse', 'reminder'];

/**
 * An active drop is told again as worse when it is critical, kept at most this share of what it
 * still had when last e-mailed, and is at least minDropPercent points deeper than then: a dip
 * that became an outage, also a campaign's end first measured at 53% whose domain then went
 * down whole (97%); not a dip measured a little deeper (a holiday on top of a campaign's end),
 * nor an outage measured at 98% a day after 96% (2 points).
 */
export const WORSE_KEPT_SHARE = 0.5;

export function isWorse(
  dropPercent: number,
  notifiedDropPercent: number,
  settings: Thresholds,
): boolean {
  return (
    severityOf(dropPercent, settings) === 'critical' &&
    dropPercent - notifiedDropPercent >= settings.minDropPercent &&
    100 - dropPercent <= (100 - notifiedDropPercent) * WORSE_KEPT_SHARE
  );
}

/** A drop still at least this share of minDropPercent keeps an active drop going. */
export const DROP_SUSTAIN_SHARE = 0.5;
/**
 * An active drop not seen goes on for this many as-of days after it was first seen: the days a
 * lasting drop stays in the list, which can hide it on some of them (day 30 back a quieter
 * weekday, or inside an earlier outage; day 7 back a holiday).
 */
export const DROP_HOLD_DAYS = 7;

/** The pair event of a common drop: its identity in an e-mail (like pairEvent's). */
export function dropEvent(dropClass: DropClass, scope: DropScope, domainId: number): string {
  return scope === 'network' ? `${dropClass}|network` : `${dropClass}|domain ${domainId}`;
}

/**
 * z of a common move against the variation it shares: both days of the comparison carry it,
 * and the median its own noise (`se`). A domain's move shares its domain's and the network's
 * part (`common`); the network's, the network's part and its domains' averaged over them; a
 * domain's move beyond the network's move that day (`relativeTo`), its domain's part alone. A
 * domain's parts as judged (judgedShared): not below the prior's while few days are learned.
 */
export function moveSignificance(
  move: CommonMove,
  variation: Variation,
  relativeTo?: CommonMove,
): number {
  return significanceOf(evidenceOf(move, variation, relativeTo));
}

/** z of a move's evidence: the weaker of the two weeks against its standard deviation. */
function significanceOf({ log7, log14, variance }: MoveEvidence): number {
  const sd = Math.sqrt(variance);
  return sd > 0 ? Math.min(-log7, -log14) / sd : Infinity;
}

/** A move's logs against both weeks and the variance they are judged against (moveSignificance). */
function evidenceOf(move: CommonMove, variation: Variation, relativeTo?: CommonMove): MoveEvidence {
  const own = move.se * move.se;
  if ('domainsKnown' in move && typeof move.domainsKnown === 'number') {
    const domainPart = Math.max(0, variation.common - variation.network);
    const shared = 2 * (variation.network + domainPart / Math.max(1, move.domainsKnown));
    return { log7: move.log7, log14: move.log14, variance: shared + own };
  }
  if (relativeTo !== undefined) return moveEvidenceBeyond(move, relativeTo, variation);
  return moveEvidence(move, variation);
}

/**
 * A common move that is a drop worth a headline: deep enough on both weeks (beyond the
 * network's own move, for a domain on a day the network moved), and beyond noise.
 */
export function isCommonDrop(
  move: CommonMove,
  variation: Variation,
  settings: Thresholds,
  relativeTo?: CommonMove,
): boolean {
  // Its logs beyond the network's move when judged against it (evidenceOf), read once for both.
  const evidence = evidenceOf(move, variation, relativeTo);
  return (
    isDeepEnough(evidence, settings.minDropPercent) &&
    (settings.minSignificance <= 0 || significanceOf(evidence) >= settings.minSignificance)
  );
}

/** A common move that keeps an active drop going: still down at least DROP_SUSTAIN_SHARE. */
function sustainsDrop(move: CommonMove | undefined, settings: Thresholds): boolean {
  const floor = settings.minDropPercent * DROP_SUSTAIN_SHARE;
  return (
    move !== undefined && dropPercentOf(move.log7) >= floor && dropPercentOf(move.log14) >= floor
  );
}

/** An active drop's listed ISPs still show it when their median is this share of it or deeper. */
export const STILL_SHOWN_SHARE = 0.75;

/**
 * A domain's active drop that its listed ISPs still show on a day most of them are not listed:
 * day 30 back, a different weekday, keeps a lowered domain out of the list when it was a
 * quieter day (a weekend behind a Monday). The few ISPs listed are then down by at least
 * STILL_SHOWN_SHARE of the drop against both weeks: the drop goes on, and they are judged
 * against it. The listing leaves out the ISPs active on their own (todays-moves.ts), and for
 * the ISP being judged that ISP too (judgedShare): their own steps down are not the domain's.
 */
export function stillShown(drop: ActiveDrop, listing: DomainListing | undefined): boolean {
  return (
    drop.scope === 'domain' &&
    listing?.listedLog7 !== undefined &&
    listing.listedLog14 !== undefined &&
    dropPercentOf(listing.listedLog7) >= drop.dropPercent * STILL_SHOWN_SHARE &&
    dropPercentOf(listing.listedLog14) >= drop.dropPercent14 * STILL_SHOWN_SHARE
  );
}

/** Against which weeks (7 and 14 days back) a domain's ISPs are judged against its drop. */
export interface ShownWeeks {
  on7: boolean;
  on14: boolean;
}

const BOTH_WEEKS: ShownWeeks = { on7: true, on14: true };
const WEEK_7_ALONE: ShownWeeks = { on7: true, on14: false };
const WEEK_14_ALONE: ShownWeeks = { on7: false, on14: true };
const NO_WEEK: ShownWeeks = { on7: false, on14: false };

/** A told drop's first week: its days 7 and 14 back are both before it (the second: day 14). */
export const FIRST_WEEK_DAYS = 7;

/**
 * The weeks on which a domain's active drop is still shown by its listed ISPs: both
 * (stillShown); or, for a drop told as a headline, the one week whose comparison day is still
 * before it: day 7 back in its first week, day 14 back in its second.
 *
 * In the first week both comparison days are before the drop, and listed ISPs that show it
 * against day 7 back but not against day 14 back say that day 14 back was itself low for the
 * domain: a holiday the list hid on its own day (day 30 back quieter) read a campaign's end
 * shallow against it, and one of its ISPs, judged on its own, was a second start of it
 * (`moderate`, held out). Against day 14 back its ISPs are judged as they are.
 *
 * In the second week day 7 back is inside the drop and day 14 back before it: the list shows the
 * ISPs that happen to be below their already lowered day 7 back, about half of them, each the
 * drop deep against day 14 back. Judged on their own, a small ISP's chance run of three such
 * days was told as a steady decline of its own, a second start of the campaign's end (`mild`,
 * held out). Against day 7 back they are judged as they are.
 *
 * A drop only remembered (never beyond noise) shown on one week is too little: a slide's ISP
 * judged against one was never told.
 */
export function shownWeeks(
  drop: ActiveDrop,
  listing: DomainListing | undefined,
  asOf: IsoDate,
): ShownWeeks {
  if (stillShown(drop, listing)) return BOTH_WEEKS;
  if (drop.scope !== 'domain' || drop.lastNotified === undefined) return NO_WEEK;
  const week = Math.floor(daysBetween(drop.firstSeen, asOf) / FIRST_WEEK_DAYS);
  if (
    week === 0 &&
    listing?.listedLog7 !== undefined &&
    dropPercentOf(listing.listedLog7) >= drop.dropPercent * STILL_SHOWN_SHARE
  ) {
    return WEEK_7_ALONE;
  }
  if (
    week === 1 &&
    listing?.listedLog14 !== undefined &&
    dropPercentOf(listing.listedLog14) >= drop.dropPercent14 * STILL_SHOWN_SHARE
  ) {
    return WEEK_14_ALONE;
  }
  return NO_WEEK;
}

/**
 * What a domain with an active drop is judged against: on each week its listed ISPs still show
 * the drop, the deeper of the drop and the domain's move (none: 1); on a week they do not,
 * `without` (its move, or the network's).
 */
function sharesWithDrop(
  drop: ActiveDrop,
  weeks: ShownWeeks,
  moved: Shares | undefined,
  without: Shares,
): Shares {
  return {
    share7: weeks.on7 ? Math.min(1 - drop.dropPercent / 100, moved?.share7 ?? 1) : without.share7,
    share14: weeks.on14
      ? Math.min(1 - drop.dropPercent14 / 100, moved?.share14 ?? 1)
      : without.share14,
  };
}

/**
 * The shares of their comparison days the pairs of each domain are judged against today
 * (monitor/significance.ts): the domain's common move when it moved, or the move of its active
 * drop on each week its listed ISPs still show it (shownWeeks) when it is deeper (a quieter day
 * 30 back lists just over half of a domain whose campaign ended, the shallowest of them its
 * median: 10% against a drop of 38%), else the network's move when the network moved; other
 * domains none.
 */
export function judgedShares(
  moves: CommonMoves,
  active: readonly ActiveDrop[],
  asOf: IsoDate,
): JudgedShares {
  const byDomain = new Map<number, Shares>();
  const byDrop = new Map<number, DropShares>();
  const network = moves.network;
  const otherwise =
    network === undefined
      ? { share7: 1, share14: 1 }
      : { share7: Math.exp(network.log7), share14: Math.exp(network.log14) };
  for (const [domainId, move] of moves.domains) {
    // On a day the network moved, a domain's ISPs are judged against the deeper of the two.
    byDomain.set(domainId, {
      share7: Math.exp(Math.min(move.log7, network?.log7 ?? 0)),
      share14: Math.exp(Math.min(move.log14, network?.log14 ?? 0)),
    });
  }
  for (const drop of active) {
    const weeks = shownWeeks(drop, moves.listings.get(drop.domainId), asOf);
    if (!weeks.on7 && !weeks.on14) continue;
    const moved = byDomain.get(drop.domainId);
    const without = moved ?? otherwise;
    const shares = sharesWithDrop(drop, weeks, moved, without);
    if (moved !== undefined && shares.share7 >= moved.share7 && shares.share14 >= moved.share14) {
      continue;
    }
    byDomain.set(drop.domainId, shares);
    byDrop.set(drop.domainId, { drop, moved, without });
  }
  return { asOf, byDomain, otherwise, byDrop };
}

/** A domain judged against its active drop: the drop, its move today, and what it is without. */
interface DropShares {
  drop: ActiveDrop;
  moved: Shares | undefined;
  without: Shares;
}

export interface JudgedShares {
  /** The run's as-of date (which week of a drop it is: shownWeeks). */
  asOf: IsoDate;
  /** By domain id: the domains judged against their move or their active drop. */
  byDomain: Map<number, Shares>;
  /** The other domains: the network's move, or none. */
  otherwise: Shares;
  /** By domain id: the active drop a domain is judged against, and what it is judged without. */
  byDrop: Map<number, DropShares>;
}

/**
 * The shares one listed ISP (`hash`, its ispHash) of a domain is judged against. A domain's
 * active drop counts only on the weeks its other listed ISPs still show it (shownWeeks without
 * this one; else its move, or the network's): on a day few of its ISPs are listed, an ISP's own
 * step down lists it deep; it would keep its domain's drop shown and, judged against it, read
 * its own drop too small.
 */
export function judgedShare(
  shares: JudgedShares,
  moves: CommonMoves,
  domainId: number,
  hash: number,
): Shares {
  const byDrop = shares.byDrop.get(domainId);
  const listing = moves.listings.get(domainId);
  if (byDrop !== undefined && listing !== undefined) {
    const weeks = shownWeeks(byDrop.drop, listingWithout(listing, new Set([hash])), shares.asOf);
    return sharesWithDrop(byDrop.drop, weeks, byDrop.moved, byDrop.without);
  }
  return shares.byDomain.get(domainId) ?? shares.otherwise;
}

/**
 * The shares a new listed ISP's drop of today alone is judged against when its domain has no
 * move of most of its ISPs, nor an active drop it is judged by, but its count of listed ISPs says
 * it moved down (countedDomainMove, listed-count.ts): the move its other ISPs show, or `judged`
 * (judgedShare's: the network's move) when deeper. Undefined when the count says nothing of the
 * domain or of this ISP.
 */
export function countedShare(
  shares: JudgedShares,
  moves: CommonMoves,
  domainId: number,
  hash: number,
  judged: Shares,
): Shares | undefined {
  if (shares.byDomain.has(domainId) || shares.byDrop.has(domainId)) return undefined;
  const counted = moves.counted?.(domainId);
  const delta = counted?.without.get(hash);
  if (counted === undefined || delta === undefined) return undefined;
  return {
    share7: Math.min(Math.exp(delta - counted.s7), judged.share7),
    share14: Math.min(Math.exp(delta + counted.s7), judged.share14),
  };
}

/** The share of each comparison day a pair is judged against (DropNoise's). */
export interface Shares {
  share7: number;
  share14: number;
}

export interface DropsInput {
  asOf: IsoDate;
  moves: CommonMoves;
  variation: Variation;
  settings: Thresholds & { renotifyAfterDays: number; clearAfterRuns: number };
  active: readonly ActiveDrop[];
  /** Whether a silence holds the domain whole (scope domain), or everything (network). */
  isSilenced: (scope: DropScope, domainId: number) => boolean;
  /** Domain URLs, and clicks lost and 7-days-back clicks of the listed pairs, per domain. */
  domains: ReadonlyMap<number, { url: string; clicksLost: number; baselineClicks: number }>;
  /** The domains' runs of moved days, today's counted (monitor/domain-runs.ts). */
  domainRuns?: readonly DomainRun[];
}

/**
 * Every common drop of the run, each with its class, and the active drops after it. A domain
 * drop is found only when the network did not drop as a whole today.
 */
export function classifyDrops(input: DropsInput): {
  drops: ClassifiedDrop[];
  active: ActiveDrop[];
} {
  const { asOf, moves, variation, settings } = input;
  const drops: ClassifiedDrop[] = [];
  const after: ActiveDrop[] = [];
  const byKey = new Map<string, ActiveDrop>();
  for (const drop of input.active) byKey.set(keyOf(drop.scope, drop.domainId), drop);

  const network = moves.network;
  const runs = new Map<number, DomainRun>();
  for (const run of input.domainRuns ?? []) runs.set(run.domainId, run);
  const found: Array<{ scope: DropScope; domainId: number; move: CommonMove; run?: DomainRun }> =
    [];
  for (const [domainId, move] of moves.domains) {
    if (isCommonDrop(move, variation, settings, network)) {
      found.push({ scope: 'domain', domainId, move });
      continue;
    }
    // A domain that dropped and stays down, none of its days a headline alone: told once, as
    // news (a drop already told goes on as before, below).
    const run = runs.get(domainId);
    const prev = byKey.get(keyOf('domain', domainId));
    if (
      (prev?.lastNotified === undefined || isBefore(prev, run)) &&
      isLastingDrop(run, todayOfRun(move, moves.listings.get(domainId), moves), asOf, settings)
    ) {
      found.push({ scope: 'domain', domainId, move, run });
    }
  }
  // The network's dip is told when it is beyond noise, or beside a domain that dropped further
  // (the reader of that headline should know the whole network was down too).
  if (
    network !== undefined &&
    (isCommonDrop(network, variation, settings) ||
      (found.length > 0 && isDeepEnough(network, settings.minDropPercent)))
  ) {
    found.unshift({ scope: 'network', domainId: 0, move: network });
  }
  const seen = new Set<string>();
  for (const { scope, domainId, move, run } of found) {
    const key = keyOf(scope, domainId);
    seen.add(key);
    // A drop told long ago and not seen since is over, and one past its first week is in its
    // own day 7 back: what is found today is news of its own.
    const told = byKey.get(key);
    const prev =
      told !== undefined &&
      (isOver(told, asOf) || isBefore(told, run) || isPastFirstWeek(told, asOf))
        ? undefined
        : told;
    const silenced = input.isSilenced(scope, domainId);
    const drop = classified(input, scope, domainId, move, prev);
    if (run !== undefined) drop.significance = runSignificance(run);
    if (prev === undefined || prev.lastNotified === undefined) {
      // News: first found, or first beyond noise after it was only remembered.
      drop.class = silenced ? 'silenced' : 'new';
      if (!silenced) after.push(started(drop, asOf, prev?.firstSeen));
    } else {
      const next: ActiveDrop = {
        ...prev,
        lastSeen: asOf,
        dropPercent: drop.dropPercent,
        quietRuns: 0,
      };
      delete next.quietAsOf;
      const due =
        settings.renotifyAfterDays > 0 &&
        daysBetween(prev.lastNotified, asOf) >= settings.renotifyAfterDays;
      drop.class = silenced
        ? 'silenced'
        : isWorse(drop.dropPercent, prev.notifiedDropPercent, settings)
          ? 'worse'
          : due
            ? 'reminder'
            : 'ongoing';
      if (drop.class === 'worse' || drop.class === 'reminder') {
        next.lastNotified = asOf;
        next.notifiedDropPercent = drop.dropPercent;
      }
      after.push(next);
    }
    drops.push(drop);
  }
  // A domain down minDropPercent on both weeks but not beyond noise is no headline, but it is
  // remembered quietly: on the days the list hides the domain, its ISPs are judged against it
  // (judgedShares), not each on its own.
  for (const [domainId, move] of moves.domains) {
    const key = keyOf('domain', domainId);
    if (seen.has(key) || byKey.has(key) || network !== undefined) continue;
    if (!isDeepEnough(move, settings.minDropPercent)) continue;
    seen.add(key);
    const drop = classified(input, 'domain', domainId, move, undefined);
    const remembered = started(drop, asOf);
    delete remembered.lastNotified;
    after.push(remembered);
  }
  for (const prev of input.active) {
    const key = keyOf(prev.scope, prev.domainId);
    if (seen.has(key) || isOutlived(prev, asOf)) continue;
    const move = prev.scope === 'network' ? moves.network : moves.domains.get(prev.domainId);
    const silenced = input.isSilenced(prev.scope, prev.domainId);
    if (sustainsDrop(move, settings) && !isOver(prev, asOf)) {
      // Still down, less than a headline: it goes on, quietly.
      const drop = classified(input, prev.scope, prev.domainId, move!, prev);
      drop.class = silenced ? 'silenced' : 'ongoing';
      drops.push(drop);
      const keeps = keepsDepth(prev, drop.dropPercent, moves);
      after.push({
        ...prev,
        lastSeen: asOf,
        quietRuns: 0,
        dropPercent: keeps ? prev.dropPercent : drop.dropPercent,
        dropPercent14: keeps ? prev.dropPercent14 : drop.dropPercent14,
      });
      continue;
    }
    if (
      shownWeeks(prev, moves.listings.get(prev.domainId), asOf).on14 ||
      daysBetween(prev.firstSeen, asOf) <= DROP_HOLD_DAYS
    ) {
      // Not seen today, but its listed ISPs still show it (on both weeks, or in its second week
      // against day 14 back, the day still before it), or the list could not show it (or it may
      // not have): it goes on as it was. Its end is never e-mailed, so holding it costs nothing
      // but a repeated headline.
      after.push(prev);
      continue;
    }
    const quietRuns = prev.quietAsOf === asOf ? prev.quietRuns : prev.quietRuns + 1;
    if (quietRuns >= settings.clearAfterRuns) continue;
    after.push({ ...prev, quietRuns, quietAsOf: asOf });
  }
  return { drops, active: after };
}

/**
 * A domain's move today as a lasting drop reads it: on a day day 30 back was quieter, the deeper
 * of it and its listed ISPs' median (deeperOfListed) says whether it is still down (as
 * keepsDepth holds a told drop's depth on such a day).
 */
export function todayOfRun(
  move: CommonMove,
  listing: DomainListing | undefined,
  moves: CommonMoves,
): { log7: number; log14: number } {
  return moves.day30Quieter === true ? deeperOfListed(move, listing) : move;
}

/**
 * Whether an active domain drop keeps its depth on a day its move reads shallower: day 30 back
 * was a quieter day, so the list shows the domain only in part, and a move counting the ISPs
 * it leaves out as above reads shallow (17% for a campaign's end told at 51% the day before),
 * while its listed ISPs still show the drop (stillShown). Its ISPs are judged against the drop
 * as it was, not as the list cut it.
 */
function keepsDepth(prev: ActiveDrop, dropPercent: number, moves: CommonMoves): boolean {
  return (
    moves.day30Quieter === true &&
    dropPercent < prev.dropPercent &&
    stillShown(prev, moves.listings.get(prev.domainId))
  );
}

/**
 * An active drop not seen for more than DROP_HOLD_DAYS (held, then quiet): it is over, and a move
 * of its domain now is another event, not the drop going on. A domain's outage held a week after
 * it ended, its campaign's end 8-9 days after it was taken as the outage still going on: never
 * told (`moderate` and `heavy`, held out seeds 11, 22, 23).
 */
function isOver(drop: ActiveDrop, asOf: IsoDate): boolean {
  return daysBetween(drop.lastSeen, asOf) > DROP_HOLD_DAYS;
}

/**
 * A drop told (or remembered) more than DROP_HOLD_DAYS before a domain's run began: the run is
 * another event. A step down is listed for DROP_HOLD_DAYS after it began, then its comparison
 * days are inside it; an outage told, a bad day that kept it going 4 days later, and the
 * campaign's end 9 days after it were taken for the outage (`heavy`, held out seed 23).
 */
function isBefore(drop: ActiveDrop, run: DomainRun | undefined): boolean {
  return run !== undefined && daysBetween(drop.firstSeen, run.first) > DROP_HOLD_DAYS;
}

/**
 * A drop past its first week (DROP_HOLD_DAYS from first seen): its day 7 back lies inside it (or
 * after its end), so a move of its domain found against that day is a further event, news of
 * its own, not the drop going on. A campaign's end held in its second week (shownWeeks) and its
 * domain's outage then were taken as one drop told worse, and the outage's own run then told it
 * again as new (`poisson`, held out seed 25). In its first week a drop found again is the drop
 * going on: the list shows a lowered domain on some days only, deeper on some than on others.
 * Day DROP_HOLD_DAYS itself still counts as the first week here, though shownWeeks reads it as
 * the second: taking a move found on that day as news split a campaign's end (`heavy`, seeds
 * 1-8) and a domain's outage (`heavy`, held out) into two starts each, nothing else changing.
 */
function isPastFirstWeek(drop: ActiveDrop, asOf: IsoDate): boolean {
  return daysBetween(drop.firstSeen, asOf) > DROP_HOLD_DAYS;
}

/**
 * A remembered drop (never beyond noise, never told) past its first week (isPastFirstWeek): it is
 * over. It is kept for the days the list hides its domain while both comparison days are before
 * it; afterwards day 7 back lies inside it, and a domain down again on both weeks is a further
 * move, not this one (remembered anew from the next run, or news when beyond noise). Held on by
 * the next holiday's move (its domain's move that day), or by its listed ISPs' own steps down
 * not yet told (stillShown), remembered drops lived 10 to 18 days (14 at `moderate`, 32 at
 * `heavy`, held out), and a small block judged against one was told a day late (`heavy`, held
 * out seed 13).
 */
function isOutlived(drop: ActiveDrop, asOf: IsoDate): boolean {
  return drop.scope === 'domain' && drop.lastNotified === undefined && isPastFirstWeek(drop, asOf);
}

function keyOf(scope: DropScope, domainId: number): string {
  return scope === 'network' ? 'network' : `domain ${domainId}`;
}

function classified(
  input: DropsInput,
  scope: DropScope,
  domainId: number,
  move: CommonMove,
  prev: ActiveDrop | undefined,
): ClassifiedDrop {
  let clicksLost = 0;
  let baselineClicks = 0;
  let url = prev?.domainUrl ?? '';
  if (scope === 'network') {
    for (const domain of input.domains.values()) {
      clicksLost += domain.clicksLost;
      baselineClicks += domain.baselineClicks;
    }
  } else {
    const domain = input.domains.get(domainId);
    clicksLost = domain?.clicksLost ?? 0;
    baselineClicks = domain?.baselineClicks ?? 0;
    url = domain?.url ?? url;
  }
  const drop: ClassifiedDrop = {
    scope,
    domainId,
    domainUrl: url,
    class: 'ongoing',
    firstSeen: prev?.firstSeen ?? input.asOf,
    dropPercent: dropPercentOf(move.log7),
    dropPercent14: dropPercentOf(move.log14),
    significance:
      scope === 'network'
        ? moveSignificance(move, input.variation)
        : moveSignificance(move, input.variation, input.moves.network),
    ispsDown: Math.round(move.listed),
    ispsKnown: Math.round(move.known),
    clicksLost,
    baselineClicks,
  };
  if (scope === 'network' && input.moves.network !== undefined) {
    drop.domainsDown = input.moves.network.domainsMoved;
    drop.domainsKnown = input.moves.network.domainsKnown;
  }
  return drop;
}

function started(drop: ClassifiedDrop, asOf: IsoDate, firstSeen = asOf): ActiveDrop {
  return {
    scope: drop.scope,
    domainId: drop.domainId,
    domainUrl: drop.domainUrl,
    firstSeen,
    lastSeen: asOf,
    lastNotified: asOf,
    dropPercent: drop.dropPercent,
    dropPercent14: drop.dropPercent14,
    notifiedDropPercent: drop.dropPercent,
    quietRuns: 0,
  };
}
