import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/monitor/lifecycle-step.js';
import { PairOutcomes } from '../../src/monitor/pair-outcomes.js';
import type { ActivePair } from '../../src/monitor/types.js';
import { entry } from './fixtures.js';

const ASOF = '2026-03-10';

function active(isp: string, firstSeen: string): ActivePair {
  return {
    domainId: 1,
    isp,
    domainUrl: 'https://d1.example',
    firstSeen,
    lastSeen: firstSeen,
    lastNotified: firstSeen,
    notifiedSeverity: 'warning',
    quietRuns: 0,
    baseline: 1000,
    yesterday: 600,
    dropPercent: 40,
  };
}

const step = (pairClass: Step['pairClass'], next?: ActivePair): Step => ({
  pairClass,
  next,
  quietRuns: 0,
});

describe('PairOutcomes', () => {
  it('tallies a listed domain once, with the clicks of its pairs', () => {
    const out = new PairOutcomes(ASOF, true);
    out.listed(entry(1, 'A', { baseline: 1000, yesterday: 600 }), 1, 'https://d1.example');
    out.listed(entry(1, 'B', { baseline: 500, yesterday: 700 }), 1, 'https://d1.example');
    expect(out.domainClicks.get(1)).toEqual({
      url: 'https://d1.example',
      clicksLost: 400,
      baselineClicks: 1500,
    });
  });

  it('records a step: the history, the counts, and a recent report an ISP may join', () => {
    const out = new PairOutcomes(ASOF, false);
    const told = active('A', '2026-03-09');
    expect(out.record(told, step('ongoing', told), 1, 'A', told.domainUrl, true, 1000, 600)).toBe(
      false,
    );
    const gone = active('B', '2026-03-01');
    expect(out.record(gone, step('cleared'), 1, 'B', gone.domainUrl, false, 1000, 600)).toBe(true);
    expect(out.record(undefined, step('new'), 1, 'C', gone.domainUrl, true, 1000, 600)).toBe(true);
    expect(out.upsert).toEqual([told]);
    expect(out.remove).toHaveLength(1);
    expect(out.counts).toMatchObject({ ongoing: 1, cleared: 1, new: 1 });
    // Only the alertable pair first seen within JOIN_WITHIN_DAYS counts as reported.
    expect(out.reported.get(1)).toEqual(new Map([['2026-03-09', 1]]));
  });
});
