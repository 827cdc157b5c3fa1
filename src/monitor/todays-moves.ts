import { isCommonDrop, judgedShares, type JudgedShares } from './common-drops.js';
import { commonMoves, listingWithout, SHOWN_Z, type CommonMoves } from './common-move.js';
import { Day30Evidence, rememberedDay30Share } from './hold.js';
import { ispHashes, updateKnown } from './known-isps.js';
import { networkKeptDaysBack } from './network-dips.js';
import { blindDomains } from './outages.js';
import type { PairSlot } from './pair-slots.js';
import type { DropNoise, SignificanceRule } from './significance.js';
import { emptyMeasure, measureEntryInto, type Thresholds } from './thresholds.js';
import type {
  ActiveDrop,
  IsoDate,
  IspTrend,
  KnownDomain,
  LearnedState,
  Variation,
} from './types.js';

export interface TodaysMovesInput {
  asOf: IsoDate;
  /** Today's list, each pair once, and the slot of each, index for index (findPairSlots). */
  listed: readonly IspTrend[];
  listedSlots: readonly PairSlot[];
  /** What was learned of the network by the runs before (absent: nothing yet). */
  learned: LearnedState | undefined;
  /** The variation today is judged against (learnVariationToday). */
  variation: Variation;
  settings: Thresholds;
  rule: SignificanceRule | undefined;
}

/** What the list says of the domains and the network as a whole today. */
export interface TodaysMoves {
  /** ispHashes of the listed pairs, index for index. */
  hashes: number[];
  /** The ISPs each domain has shown, with today's (LearnedState.known). */
  known: KnownDomain[];
  /** The domains' and the network's common moves today (monitor/common-move.ts). */
  moves: CommonMoves;
  /** The shares of the comparison days each domain's pairs are judged against. */
  shares: JudgedShares;
  /** The common drops active before this run (the network's dip, domains' own drops). */
  activeDrops: readonly ActiveDrop[];
  /** How much quieter day 30 back is, as the list shows it today (Day30Evidence). */
  day30Share: number | undefined;
  /** The same as the list showed it when that day was yesterday (rememberedDay30Share). */
  day30Remembered: number | undefined;
  /**
   * Day 7 back the network's told dip: an ISP told before is judged against that day as it
   * would have been without the dip, and so is a domain most of which is not listed; day 14
   * back the network's dip, told or not: an ISP told before (monitor/dip-week.ts,
   * network-dips.ts).
   */
  dipShare: number | undefined;
  dip14Share: number | undefined;
  /** The network's dip is a headline today: a pair's run begins only well beyond it (runs.ts). */
  networkDip: boolean;
}

/** The domains' common moves today, and what they and the network's memory make of the pairs. */
export function readTodaysMoves(input: TodaysMovesInput): TodaysMoves {
  const { asOf, listed, listedSlots, learned, variation, settings } = input;
  const hashes = ispHashes(listed);
  const onItsOwn: DropNoise = { extra: variation, share7: 1, share14: 1 };
  const measure = emptyMeasure();
  // Not active (an active pair is an ISP's own decline, told before, not part of today's common
  // move), and down beyond SHOWN_Z on its own: a part of a domain's or the network's dip that
  // day 30 back hides.
  const shows = (index: number): boolean => {
    if (listedSlots[index]!.prev !== undefined) return false;
    const own = measureEntryInto(measure, listed[index]!, settings, onItsOwn, input.rule);
    return own.significance >= SHOWN_Z && own.dropPercent >= settings.minDropPercent;
  };
  const known = updateKnown(learned?.known, listed, hashes, asOf);
  const day30 = new Day30Evidence(settings.minBaselineClicks);
  for (const entry of listed) day30.add(entry);
  const day30Share = day30.share();
  const day30Remembered = rememberedDay30Share(learned?.day30Shares, asOf);
  const activeDrops = learned?.drops ?? [];
  // A domain whose own drop is active was seen down on days before: a move of its own, not the
  // network's dip (commonMoves, seenInEvery).
  const ownDrops = new Set<number>();
  for (const drop of activeDrops) if (drop.scope === 'domain') ownDrops.add(drop.domainId);
  // One whose comparison day lies inside its own drop or outage lists nothing of the network's
  // dip (monitor/outages.ts).
  const blind = blindDomains(activeDrops, learned?.outages, asOf);
  const dipShare = networkKeptDaysBack(learned?.networkDips, asOf, 7, true);
  const dip14Share = networkKeptDaysBack(learned?.networkDips, asOf, 14);
  const moves = commonMoves(
    known,
    listed,
    hashes,
    variation,
    asOf,
    shows,
    day30.quieter(),
    {
      ownDrops,
      blind,
      minDropPercent: settings.minDropPercent,
      weekBackShare: dipShare,
      // Before a domain seen whole is told as its own drop, the others' listings are asked
      // whether they show the same dip (besideWhole).
      isHeadline: (move) => isCommonDrop(move, variation, settings),
    },
    // An active pair's own decline says nothing of its domain's count of listed ISPs.
    (index) => listedSlots[index]!.prev !== undefined,
  );
  leaveOutActive(moves, listed, listedSlots, hashes);
  const shares = judgedShares(moves, activeDrops, asOf);
  const networkDip =
    moves.network !== undefined && isCommonDrop(moves.network, variation, settings);
  return {
    hashes,
    known,
    moves,
    shares,
    activeDrops,
    day30Share,
    day30Remembered,
    dipShare,
    dip14Share,
    networkDip,
  };
}

/**
 * A domain's listing, what tells whether its active drop is still shown, leaves out its ISPs
 * active on their own: their own declines, told before, are not the domain's.
 */
function leaveOutActive(
  moves: CommonMoves,
  listed: readonly IspTrend[],
  listedSlots: readonly PairSlot[],
  hashes: readonly number[],
): void {
  const activeHashes = new Map<number, Set<number>>();
  for (let i = 0; i < listed.length; i++) {
    if (listedSlots[i]!.prev === undefined) continue;
    const domainId = listed[i]!.network_tracking_domain_id;
    let set = activeHashes.get(domainId);
    if (set === undefined) activeHashes.set(domainId, (set = new Set()));
    set.add(hashes[i]!);
  }
  for (const [domainId, apart] of activeHashes) {
    const listing = moves.listings.get(domainId);
    if (listing !== undefined) moves.listings.set(domainId, listingWithout(listing, apart));
  }
}
