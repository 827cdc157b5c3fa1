import { describe, expect, it } from 'vitest';
import { judgeListedPairs } from '../../src/monitor/judge-listed.js';
import { PairOutcomes } from '../../src/monitor/pair-outcomes.js';
import type { PairSlot } from '../../src/monitor/pair-slots.js';
import { significanceOf } from '../../src/monitor/significance.js';
import { readTodaysMoves } from '../../src/monitor/todays-moves.js';
import type { IspTrend, Variation } from '../../src/monitor/types.js';
import { SETTINGS, entry, knownForMonth } from './fixtures.js';

const DAY = '2026-03-01';
const VARIATION: Variation = { extra: 0.02, common: 0.012, network: 0.004, days: 60 };
const isp = (i: number) => `ISP ${i}`;

/**
 * Domain 1 of 30 known ISPs on a bad day short of a majority: 14 ISPs listed 13% down (under
 * minDropPercent), and ISP 0, new, read `card` against 1,000 on days 7, 14 and 30 back.
 */
function judge(card: number) {
  const listed: IspTrend[] = [
    entry(1, isp(0), { baseline: 1000, yesterday: card }),
    ...Array.from({ length: 14 }, (_, i) =>
      entry(1, isp(i + 1), { baseline: 1000, yesterday: 870 }),
    ),
  ];
  const listedSlots: PairSlot[] = listed.map(() => ({
    prev: undefined,
    watched: undefined,
    listed: true,
  }));
  const moves = readTodaysMoves({
    asOf: DAY,
    listed,
    listedSlots,
    learned: {
      known: [
        knownForMonth(
          1,
          Array.from({ length: 30 }, (_, i) => isp(i)),
          DAY,
        ),
      ],
      drops: [],
    },
    variation: VARIATION,
    settings: SETTINGS,
    rule: undefined,
  });
  const out = new PairOutcomes(DAY, true);
  const day = {
    asOf: DAY,
    settings: SETTINGS,
    rule: undefined,
    inPlace: false,
    variation: VARIATION,
    matchSilence: () => undefined,
    activeDrops: moves.activeDrops,
  };
  judgeListedPairs(day, listed, listedSlots, moves, out);
  return { card: out.pairs.find((p) => p.isp === isp(0)), moves };
}

/** ISP 0's drop as judged without the count: against the network's variation alone. */
const asJudged = (card: number) =>
  significanceOf(
    { yesterday: card, d7: 1000, d14: 1000 },
    { extra: VARIATION, share7: 1, share14: 1 },
  );

describe("judging a new pair beyond its domain's count of listed ISPs", () => {
  it('reads the domain as moved from its count, short of a majority', () => {
    expect(judge(510).moves.moves.domains.has(1)).toBe(false);
    expect(judge(510).moves.moves.counted?.(1)?.deepest).toBeLessThan(-0.05);
  });

  it('leaves out a card alertable only within that move', () => {
    expect(asJudged(510)).toBeGreaterThan(SETTINGS.minSignificance);
    expect(judge(510).card).toBeUndefined();
  });

  it('tells a card alertable beyond it with its figures as judged, not beyond the count', () => {
    const { card } = judge(300);
    expect(card?.class).toBe('new');
    expect(card?.significance).toBeCloseTo(asJudged(300), 6);
  });
});
