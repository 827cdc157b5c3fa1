import { describe, expect, it } from 'vitest';
import { addDays, dayNumber } from '../../src/dates.js';
import { isCommonDrop } from '../../src/monitor/common-drops.js';
import {
  commonMoves,
  comparesInside,
  dropPercentOf,
  SHOWN_MIN_ISPS,
  type SeenDipContext,
} from '../../src/monitor/common-move.js';
import {
  inSample,
  ispHash,
  ispHashes,
  KNOWN_DAYS,
  knownCount,
  MAX_SAMPLE,
  updateKnown,
} from '../../src/monitor/known-isps.js';
import type { IspTrend, KnownDomain, Variation } from '../../src/monitor/types.js';
import { SETTINGS, entry, knownForMonth } from './fixtures.js';

const DAY = '2026-03-01';
const CHANCE: Variation = { extra: 0, common: 0, network: 0, days: 30 };
const isp = (i: number) => `ISP ${i}`;

/** A domain whose `count` ISPs have been known for a month. */
const knownFor = (domainId: number, count: number, asOf = DAY): KnownDomain =>
  knownForMonth(
    domainId,
    Array.from({ length: count }, (_, i) => isp(i)),
    asOf,
  );

type Listed = IspTrend & { shows: boolean };
const listed = (
  domainId: number,
  from: number,
  to: number,
  ratio: number,
  shows = false,
): Listed[] =>
  Array.from({ length: to - from }, (_, k) => ({
    ...entry(domainId, isp(from + k), { baseline: 1000, yesterday: Math.round(1000 * ratio) }),
    shows,
  }));
/** A listed pair with its comparison days (7 and 14 back) at `size`. */
const sized = (domainId: number, name: string, size: number): IspTrend =>
  entry(domainId, name, { baseline: size, yesterday: Math.round(size / 2) });
const update = (prev: KnownDomain[] | undefined, today: IspTrend[], asOf = DAY) =>
  updateKnown(prev, today, ispHashes(today), asOf);

describe('updateKnown: the ISPs each domain has shown', () => {
  it('knows a listed pair of some size, not a tiny one', () => {
    const known = update(undefined, [sized(1, 'a', 100), sized(1, 'b', 5)]);
    expect(known).toEqual([
      {
        domainId: 1,
        since: dayNumber(DAY),
        level: 0,
        hashes: [ispHash('a')],
        lastListed: [dayNumber(DAY)],
      },
    ]);
  });

  it('forgets an ISP not listed for KNOWN_DAYS', () => {
    const first = update(undefined, [sized(1, 'a', 100)]);
    expect(update(first, [], addDays(DAY, KNOWN_DAYS - 1))).toHaveLength(1);
    expect(update(first, [], addDays(DAY, KNOWN_DAYS))).toEqual([]);
  });

  it('keeps a sample of at most MAX_SAMPLE ISPs of a large domain, each standing for 2^level', () => {
    const pairs = Array.from({ length: 1000 }, (_, i) => sized(1, isp(i), 100));
    const [domain] = update(undefined, pairs);
    expect(domain!.hashes.length).toBeLessThanOrEqual(MAX_SAMPLE);
    // 1,000 ISPs in a sample of 2^-level: the sample's size is about 1000 / 2^level.
    expect(domain!.hashes.length * 2 ** domain!.level).toBeGreaterThan(500);
    expect(domain!.hashes.length * 2 ** domain!.level).toBeLessThan(2000);
    for (const hash of domain!.hashes) expect(inSample(hash, domain!.level)).toBe(true);
  });

  it('knownCount: listed today, plus the unlisted known ones scaled by what memory holds', () => {
    const month = knownFor(1, 30);
    const domain = {
      ...month,
      lastListed: month.lastListed.map((last, i) => (i < 10 ? dayNumber(DAY) : last)),
    };
    // 30 known for a month, 10 of them listed today: 10 + 20 / (1 - 0.8^30).
    expect(knownCount(domain, 10, DAY)).toBeCloseTo(10 + 20 / (1 - 0.8 ** 30), 6);
    // First seen today: nothing known of the ISPs not listed.
    expect(knownCount({ ...domain, since: dayNumber(DAY) }, 10, DAY)).toBeUndefined();
  });
});

