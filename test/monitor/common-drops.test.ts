import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { classifyPairs } from '../../src/monitor/classify.js';
import {
  classifyDrops,
  DROP_HOLD_DAYS,
  FIRST_WEEK_DAYS,
  isWorse,
  judgedShare,
  judgedShares,
  shownWeeks,
} from '../../src/monitor/common-drops.js';
import { listingWithout } from '../../src/monitor/common-move.js';
import { historyAfter, runsAfter } from '../../src/monitor/history-change.js';
import type {
  ActiveDrop,
  ActivePair,
  Classification,
  IspTrend,
  LearnedState,
  Silence,
  WatchedRun,
} from '../../src/monitor/types.js';
import { dropSilenceCommand } from '../../src/notify/render/alert.js';
import { CHANCE, SETTINGS, entry, knownForMonth, toldDomainDrop } from './fixtures.js';

/** The silence `thm silence add` stores for a command line, its words split by a real shell. */
function silenceOf(command: string): Silence {
  const words = spawnSync('bash', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' })
    .stdout.split('\0')
    .slice(0, -1);
  const value = (flag: string) => {
    const at = words.indexOf(flag);
    return at < 0 ? undefined : words[at + 1];
  };
  const domain = value('--domain');
  const isp = value('--isp');
  return {
    id: 's1',
    networkId: value('--network')!,
    ...(domain === undefined ? {} : { domainId: Number(domain) }),
    ...(isp === undefined ? {} : { isp }),
    reason: 'known',
    createdAt: 0,
    expiresAt: Number.MAX_SAFE_INTEGER,
  };
}

const DAY = '2026-03-01';
const DOMAINS = [1, 2, 3];
const ISPS = 30;
const isp = (i: number) => `ISP ${String(i).padStart(2, '0')}`;

/** Three domains of 30 ISPs each, all known for a month, on a network that varies as chance. */
function learnedWithKnown(): LearnedState {
  const isps = Array.from({ length: ISPS }, (_, i) => isp(i));
  const known = DOMAINS.map((domainId) => knownForMonth(domainId, isps, DAY, 2));
  return { ...CHANCE, known };
}

/** `count` ISPs of a domain at `share` of `clicks` (a drop of 1 - share). */
function down(domainId: number, count: number, share: number, from = 0, clicks = 1000): IspTrend[] {
  return Array.from({ length: count }, (_, k) =>
    entry(domainId, isp(from + k), { baseline: clicks, yesterday: Math.round(clicks * share) }),
  );
}

/** Runs the days in order, carrying history, runs and what is learned; returns each day's. */
function days(lists: IspTrend[][], silences: Silence[] = []): Classification[] {
  let active = [] as Classification['changes']['upsert'];
  let learned: LearnedState | undefined = learnedWithKnown();
  const results: Classification[] = [];
  lists.forEach((entries, i) => {
    const result = classifyPairs({
      asOf: addDays(DAY, i),
      entries,
      active,
      settings: SETTINGS,
      silences,
      learned,
    });
    results.push(result);
    active = [...result.changes.upsert, ...(result.changes.added ?? [])].map((p) =>
      'class' in p
        ? {
            domainId: p.domainId,
            isp: p.isp,
            domainUrl: p.domainUrl,
            firstSeen: p.firstSeen,
            lastSeen: p.firstSeen,
            lastNotified: p.firstSeen,
            notifiedSeverity: p.severity,
            quietRuns: 0,
            baseline: 1000,
            yesterday: 0,
            dropPercent: p.dropPercent,
          }
        : p,
    );
    learned = result.changes.learned;
  });
  return results;
}

const emailed = (c: Classification) =>
  (c.drops ?? []).filter((d) => d.class === 'new' || d.class === 'worse' || d.class === 'reminder');

describe('common drops: most of a domain, or of the network, down together', () => {
  it('a holiday: one network headline, no card per pair, nothing cleared after', () => {
    const holiday = DOMAINS.flatMap((d) => down(d, 26, 0.65));
    const [day1, day2, day3, day4] = days([holiday, [], [], []]);
    expect(emailed(day1!)).toMatchObject([{ scope: 'network', class: 'new' }]);
    expect(day1!.drops?.[0]?.dropPercent).toBeCloseTo(35, 0);
    expect(day1!.counts.new).toBe(0);
    for (const day of [day2!, day3!, day4!]) {
      expect(emailed(day)).toEqual([]);
      expect(day.counts.cleared).toBe(0);
    }
  });

  it('a holiday day 30 back hides: a domain seen whole and one ISP of each other domain', () => {
    // A Tuesday behind quieter Sundays (day 30 back at 75% of the weekday): the domain whose
    // Sunday was busy enough is listed whole at -30%, the others by one ISP each at -35%.
    const quieter = (list: IspTrend[]) =>
      list.map((e) => ({ ...e, thirty_days_ago_total_clicks: 750 }));
    const holiday = quieter([...down(3, 25, 0.7), ...down(1, 1, 0.65), ...down(2, 1, 0.65)]);
    const [day1, day2, day3] = days([holiday, [], []]);
    expect(emailed(day1!)).toMatchObject([{ scope: 'network', class: 'new' }]);
    expect(day1!.counts.new).toBe(0);
    for (const day of [day2!, day3!]) expect(day.counts.cleared).toBe(0);
    // The same list the day after domain 3 was seen down on its own (a campaign that ended):
    // its own drop goes on, and the two ISPs beside it are judged on their own.
    const [, after] = days([quieter(down(3, 25, 0.6)), holiday]);
    expect(after!.drops?.some((d) => d.scope === 'network')).toBe(false);
    expect(after!.counts.new).toBe(2);
  });

  it('a domain down: one domain headline, no card per pair; the network is not', () => {
    const [day1] = days([[...down(2, 28, 0.02), ...down(1, 3, 0.9)]]);
    expect(emailed(day1!)).toMatchObject([{ scope: 'domain', domainId: 2, class: 'new' }]);
    expect(day1!.drops?.[0]).toMatchObject({ ispsDown: 28, ispsKnown: 30 });
    expect(day1!.counts.new).toBe(0);
  });

  it('an ISP down far beyond its domain is a card of its own beside the headline', () => {
    const domain = [...down(2, 25, 0.6), ...down(2, 1, 0.05, 25)];
    const [day1] = days([domain]);
    expect(emailed(day1!)).toMatchObject([{ scope: 'domain', domainId: 2 }]);
    expect(day1!.pairs.filter((p) => p.class === 'new').map((p) => p.isp)).toEqual([isp(25)]);
    expect(day1!.pairs[0]?.commonShare).toBeCloseTo(0.6, 2);
  });

  it('a drop that lasts is told once; not seen for a day or two (the list hides it) it holds', () => {
    const domain = down(2, 25, 0.6);
    const results = days([domain, domain, [], down(2, 25, 0.6), domain]);
    expect(results.map((r) => emailed(r).length)).toEqual([1, 0, 0, 0, 0]);
    expect(results.map((r) => r.changes.learned?.drops.length)).toEqual([1, 1, 1, 1, 1]);
  });

  it('held no longer than DROP_HOLD_DAYS after it was first seen, then it leaves quietly', () => {
    const lists = [down(2, 25, 0.6), ...Array.from({ length: DROP_HOLD_DAYS + 3 }, () => [])];
    const results = days(lists);
    expect(results.at(-1)?.changes.learned?.drops).toEqual([]);
    expect(results.every((r, i) => i === 0 || emailed(r).length === 0)).toBe(true);
  });

  it('a dip that becomes an outage is told again, as worse', () => {
    const results = days([down(2, 25, 0.7), down(2, 25, 0.02)]);
    expect(results.map((r) => emailed(r).map((d) => d.class))).toEqual([['new'], ['worse']]);
  });

  it('an outage measured deeper the next day is not worse: it was told critical', () => {
    // 95% down, then 98%: it kept under half of what it had, but it was an outage already.
    const results = days([down(2, 25, 0.05), down(2, 25, 0.02)]);
    expect(results.map((r) => emailed(r).map((d) => d.class))).toEqual([['new'], []]);
    expect(results[1]!.drops?.[0]?.class).toBe('ongoing');
  });

  it('a domain that ended a campaign (told critical at 53%) going down whole is worse', () => {
    // Kept 47%, then 3%: under half of it and 44 points deeper, although told critical before.
    const results = days([down(2, 25, 0.47), down(2, 25, 0.03)]);
    expect(results.map((r) => emailed(r).map((d) => d.class))).toEqual([['new'], ['worse']]);
  });

  it('isWorse: critical, at most half of what it kept, minDropPercent points deeper', () => {
    const settings = { ...SETTINGS, minDropPercent: 20, criticalDropPercent: 50 };
    expect(isWorse(97, 53, settings)).toBe(true);
    expect(isWorse(65, 30, settings)).toBe(true);
    // 96% then 98%: kept half of it, but 2 points are no news.
    expect(isWorse(98, 96, settings)).toBe(false);
    // A holiday on top of a campaign's end: 40% then 61%, kept more than half.
    expect(isWorse(61, 40, settings)).toBe(false);
    // Under criticalDropPercent it is no outage.
    expect(isWorse(49, 0, settings)).toBe(false);
  });

  it('an ISP a little deeper than its domain down whole is no steady decline of its own', () => {
    // Domain 2 at 24 of 600 clicks two days running, one ISP of it at 10: too little to tell on
    // one day (z 2.6), enough on two summed (z 3.3, a run down 58% against the domain's move).
    // The domain's headline stands for it: half the ISPs of an outage are below its median.
    const outage = [...down(2, 25, 0.04, 0, 600), ...down(2, 1, 10 / 600, 25, 600)];
    let active: ActivePair[] = [];
    let runs: WatchedRun[] = [];
    let learned: LearnedState | undefined = learnedWithKnown();
    const news: string[][] = [];
    for (const i of [0, 1]) {
      const result = classifyPairs({
        asOf: addDays(DAY, i),
        entries: outage,
        active,
        runs,
        settings: SETTINGS,
        silences: [],
        learned,
      });
      news.push(result.pairs.filter((p) => p.class === 'new').map((p) => p.isp));
      active = historyAfter(result.changes);
      runs = runsAfter(result.changes) ?? [];
      learned = result.changes.learned;
    }
    expect(news).toEqual([[], []]);
  });

  it('a silence of the whole domain silences its drop', () => {
    const silence: Silence = {
      id: 's1',
      networkId: 'acme',
      domainId: 2,
      reason: 'known',
      createdAt: 0,
      expiresAt: Number.MAX_SAFE_INTEGER,
    };
    const [day1] = days([down(2, 28, 0.02)], [silence]);
    expect(emailed(day1!)).toEqual([]);
    expect(day1!.drops?.[0]?.class).toBe('silenced');
  });

  it('the silence command the e-mail suggests for a drop holds that drop', () => {
    const holiday = DOMAINS.flatMap((d) => down(d, 26, 0.65));
    for (const [day, scope, domainId] of [
      [down(2, 28, 0.02), 'domain', 2],
      [holiday, 'network', 0],
    ] as const) {
      const command = dropSilenceCommand('acme', { scope, domainId });
      const silence = silenceOf(command);
      const [loud] = days([day]);
      const [quiet] = days([day], [silence]);
      expect(emailed(loud!)).toMatchObject([{ scope, domainId }]);
      expect(emailed(quiet!)).toEqual([]);
      expect(quiet!.drops?.[0]).toMatchObject({ scope, class: 'silenced' });
    }
  });

  describe("a campaign's end a week after a holiday", () => {
    // A holiday kept 57% of the network's day (told as the network's dip). A week later a
    // domain's campaign ends (46% lower): against the holiday as day 7 back it reads 5% down,
    // and the list holds only the 13 of its 30 ISPs whose day was under the holiday's.
    const holiday = DOMAINS.flatMap((d) => down(d, 26, 0.57));
    const weekAfter = (count: number, yesterday: number, from = 0): IspTrend[] =>
      down(2, count, yesterday / 570, from, 570).map((e) => ({
        ...e,
        fourteen_days_ago_total_clicks: 1000,
        thirty_days_ago_total_clicks: 1000,
      }));
    const quiet = Array.from({ length: 6 }, (): IspTrend[] => []);
    // The next day, behind a quieter weekend (day 30 back 65% of the weekday): just over half
    // its ISPs listed, 14 at -50% and 2 at -15%; counting the 14 unlisted as above, its
    // median reads 15%.
    const hidden = [...down(2, 14, 0.5), ...down(2, 2, 0.85, 14)].map((e) => ({
      ...e,
      thirty_days_ago_total_clicks: 650,
    }));

    it('is one domain headline on its first day, with no card', () => {
      const results = days([holiday, ...quiet, weekAfter(13, 540)]);
      const first = results.at(-1)!;
      expect(emailed(first)).toMatchObject([{ scope: 'domain', domainId: 2, class: 'new' }]);
      expect(first.drops?.[0]?.dropPercent).toBeCloseTo(46, 0);
      expect(first.counts.new).toBe(0);
      // Fewer than a third of its ISPs listed: no move of the domain seen.
      const few = days([holiday, ...quiet, weekAfter(9, 540)]).at(-1)!;
      expect(few.drops ?? []).toEqual([]);
    });

    it("an ISP of it is judged against the domain's move as its own day 7 back was listed", () => {
      // Down 44% against the holiday, 70% against its usual day: beyond the domain's 46%.
      const results = days([holiday, ...quiet, [...weekAfter(13, 540), ...weekAfter(1, 300, 13)]]);
      expect(
        results
          .at(-1)!
          .pairs.filter((p) => p.class === 'new')
          .map((p) => p.isp),
      ).toEqual([isp(13)]);
    });

    it('keeps its depth while day 30 back hides part of it: no card of its ISPs', () => {
      const results = days([holiday, ...quiet, weekAfter(13, 540), hidden, hidden]);
      const [, second, third] = results.slice(-3);
      for (const day of [second!, third!]) {
        expect(day.counts.new).toBe(0);
        expect(emailed(day)).toEqual([]);
      }
      const drop = third!.changes.learned?.drops.find((d) => d.scope === 'domain');
      expect(drop?.dropPercent).toBeCloseTo(46, 0);
      // Shown whole the next day, the drop reads as that day's move.
      const whole = days([holiday, ...quiet, weekAfter(13, 540), hidden, down(2, 28, 0.62)]);
      const after = whole.at(-1)!.changes.learned?.drops.find((d) => d.scope === 'domain');
      expect(after?.dropPercent).toBeCloseTo(38, 0);
    });
  });

  it('what is learned carries the drops and the known ISPs to the next run', () => {
    const [day1] = days([down(2, 28, 0.02)]);
    const learned = day1!.changes.learned;
    expect(learned?.drops).toMatchObject([{ scope: 'domain', domainId: 2, firstSeen: DAY }]);
    expect(learned?.known.map((d) => d.domainId)).toEqual(DOMAINS);
    expect(learned?.variation?.asOf).toBe(DAY);
  });
});

describe('judgedShares: what each domain is judged against', () => {
  const move = (log: number) => ({ listed: 20, known: 30, log7: log, log14: log, se: 0.02 });
  const network = { ...move(Math.log(0.6)), domainsMoved: 2, domainsKnown: 3 };

  it("a domain that moved: its own move, or the network's when that is deeper", () => {
    const shares = judgedShares(
      {
        domains: new Map([
          [1, move(Math.log(0.8))],
          [2, move(Math.log(0.4))],
        ]),
        listings: new Map(),
        network,
      },
      [],
      DAY,
    );
    expect(shares.byDomain.get(1)?.share7).toBeCloseTo(0.6, 9);
    expect(shares.byDomain.get(2)?.share7).toBeCloseTo(0.4, 9);
    expect(shares.otherwise.share14).toBeCloseTo(0.6, 9);
    // No network move: the domain's own.
    const alone = judgedShares(
      { domains: new Map([[1, move(Math.log(0.8))]]), listings: new Map() },
      [],
      DAY,
    );
    expect(alone.byDomain.get(1)?.share7).toBeCloseTo(0.8, 9);
    expect(alone.otherwise).toEqual({ share7: 1, share14: 1 });
  });

  it('a domain whose active drop its listed ISPs still show: the deeper of it and its move', () => {
    const drop = toldDomainDrop(DAY, 38, { dropPercent14: 40 });
    // Just over half listed on a quieter day 30 back: the median a shallow 10%; the listed ISPs
    // show 40%.
    const listing = {
      listed: 16,
      known: 30,
      listedLog7: Math.log(0.6),
      listedLog14: Math.log(0.6),
      points: [],
    };
    const shown = judgedShares(
      { domains: new Map([[1, move(Math.log(0.9))]]), listings: new Map([[1, listing]]) },
      [drop],
      DAY,
    );
    expect(shown.byDomain.get(1)?.share7).toBeCloseTo(0.62, 9);
    expect(shown.byDomain.get(1)?.share14).toBeCloseTo(0.6, 9);
    // Its listed ISPs no longer show it (it has ended): today's move.
    const ended = { ...listing, listedLog7: Math.log(0.85), listedLog14: Math.log(0.85) };
    const gone = judgedShares(
      { domains: new Map([[1, move(Math.log(0.9))]]), listings: new Map([[1, ended]]) },
      [drop],
      DAY,
    );
    expect(gone.byDomain.get(1)?.share7).toBeCloseTo(0.9, 9);
    // A move deeper than the drop (down whole on top of it): the move.
    const deeper = judgedShares(
      { domains: new Map([[1, move(Math.log(0.05))]]), listings: new Map([[1, listing]]) },
      [drop],
      DAY,
    );
    expect(deeper.byDomain.get(1)?.share7).toBeCloseTo(0.05, 9);
  });
});

describe("shownWeeks: a told drop's first week, day 14 back low for its domain", () => {
  // A campaign's end told at 45% on DAY; three days later day 14 back was a holiday the list hid
  // on its own day: its listed ISPs show the drop against day 7 back (45%), 20% against day 14.
  const drop = toldDomainDrop(DAY, 45);
  const logs = new Map([
    [1, Math.log(0.5)],
    [2, Math.log(0.55)],
    [3, Math.log(0.6)],
  ]);
  const listing = {
    listed: 3,
    known: 30,
    listedLog7: Math.log(0.55),
    listedLog14: Math.log(0.8),
    points: [...logs].map(([hash, log]) => ({
      hash,
      log7: log,
      log14: log + Math.log(0.8 / 0.55),
    })),
  };
  const moves = { domains: new Map(), listings: new Map([[1, listing]]) };
  const inWeek = addDays(DAY, 3);

  it('its ISPs are judged against it on day 7 back, and as they are against day 14 back', () => {
    expect(shownWeeks(drop, listing, inWeek)).toEqual({ on7: true, on14: false });
    const shares = judgedShares(moves, [drop], inWeek);
    expect(shares.byDomain.get(1)?.share7).toBeCloseTo(0.55, 9);
    expect(shares.byDomain.get(1)?.share14).toBe(1);
    // One ISP of it, as the other two still show the drop (their median 42.5% down).
    expect(judgedShare(shares, moves, 1, 1)).toEqual({ share7: 0.55, share14: 1 });
  });

  it('shown on both weeks: both; on neither: none', () => {
    const both = { ...listing, listedLog14: Math.log(0.55) };
    expect(shownWeeks(drop, both, inWeek)).toEqual({ on7: true, on14: true });
    const neither = { ...listing, listedLog7: Math.log(0.8) };
    expect(shownWeeks(drop, neither, inWeek)).toEqual({ on7: false, on14: false });
  });

  it('not from its second week (day 7 back inside it), nor for a drop only remembered', () => {
    expect(shownWeeks(drop, listing, addDays(DAY, FIRST_WEEK_DAYS))).toEqual({
      on7: false,
      on14: false,
    });
    const { lastNotified: _told, ...remembered } = drop;
    expect(shownWeeks(remembered, listing, inWeek)).toEqual({ on7: false, on14: false });
    expect(judgedShares(moves, [remembered], inWeek).byDomain.has(1)).toBe(false);
  });
});

describe("shownWeeks: a told drop's second week, day 14 back still before it", () => {
  // A campaign's end told at 40% on DAY; in its second week day 7 back is inside it: the ISPs
  // listed are those below their lowered day 7 back (5% on their median), 43% below day 14 back.
  const drop = toldDomainDrop(DAY, 40);
  const logs = new Map([
    [1, Math.log(0.9)],
    [2, Math.log(0.95)],
    [3, Math.log(0.97)],
  ]);
  const listing = {
    listed: 3,
    known: 30,
    listedLog7: Math.log(0.95),
    listedLog14: Math.log(0.57),
    points: [...logs].map(([hash, log]) => ({ hash, log7: log, log14: log + Math.log(0.6) })),
  };
  const moves = { domains: new Map(), listings: new Map([[1, listing]]) };
  const secondWeek = addDays(DAY, FIRST_WEEK_DAYS + 2);

  it('its ISPs are judged against it on day 14 back, and as they are against day 7 back', () => {
    expect(shownWeeks(drop, listing, secondWeek)).toEqual({ on7: false, on14: true });
    const shares = judgedShares(moves, [drop], secondWeek);
    expect(shares.byDomain.get(1)?.share7).toBe(1);
    expect(shares.byDomain.get(1)?.share14).toBeCloseTo(0.6, 9);
    expect(judgedShare(shares, moves, 1, 1)).toEqual({ share7: 1, share14: 0.6 });
  });

  it('not when its listed ISPs do not show it on day 14 back (20% of 40%)', () => {
    const shallow = { ...listing, listedLog14: Math.log(0.8) };
    expect(shownWeeks(drop, shallow, secondWeek)).toEqual({ on7: false, on14: false });
  });

  it('not in its first week (day 7 back), nor its third, nor for a drop only remembered', () => {
    expect(shownWeeks(drop, listing, addDays(DAY, 3))).toEqual({ on7: false, on14: false });
    expect(shownWeeks(drop, listing, addDays(DAY, 2 * FIRST_WEEK_DAYS))).toEqual({
      on7: false,
      on14: false,
    });
    const { lastNotified: _told, ...remembered } = drop;
    expect(shownWeeks(remembered, listing, secondWeek)).toEqual({ on7: false, on14: false });
  });
});

describe("a told domain drop's second week in the lifecycle", () => {
  /**
   * `count` ISPs of a domain in its drop's second week: yesterday `share7` of day 7 back (inside
   * the drop, 600 clicks), 40% of that below day 14 back (1,000 clicks), day 30 back as day 14.
   */
  function secondWeek(domainId: number, count: number, share7: number): IspTrend[] {
    return down(domainId, count, share7, 0, 600).map((e) => {
      const out = { ...e } as Record<string, unknown>;
      out.fourteen_days_ago_total_clicks = 1000;
      out.thirty_days_ago_total_clicks = 1000;
      out.yesterday_fourteen_days_ago_total_clicks_trend = e.yesterday_total_clicks / 10 - 100;
      out.yesterday_thirty_days_ago_total_clicks_trend = e.yesterday_total_clicks / 10 - 100;
      return out as unknown as IspTrend;
    });
  }
  const firstWeek = Array.from({ length: DROP_HOLD_DAYS }, () => [] as IspTrend[]);

  it('held while its listed ISPs show it against day 14 back, with nothing e-mailed', () => {
    const lists = [
      down(2, 25, 0.6),
      ...firstWeek.slice(1),
      ...Array(4).fill(secondWeek(2, 12, 0.95)),
    ];
    const results = days(lists);
    expect(results.map((r) => r.changes.learned?.drops.length)).toEqual(lists.map(() => 1));
    expect(results.slice(1).every((r) => emailed(r).length === 0)).toBe(true);
    expect(results.slice(1).every((r) => r.pairs.every((p) => p.class !== 'new'))).toBe(true);
  });

  it('its domain found down again then is news of its own, not the drop worse', () => {
    // Seen for its first 4 days (not over: seen 5 days before), then its second week.
    const seen = Array.from({ length: 4 }, () => down(2, 25, 0.6));
    const lists = [...seen, ...firstWeek.slice(seen.length), secondWeek(2, 12, 0.95)];
    const results = days([...lists, down(2, 25, 0.02, 0, 600)]);
    expect(results.slice(0, -1).map((r) => emailed(r).length)).toEqual(
      lists.map((_, i) => (i === 0 ? 1 : 0)),
    );
    expect(emailed(results.at(-1)!).map((d) => d.class)).toEqual(['new']);
    expect(results.at(-1)!.changes.learned?.drops[0]?.firstSeen).toBe(addDays(DAY, lists.length));
  });
});

describe("judgedShare: a domain's active drop, as its other ISPs show it", () => {
  // A domain's drop of 25% told before; today day 30 back lists three of its ISPs: ISP 1 down on
  // its own (its step), ISP 2 down 26%, ISP 3 barely. (Keys: ispHashes.)
  const { lastNotified: _told, ...drop } = toldDomainDrop('2026-02-20', 25);
  const logs = new Map([
    [1, Math.log(0.35)],
    [2, Math.log(0.74)],
    [3, Math.log(0.98)],
  ]);
  const listing = {
    listed: 3,
    known: 30,
    listedLog7: Math.log(0.74),
    listedLog14: Math.log(0.74),
    points: [...logs].map(([hash, log]) => ({ hash, log7: log, log14: log })),
  };
  const moves = { domains: new Map(), listings: new Map([[1, listing]]) };
  const shares = judgedShares(moves, [drop], DAY);

  it('the three listed still show the drop (median 26% down, 75% of it is 18.75%)', () => {
    expect(shares.byDomain.get(1)?.share7).toBeCloseTo(0.75, 9);
    expect(shares.byDrop.get(1)?.drop).toBe(drop);
  });

  it('an ISP the others still show it for is judged against the drop', () => {
    expect(judgedShare(shares, moves, 1, 3).share7).toBeCloseTo(0.75, 9);
    expect(judgedShare(shares, moves, 1, 2).share7).toBeCloseTo(0.75, 9);
  });

  it('the ISP that holds the drop shown is judged on its own (others: 14% down)', () => {
    expect(judgedShare(shares, moves, 1, 1)).toEqual({ share7: 1, share14: 1 });
    // ...or against the network's move when the network moved.
    const network = {
      listed: 50,
      known: 90,
      log7: Math.log(0.9),
      log14: Math.log(0.9),
      se: 0.02,
      domainsMoved: 2,
      domainsKnown: 3,
    };
    const withNetwork = { ...moves, network };
    const networkShares = judgedShares(withNetwork, [drop], DAY);
    expect(judgedShare(networkShares, withNetwork, 1, 1).share7).toBeCloseTo(0.9, 9);
  });

  it('listingWithout: the median of the ISPs left; unchanged when none is listed', () => {
    const without = listingWithout(listing, new Set([1, 99]));
    expect(without.listedLog7).toBeCloseTo((Math.log(0.74) + Math.log(0.98)) / 2, 9);
    expect(without.listed).toBe(3);
    expect(without.points.some((p) => p.hash === 1)).toBe(false);
    expect(listingWithout(listing, new Set([99]))).toBe(listing);
    expect(listingWithout(listing, new Set([1, 2, 3])).listedLog7).toBeUndefined();
  });
});

describe('classifyDrops: a remembered drop lives its first week only', () => {
  // Domain 1 down 30% on a day, short of a headline: remembered, never told. Its three listed
  // ISPs show 30% down on both weeks (their own steps, or a holiday's move): they keep it shown.
  const remembered = (firstSeen: string): ActiveDrop => {
    const { lastNotified: _told, ...drop } = toldDomainDrop(firstSeen, 30);
    return drop;
  };
  const shown = {
    listed: 3,
    known: 30,
    listedLog7: Math.log(0.7),
    listedLog14: Math.log(0.7),
    points: [1, 2, 3].map((hash) => ({ hash, log7: Math.log(0.7), log14: Math.log(0.7) })),
  };
  const held = (drop: ActiveDrop, daysOn: number) =>
    classifyDrops({
      asOf: addDays(drop.firstSeen, daysOn),
      moves: { domains: new Map(), listings: new Map([[1, shown]]) },
      variation: { extra: 0.03, common: 0.0144, network: 0.0025, days: 30 },
      settings: SETTINGS,
      active: [drop],
      isSilenced: () => false,
      domains: new Map(),
    }).active;

  it('held while both comparison days are before it (DROP_HOLD_DAYS)', () => {
    const drop = remembered(DAY);
    expect(held(drop, DROP_HOLD_DAYS)).toEqual([drop]);
  });

  it('over the day after, though its listed ISPs still show it', () => {
    expect(held(remembered(DAY), DROP_HOLD_DAYS + 1)).toEqual([]);
  });

  it('a told drop its listed ISPs still show goes on', () => {
    const told = toldDomainDrop(DAY, 30);
    expect(held(told, DROP_HOLD_DAYS + 1)).toEqual([told]);
  });
});
