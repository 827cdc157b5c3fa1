import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PairTable } from '../../src/monitor/pair-table.js';
import type { ActivePair, IspTrend, WatchedRun } from '../../src/monitor/types.js';

const active = (domainId: number, isp: string): ActivePair => ({
  domainId,
  isp,
  domainUrl: `https://d${domainId}.example`,
  firstSeen: '2026-11-01',
  lastSeen: '2026-11-02',
  lastNotified: '2026-11-02',
  notifiedSeverity: 'warning',
  quietRuns: 0,
  baseline: 100,
  yesterday: 10,
  dropPercent: 90,
});
const run = (domainId: number, isp: string, days = 1): WatchedRun => ({
  domainId,
  isp,
  since: '2026-11-01',
  last: '2026-11-02',
  days,
  clicks: 1,
  d7: 2,
  d14: 2,
});
const entry = (domainId: number, isp: string): IspTrend =>
  ({ network_tracking_domain_id: domainId, isp }) as IspTrend;

describe('PairTable', () => {
  it('files each pair once, by domain id and ISP exactly, across the three lists', () => {
    // Pairs that differ only in case, in domain, or by a character; and odd domain ids.
    const pairs: Array<[number, string]> = [
      [1, 'Comcast'],
      [1, 'comcast'],
      [2, 'Comcast'],
      [1, 'Comcast '],
      [-7, ''],
      [2 ** 40 + 1, 'x'],
      [2 ** 40 + 2, 'x'],
      [NaN, 'nan'],
      [1.5, 'half'],
    ];
    const table = new PairTable();
    const history = pairs.map(([d, isp]) => active(d, isp));
    const runs = [...pairs].reverse().map(([d, isp]) => run(d, isp));
    const entries = pairs.map(([d, isp]) => entry(d, isp));
    table.reset(history, runs, entries);
    const slots = history.map((_, i) => table.addPrev(i));
    expect(new Set(slots).size).toBe(pairs.length);
    runs.forEach((_, i) => table.addRun(i));
    entries.forEach((_, i) => {
      const slot = table.addEntry(i);
      expect(slot).toBe(slots[i]);
      expect(table.prevOf(slot)).toBe(history[i]);
      expect(table.runOf(slot)).toBe(runs[pairs.length - 1 - i]);
      expect(table.listed(slot)).toBe(true);
    });
    expect(table.historySize).toBe(pairs.length);
    expect(pairs.map((_, n) => table.historySlot(n))).toEqual(slots);
  });

  it('a repeat: the first of the history and of the list counts, the last listed run', () => {
    const table = new PairTable();
    const history = [active(1, 'a'), active(1, 'a'), active(1, 'b')];
    const runs = [run(1, 'a', 1), run(1, 'a', 2)];
    const entries = [entry(1, 'c'), entry(1, 'c')];
    table.reset(history, runs, entries);
    const a = table.addPrev(0);
    expect(table.addPrev(1)).toBe(-1);
    table.addPrev(2);
    expect(table.historySize).toBe(2);
    runs.forEach((_, i) => table.addRun(i));
    expect(table.runOf(a)?.days).toBe(2);
    const c = table.addEntry(0);
    expect(table.addEntry(1)).toBe(-1);
    expect(table.prevOf(c)).toBeUndefined();
    expect(table.runOf(c)).toBeUndefined();
    expect(table.listed(a)).toBe(false);
  });

  it('keeps them apart at 60,000 and 200,000 pairs, and again after a smaller classification', () => {
    const table = new PairTable();
    // 200,000: larger than a table keeps between classifications, so its arrays are made anew.
    for (const size of [60_000, 500, 200_000, 500, 60_000]) {
      const history = Array.from({ length: size }, (_, i) => active(i % 997, `isp ${i}`));
      table.reset(history, [], []);
      const slots = new Set(history.map((_, i) => table.addPrev(i)));
      expect(slots.size).toBe(size);
      for (let i = 0; i < size; i += 97)
        expect(table.prevOf(table.historySlot(i))).toBe(history[i]);
      table.release();
      expect(table.prevOf(table.historySlot(0))).toBeUndefined();
    }
  });

  it('places pairs by a seed of its own process: no list can be made to collide in advance', () => {
    // The same 200 pairs filed in two processes (the build the global setup made): their slots
    // differ, where an unseeded hash would give both the same.
    const module = path.resolve('dist/src/monitor/pair-table.js');
    const script = `import(${JSON.stringify(module)}).then(({ PairTable }) => {
      const history = Array.from({ length: 200 }, (_, i) => ({ domainId: i % 7, isp: 'ISP ' + i }));
      const table = new PairTable();
      table.reset(history, [], []);
      console.log(history.map((_, i) => table.addPrev(i)).join(','));
    })`;
    const slots = () => {
      const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      return run.stdout.trim();
    };
    const first = slots();
    expect(first.split(',')).toHaveLength(200);
    expect(slots()).not.toBe(first);
  });
});