/** As a run measures it: the memory is brought up to today's list first (updateKnown). */
const movesOf = (
  known: KnownDomain[],
  today: Listed[],
  day30Quieter = false,
  variation: Variation = CHANCE,
  seenDip?: SeenDipContext,
) =>
  commonMoves(
    update(known, today),
    today,
    ispHashes(today),
    variation,
    DAY,
    (i) => today[i]!.shows,
    day30Quieter,
    seenDip,
  );

describe('comparesInside', () => {
  // A domain down whole, seen on two runs.
  const drop = { firstSeen: DAY, lastSeen: addDays(DAY, 1) };
  it.each([
    [1, false],
    [6, false],
    [7, true],
    [8, true],
    [9, false],
    [13, false],
    [14, true],
    [15, true],
    [16, false],
  ])('%i days after its first run: %s', (later, expected) => {
    expect(comparesInside(drop, addDays(DAY, later))).toBe(expected);
  });
});

describe('commonMoves: a domain or the network down together', () => {
  it('most of a domain listed: the median of its known ISPs, unlisted ones counted as above', () => {
    // 20 of 30 listed at -40%: the 15th of 30 is among them.
    const moves = movesOf([knownFor(1, 30)], listed(1, 0, 20, 0.6));
    const move = moves.domains.get(1);
    expect(move?.log7).toBeCloseTo(Math.log(600.5 / 1000.5), 9);
    expect(move?.partial).toBeUndefined();
  });

  it('half or fewer listed: no common move', () => {
    const moves = movesOf([knownFor(1, 30)], listed(1, 0, 15, 0.6));
    expect(moves.domains.size).toBe(0);
    expect(moves.listings.get(1)?.listed).toBe(15);
  });

  it('listed in part on a day day 30 back was quieter, SHOWN_MIN_ISPS of its ISPs down beyond SHOWN_Z: a partial move', () => {
    const moves = movesOf([knownFor(1, 30)], listed(1, 0, 5, 0.6, true), true);
    expect(moves.domains.get(1)?.partial).toBe(true);
    // Two are not enough.
    expect(movesOf([knownFor(1, 30)], listed(1, 0, 2, 0.6, true), true).domains.size).toBe(0);
    // On another day the list would have shown the domain whole: declines of their own.
    expect(movesOf([knownFor(1, 30)], listed(1, 0, 5, 0.6, true), false).domains.size).toBe(0);
  });

  it("a partial move is judged against one ISP's own variation, however many ISPs it lists", () => {
    // A network that varies as `moderate` does (docs/alert-quality.md): 13% a day all together,
    // 9% shared by a domain's ISPs, 4% by the whole network (log variances).
    const moderate: Variation = {
      extra: 0.128 ** 2,
      common: 0.091 ** 2,
      network: 0.04 ** 2,
      days: 30,
    };
    const own = 2 * (moderate.extra - moderate.common);
    // The config's default (the fixtures' SETTINGS hold 3).
    const settings = { ...SETTINGS, minSignificance: 3.5 };
    // A domain's bad day on a Tuesday behind a quieter weekend: its 5 deepest ISPs of 29 listed,
    // each down 45% (beyond 2 sd on its own). Its move carries one ISP's own variation...
    const tail = movesOf([knownFor(1, 29)], listed(1, 0, 5, 0.55, true), true, moderate);
    const move = tail.domains.get(1)!;
    expect(move.partial).toBe(true);
    expect(move.se ** 2).toBeGreaterThan(own);
    // ... and is no drop of the domain: 45% is 3.0 sd of a pair's own and shared variation.
    expect(isCommonDrop(move, moderate, settings)).toBe(false);
    // Measured as the median of the 5 alone, it was 4.0 sd: a headline on a quiet day.
    const alone = { ...move, se: Math.sqrt(move.se ** 2 - own) };
    expect(isCommonDrop(alone, moderate, settings)).toBe(true);
    // A domain seen whole at the same depth is judged by the median as before.
    const whole = movesOf([knownFor(1, 29)], listed(1, 0, 20, 0.55, true), true, moderate);
    expect(whole.domains.get(1)?.partial).toBeUndefined();
    expect(isCommonDrop(whole.domains.get(1)!, moderate, settings)).toBe(true);
    // Where chance is all a pair's own variation (no learned variation), nothing changes.
    const chance = movesOf([knownFor(1, 29)], listed(1, 0, 5, 0.55, true), true);
    expect(isCommonDrop(chance.domains.get(1)!, CHANCE, settings)).toBe(true);
    // The network's median of its domains reads such a domain by its listed ISPs' median alone.
    const known = [knownFor(1, 29), knownFor(2, 29), knownFor(3, 29)];
    const holiday = [...listed(1, 0, 5, 0.55, true), ...listed(2, 0, 5, 0.55, true)];
    const network = movesOf(known, holiday, true, moderate).network!;
    const listedSe = 1.2533 * Math.sqrt((own + 1 / 550.5 + 1 / 1000.5) / 5);
    expect(network.se).toBeCloseTo((Math.SQRT2 * 29 * listedSe) / (3 * 29), 4);
  });

  it('a domain with fewer than MIN_KNOWN_ISPS known ISPs does not move as a whole', () => {
    expect(movesOf([knownFor(1, 4)], listed(1, 0, 4, 0.5)).domains.size).toBe(0);
  });

  it('most domains moved: the network moved, by the median of its domains', () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    const all = [...listed(1, 0, 25, 0.7), ...listed(2, 0, 25, 0.6), ...listed(3, 0, 5, 0.9)];
    const moves = movesOf(known, all);
    expect(moves.network).toMatchObject({ domainsMoved: 2, domainsKnown: 3 });
    expect(moves.network?.log7).toBeCloseTo(Math.log(700.5 / 1000.5), 9);
    // One domain alone is not the network.
    expect(movesOf(known, listed(1, 0, 25, 0.7)).network).toBeUndefined();
  });

  it("a domain showing the dip in part counts in the network's median by its listed ISPs", () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    const today = [
      ...listed(1, 0, 25, 0.85),
      ...listed(2, 0, 25, 0.5),
      ...listed(3, 0, 10, 0.45, true),
    ];
    const moves = movesOf(known, today);
    // Not the 15% of the shallower domain, as when the third counted as not moved at all.
    expect(moves.network).toMatchObject({ domainsMoved: 2, domainsKnown: 3 });
    expect(moves.network?.log7).toBeCloseTo(Math.log(500.5 / 1000.5), 9);
    expect(moves.domains.has(3)).toBe(false);
  });

  it("day 30 back quieter beside a domain's own drop: a domain seen whole counts by its deeper listed median", () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    // Domain 1 lists 16 of its 30 ISPs, all down beyond 2 sd: its median move (the unlisted ones
    // counted as above) is the shallow half of them, 10%; its listed median is 25%. Domain 2 is
    // in its own drop (a campaign's end and the dip: 60%); domain 3 lists nothing.
    const today = [
      ...listed(1, 0, 8, 0.6, true),
      ...listed(1, 8, 16, 0.9, true),
      ...listed(2, 0, 25, 0.4, true),
    ];
    const own: SeenDipContext = { ownDrops: new Set([2]), minDropPercent: 20 };
    const shallow = movesOf(known, today, true, CHANCE, { ...own, ownDrops: new Set() });
    expect(dropPercentOf(shallow.network!.log7)).toBeCloseTo(10, 0);
    const deeper = movesOf(known, today, true, CHANCE, own);
    const listedMedian = (Math.log(600.5 / 1000.5) + Math.log(900.5 / 1000.5)) / 2;
    expect(deeper.network?.log7).toBeCloseTo(listedMedian, 9);
    // Not on a day day 30 back was not quieter (the list shows such a domain whole) ...
    expect(movesOf(known, today, false, CHANCE, own).network?.log7).toBeCloseTo(
      shallow.network!.log7,
      9,
    );
    // ... nor when most of its listed ISPs do not show the dip.
    const unshown = [
      ...listed(1, 0, 8, 0.6, true),
      ...listed(1, 8, 16, 0.9, false),
      ...listed(2, 0, 25, 0.4, true),
    ];
    expect(movesOf(known, unshown, true, CHANCE, own).network?.log7).toBeCloseTo(
      shallow.network!.log7,
      9,
    );
  });

  it('day 30 back hiding most of a dip: two domains showing it in part are the network', () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    // A third of two domains listed at -35%, each down beyond 2 sd (shows), none alertable.
    const shown = (domainId: number, n: number): Listed[] => listed(domainId, 0, n, 0.65, true);
    const movesWith = (today: Listed[]) => movesOf(known, today);
    const moves = movesWith([...shown(1, 10), ...shown(2, 10)]);
    expect(moves.domains.size).toBe(0);
    expect(moves.network).toMatchObject({ partial: true, domainsMoved: 2, domainsKnown: 3 });
    expect(moves.network?.log7).toBeCloseTo(Math.log(650.5 / 1000.5), 9);
    // One domain showing it is that domain's affair; two ISPs of the other are not enough.
    expect(movesWith(shown(1, 10)).network).toBeUndefined();
    expect(movesWith([...shown(1, 10), ...shown(2, SHOWN_MIN_ISPS - 1)]).network).toBeUndefined();
    // A domain whose move is seen whole and one showing a dip in part: not a hidden dip.
    const whole = listed(3, 0, 25, 0.6, true);
    expect(movesWith([...whole, ...shown(1, 10)]).network).toBeUndefined();
  });

  it('day 30 back quieter: a domain seen whole beside others showing the dip together, as deep, is the network', () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    const shown = (domainId: number, n: number, ratio: number) =>
      listed(domainId, 0, n, ratio, true);
    const movesWith = (today: Listed[], day30Quieter: boolean) =>
      movesOf(known, today, day30Quieter);
    // A holiday on a Monday: the domain with busy weekends listed whole at -30%; of the others,
    // their quieter Saturday (day 30 back) hides all but the deepest ISPs: 2 of one at -35%,
    // 1 of another at -40%, too few for a move of either (SHOWN_MIN_ISPS).
    const others = [...shown(1, 2, 0.65), ...shown(2, 1, 0.6)];
    const holiday = [...shown(3, 25, 0.7), ...others];
    const moves = movesWith(holiday, true);
    expect(moves.domains.size).toBe(1);
    expect(moves.network).toMatchObject({ partial: true, domainsMoved: 3, domainsKnown: 3 });
    expect(moves.network?.log7).toBeLessThan(Math.log(0.75));
    // On a day day 30 back is not quieter, the list would have shown the others whole.
    expect(movesWith(holiday, false).network).toBeUndefined();
    // A domain moved deeper than the others' listed ISPs is its own event: a campaign's end
    // at -40%, an outage.
    expect(movesWith([...shown(3, 25, 0.6), ...others], true).network).toBeUndefined();
    expect(movesWith([...shown(3, 30, 0.02), ...others], true).network).toBeUndefined();
    // Alone, or with 2 ISPs shown beside it: that domain's affair.
    expect(movesWith(shown(3, 25, 0.7), true).network).toBeUndefined();
    expect(movesWith([...shown(3, 25, 0.7), ...shown(1, 2, 0.65)], true).network).toBeUndefined();
    // An ISP listed shallower than the whole domain's move does not count.
    const shallower = [...shown(3, 25, 0.7), ...shown(1, 2, 0.65), ...shown(2, 1, 0.8)];
    expect(movesWith(shallower, true).network).toBeUndefined();
  });

  describe("day 30 back quieter: beside a domain's headline, a domain listing a third of its ISPs as deep is the network", () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    const headline: SeenDipContext = {
      ownDrops: new Set(),
      minDropPercent: 20,
      isHeadline: () => true,
    };
    const movesWith = (today: Listed[], seenDip = headline, day30Quieter = true) =>
      movesOf(known, today, day30Quieter, CHANCE, seenDip);
    // A holiday on a Tuesday: the domain with busy weekends listed whole at -45%, a headline of
    // its own; its quieter Sunday (day 30 back) hides most of another, which still lists 11 of
    // its 30 ISPs at -50%, none beyond SHOWN_Z on its own; the third lists a few, shallower.
    const whole = listed(3, 0, 20, 0.55, true);
    const third = listed(2, 0, 4, 0.8);
    const holiday = [...whole, ...listed(1, 0, 11, 0.5), ...third];

    it('is the network, by the median of the two domains listed ISPs', () => {
      const moves = movesWith(holiday);
      expect(moves.domains.size).toBe(1);
      expect(moves.network).toMatchObject({ partial: true, domainsMoved: 2, domainsKnown: 3 });
      expect(moves.network?.log7).toBeCloseTo(Math.log(550.5 / 1000.5), 9);
    });

    it('not when the domain seen whole is no headline of its own', () => {
      expect(movesWith(holiday, { ...headline, isHeadline: () => false }).network).toBeUndefined();
      expect(movesOf(known, holiday, true).network).toBeUndefined();
    });

    it('not when the other lists fewer than a third of its ISPs', () => {
      expect(movesWith([...whole, ...listed(1, 0, 9, 0.5), ...third]).network).toBeUndefined();
    });

    it('not when its listed ISPs are shallower than the domain seen whole', () => {
      expect(movesWith([...whole, ...listed(1, 0, 11, 0.7), ...third]).network).toBeUndefined();
    });

    it('not on a day the list would have shown the others whole', () => {
      expect(movesWith(holiday, headline, false).network).toBeUndefined();
    });
  });

  describe('day 30 back quieter: a domain seen dipping beside an ISP of every other domain, as deep, is the network', () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    const shown = (domainId: number, n: number, ratio: number, from = 0) =>
      listed(domainId, from, from + n, ratio, true);
    const fresh: SeenDipContext = { ownDrops: new Set(), minDropPercent: 20 };
    const movesWith = (today: Listed[], day30Quieter = true, seenDip = fresh) =>
      movesOf(known, today, day30Quieter, CHANCE, seenDip);
    // A holiday on a Tuesday: the domain with busy weekends listed whole at -30%; of the others,
    // their quieter Sunday (day 30 back) hides all but one ISP each, down about as much.
    const others = [...shown(1, 1, 0.65), ...shown(2, 1, 0.68)];
    const holiday = [...shown(3, 25, 0.7), ...others];

    it('is the network, by the median of the ISPs that show it', () => {
      const moves = movesWith(holiday);
      expect(moves.network).toMatchObject({ partial: true, domainsMoved: 3, domainsKnown: 3 });
      expect(moves.network?.log7).toBeCloseTo(Math.log(700.5 / 1000.5), 9);
      // Two ISPs beside it are too few for the rule of the domains seen whole (besideWhole).
      expect(movesOf(known, holiday, true).network).toBeUndefined();
      // A domain seen in part (SHOWN_MIN_ISPS of its ISPs) is seen dipping as well.
      expect(movesWith([...shown(3, 5, 0.7), ...others]).network).toMatchObject({ partial: true });
    });

    it('not on a day the list would have shown the others whole', () => {
      expect(movesWith(holiday, false).network).toBeUndefined();
    });

    it('not when a domain shows none of it', () => {
      expect(movesWith([...shown(3, 25, 0.7), ...shown(1, 1, 0.65)]).network).toBeUndefined();
      const unshown = listed(2, 0, 1, 0.68, false);
      expect(
        movesWith([...shown(3, 25, 0.7), ...shown(1, 1, 0.65), ...unshown]).network,
      ).toBeUndefined();
    });

    it('beside a domain that lists nothing while its comparison day is inside its own drop', () => {
      // Domain 2 was down whole a week ago: its day 7 back is lower than yesterday, so the list
      // holds none of its ISPs. It shows nothing of the dip, for or against it.
      const dip = [...shown(3, 25, 0.7), ...shown(1, 1, 0.65)];
      expect(movesWith(dip).network).toBeUndefined();
      const blind: SeenDipContext = { ...fresh, blind: new Set([2]) };
      expect(movesWith(dip, true, blind).network).toMatchObject({ partial: true, domainsMoved: 2 });
      // One that lists ISPs is read as ever, and the other domain must still show the dip.
      const unshown = listed(2, 0, 1, 0.68, false);
      expect(movesWith([...dip, ...unshown], true, blind).network).toBeUndefined();
      expect(movesWith(shown(3, 25, 0.7), true, blind).network).toBeUndefined();
    });

    it("not the domain's own drop, seen on the days before (a campaign's end)", () => {
      const own: SeenDipContext = { ...fresh, ownDrops: new Set([3]) };
      expect(movesWith(holiday, true, own).network).toBeUndefined();
    });

    it('not a move under minDropPercent on either week (a bad day of one domain)', () => {
      const shallow = [...shown(3, 25, 0.85), ...shown(1, 1, 0.83), ...shown(2, 1, 0.84)];
      expect(movesWith(shallow).network).toBeUndefined();
    });

    it("not an outage, nor beside one ISP's own step down: not as deep", () => {
      expect(movesWith([...shown(3, 30, 0.02), ...others]).network).toBeUndefined();
      const step = [...shown(3, 25, 0.7), ...shown(1, 1, 0.65), ...shown(2, 1, 0.2)];
      expect(movesWith(step).network).toBeUndefined();
      // Beside an ISP about as deep, the step is no evidence, nor in the way.
      const both = [...step, ...shown(2, 1, 0.66, 1)];
      expect(movesWith(both).network).toMatchObject({ partial: true, domainsMoved: 3 });
    });
  });
  describe("a week after the network's dip: a domain listed in part against it", () => {
    const known = [knownFor(1, 30), knownFor(2, 30), knownFor(3, 30)];
    // Day 7 back a holiday that kept 60% of the network's day; day 14 back an ordinary one.
    const afterDip: SeenDipContext = {
      ownDrops: new Set(),
      minDropPercent: 20,
      weekBackShare: 0.6,
    };
    /** `count` ISPs of a domain at `share` of their usual 1,000 clicks, listed against the dip. */
    const atShare = (domainId: number, count: number, share: number): Listed[] =>
      listed(domainId, 0, count, share).map((e) => ({
        ...e,
        seven_days_ago_total_clicks: 600,
        fourteen_days_ago_total_clicks: 1000,
        thirty_days_ago_total_clicks: 1000,
      }));
    const movesWith = (today: Listed[], day30Quieter = false, seenDip = afterDip) =>
      movesOf(known, today, day30Quieter, CHANCE, seenDip);

    it("a third or more listed: its listed ISPs' median, against day 7 back without the dip", () => {
      // A campaign's end (45% lower): 12 of 30 ISPs under the holiday's day.
      const move = movesWith(atShare(1, 12, 0.55)).domains.get(1)!;
      expect(move).toMatchObject({ partial: true, weekBackShare: 0.6 });
      expect(move.log7).toBeCloseTo(Math.log(550.5 / 600.5) + Math.log(0.6), 9);
      expect(move.log14).toBeCloseTo(Math.log(550.5 / 1000.5), 9);
      expect(isCommonDrop(move, CHANCE, { ...SETTINGS, minSignificance: 3.5 })).toBe(true);
    });

    it('not fewer than a third, not on another day, not when day 30 back was quieter', () => {
      expect(movesWith(atShare(1, 9, 0.55)).domains.size).toBe(0);
      expect(
        movesWith(atShare(1, 12, 0.55), false, { ...afterDip, weekBackShare: undefined }).domains
          .size,
      ).toBe(0);
      expect(movesWith(atShare(1, 12, 0.55), true).domains.size).toBe(0);
    });

    it('a second holiday on the same weekday: every domain, the network by their median', () => {
      const again = [...atShare(1, 12, 0.6), ...atShare(2, 13, 0.58), ...atShare(3, 11, 0.62)];
      const network = movesWith(again).network!;
      expect(network).toMatchObject({ domainsMoved: 3, domainsKnown: 3 });
      expect(network.log7).toBeCloseTo(Math.log(600.5 / 600.5) + Math.log(0.6), 9);
    });
  });
});
