import { describe, expect, it } from 'vitest';
import { findPairSlots } from '../../src/monitor/pair-slots.js';
import type { ActivePair, WatchedRun } from '../../src/monitor/types.js';
import { BELOW, entry, WARN } from './fixtures.js';

function active(domainId: number, isp: string, dropPercent = 30): ActivePair {
  return {
    domainId,
    isp,
    domainUrl: `https://d${domainId}.example`,
    firstSeen: '2026-03-01',
    lastSeen: '2026-03-01',
    lastNotified: '2026-03-01',
    notifiedSeverity: 'warning',
    quietRuns: 0,
    baseline: 1000,
    yesterday: 700,
    dropPercent,
  };
}

function run(domainId: number, isp: string, days: number): WatchedRun {
  return { domainId, isp, since: '2026-03-01', last: '2026-03-01', days, clicks: 0, d7: 0, d14: 0 };
}

describe('findPairSlots', () => {
  it('finds each pair once: its record, its run and whether it is listed', () => {
    const found = findPairSlots(
      [active(1, 'A'), active(2, 'B')],
      [run(1, 'A', 2), run(3, 'C', 1)],
      [entry(1, 'A', WARN), entry(3, 'C', BELOW)],
    );
    expect(found.history.map((s) => s.prev?.isp)).toEqual(['A', 'B']);
    expect(found.listed.map((e) => e.isp)).toEqual(['A', 'C']);
    // A pair of the history that is listed today has one slot for both.
    expect(found.listedSlots[0]).toBe(found.history[0]);
    expect(found.listedSlots[0]!.watched?.days).toBe(2);
    expect(found.listedSlots[1]).toMatchObject({ prev: undefined, listed: true });
    expect(found.listedSlots[1]!.watched?.days).toBe(1);
    expect(found.history[1]).toMatchObject({ watched: undefined, listed: false });
    expect(found.duplicates).toBe(0);
  });

  it('keeps the first record and entry of a repeated pair and the last run', () => {
    const found = findPairSlots(
      [active(1, 'A', 30), active(1, 'A', 60)],
      [run(1, 'A', 2), run(1, 'A', 5)],
      [entry(1, 'A', WARN), entry(1, 'A', BELOW), entry(1, 'a', BELOW)],
    );
    expect(found.history).toHaveLength(1);
    expect(found.history[0]!.prev?.dropPercent).toBe(30);
    expect(found.history[0]!.watched?.days).toBe(5);
    // ISPs are compared exactly as sent.
    expect(found.listed.map((e) => e.yesterday_total_clicks)).toEqual([700, 950]);
    expect(found.duplicates).toBe(1);
  });
});
