import { describe, expect, it } from 'vitest';
import { judgedVariation } from '../../src/monitor/judged-variation.js';
import type { PairSlot } from '../../src/monitor/pair-slots.js';
import { learnVariation, variationOf } from '../../src/monitor/variation.js';
import { learnVariationToday } from '../../src/monitor/variation-today.js';
import type { ActivePair, WatchedRun } from '../../src/monitor/types.js';
import { entry } from './fixtures.js';

const ASOF = '2026-03-10';

function slot(prev?: Partial<ActivePair>, watched?: Partial<WatchedRun>): PairSlot {
  return {
    prev: prev as ActivePair | undefined,
    watched: watched as WatchedRun | undefined,
    listed: true,
  };
}

describe('learnVariationToday', () => {
  it('learns from the listed pairs neither active nor in a decline since yesterday', () => {
    const listed = [
      entry(1, 'quiet', { baseline: 900, yesterday: 1000 }),
      entry(1, 'active', { baseline: 1000, yesterday: 300 }),
      entry(1, 'run since yesterday', { baseline: 1000, yesterday: 600 }),
      entry(2, 'run two days ago', { baseline: 800, yesterday: 700 }),
    ];
    const slots = [
      slot(),
      slot({ domainId: 1 }),
      slot(undefined, { last: '2026-03-09' }),
      slot(undefined, { last: '2026-03-08' }),
    ];
    const today = learnVariationToday(listed, slots, undefined, ASOF, 3);
    const expected = learnVariation(
      undefined,
      [
        { domainId: 1, yesterday: 1000, d7: 900, d14: 900 },
        { domainId: 2, yesterday: 700, d7: 800, d14: 800 },
      ],
      variationOf(undefined),
      ASOF,
    );
    expect(today.learned).toEqual(expected);
    expect(today.judged).toEqual(judgedVariation(expected, 3));
  });

  it('leaves out a domain whose comparison days straddle its drop', () => {
    const listed = [
      entry(1, 'A', { baseline: 900, yesterday: 1000 }),
      entry(2, 'B', { baseline: 800, yesterday: 700 }),
    ];
    const shifted = learnVariationToday(
      listed,
      [slot(), slot()],
      { known: [], drops: [], levelShifts: [{ domainId: 1, firstSeen: '2026-03-01' }] },
      ASOF,
      3,
    );
    const onlyB = learnVariationToday([listed[1]!], [slot()], undefined, ASOF, 3);
    expect(shifted.learned).toEqual(onlyB.learned);
  });
});
