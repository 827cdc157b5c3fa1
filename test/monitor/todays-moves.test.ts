import { describe, expect, it } from 'vitest';
import type { PairSlot } from '../../src/monitor/pair-slots.js';
import { readTodaysMoves } from '../../src/monitor/todays-moves.js';
import type { ActivePair, IspTrend, Variation } from '../../src/monitor/types.js';
import { SETTINGS, entry, knownForMonth } from './fixtures.js';

const DAY = '2026-03-01';
const CHANCE: Variation = { extra: 0, common: 0, network: 0, days: 30 };
const isp = (i: number) => `ISP ${i}`;

/** Domain 1's 20 known ISPs all listed, down to `ratio`; the first `active` of them active. */
function today(ratio: number, active: number): { listed: IspTrend[]; listedSlots: PairSlot[] } {
  const listed = Array.from({ length: 20 }, (_, i) =>
    entry(1, isp(i), { baseline: 1000, yesterday: Math.round(1000 * ratio) }),
  );
  const listedSlots = listed.map((_, i) => ({
    prev: i < active ? ({ domainId: 1, isp: isp(i) } as ActivePair) : undefined,
    watched: undefined,
    listed: true,
  }));
  return { listed, listedSlots };
}

const read = (ratio: number, active: number) =>
  readTodaysMoves({
    asOf: DAY,
    ...today(ratio, active),
    learned: {
      known: [
        knownForMonth(
          1,
          Array.from({ length: 20 }, (_, i) => isp(i)),
          DAY,
        ),
      ],
      drops: [],
    },
    variation: CHANCE,
    settings: SETTINGS,
    rule: undefined,
  });

describe('readTodaysMoves', () => {
  it('reads a domain down together as its common move, and judges its pairs against it', () => {
    const moves = read(0.5, 0);
    expect(moves.moves.domains.get(1)?.log7).toBeCloseTo(Math.log(0.5), 2);
    expect(moves.shares.byDomain.get(1)?.share7).toBeCloseTo(0.5, 2);
    expect(moves.hashes).toHaveLength(20);
    expect(moves.activeDrops).toEqual([]);
    // One domain is not the network.
    expect(moves.networkDip).toBe(false);
  });

  it("leaves the domain's active ISPs out of its listing", () => {
    expect(read(0.5, 0).moves.listings.get(1)?.points).toHaveLength(20);
    expect(read(0.5, 5).moves.listings.get(1)?.points).toHaveLength(15);
  });
});
