import { describe, expect, it } from 'vitest';
import type { WatchedRun } from '../../src/monitor/types.js';
import { checkRuns, decodeRuns, encodeRuns } from '../../src/store/runs-codec.js';

const run = (over: Partial<WatchedRun>): WatchedRun => ({
  domainId: 1,
  isp: 'x',
  since: '2026-02-27',
  last: '2026-03-01',
  days: 3,
  clicks: 2100,
  d7: 3000,
  d14: 2950,
  ...over,
});

/** The blob as text, as Redis hands it back. */
const encoded = (runs: WatchedRun[]): string => encodeRuns(runs).toString('utf8');

describe('listed runs codec', () => {
  it('round-trips every field, odd ISP strings included', () => {
    const runs = [
      run({}),
      run({ isp: 'a:b "quoted"\n<script>', days: 1, since: '2026-03-01' }),
      run({ isp: 'Ünïcödé 🚀', domainId: 2 }),
      run({ isp: '', domainId: -3, clicks: 0 }),
    ];
    const decoded = decodeRuns(encoded(runs));
    // Grouped by domain, each domain's runs in their order (here already so).
    expect(decoded).toEqual(runs);
    // As bytes, as the store reads it.
    expect(decodeRuns(encodeRuns(runs))).toEqual(runs);
  });

  it('runs of one domain apart from each other: grouped by domain, each in its order', () => {
    const runs = [1, 2, 1, 3, 2, 1].map((domainId, i) =>
      run({ domainId, isp: `isp${i}`, days: i }),
    );
    const decoded = decodeRuns(encoded(runs));
    expect(decoded.map((r) => `${r.domainId}:${r.isp}`)).toEqual([
      '1:isp0',
      '1:isp2',
      '1:isp5',
      '2:isp1',
      '2:isp4',
      '3:isp3',
    ]);
    expect(decoded).toEqual(expect.arrayContaining(runs));
  });

  it('is compact: a domain once, seven values a run', () => {
    const blob = encoded([run({}), run({ isp: 'y' })]);
    expect(blob).toBe(
      '{"v":1,"d":[[1,["x",20511,20513,3,2100,3000,2950,"y",20511,20513,3,2100,3000,2950]]]}',
    );
  });

  it('nothing stored: no runs; a bad blob: one clear error', () => {
    expect(decodeRuns(null)).toEqual([]);
    expect(decodeRuns('')).toEqual([]);
    expect(() => decodeRuns('{')).toThrow(/stored listed runs are unreadable \(not JSON\)/);
    expect(() => decodeRuns('{"v":2,"d":[]}')).toThrow(/unknown version/);
    expect(() => decodeRuns('{"v":1,"d":[[1,["x",1,2]]]}')).toThrow(/bad run list/);
    expect(() => decodeRuns('{"v":1,"d":[[1,[7,1,2,3,4,5,6]]]}')).toThrow(/bad ISP/);
  });

  it('checkRuns refuses what decodeRuns refuses, and passes what it reads', () => {
    const good = encoded([run({})]);
    expect(() => checkRuns(good)).not.toThrow();
    expect(() => checkRuns(null)).not.toThrow();
    for (const bad of [
      '{',
      '{"v":2,"d":[]}',
      '{"v":1,"d":[[1,["x",1,2]]]}',
      '{"v":1,"d":[[1,"u",["x",1,2,3,4,5,6]]]}',
    ]) {
      expect(() => decodeRuns(bad)).toThrow(/stored listed runs are unreadable/);
      expect(() => checkRuns(bad)).toThrow(/stored listed runs are unreadable/);
      expect(() => decodeRuns(Buffer.from(bad))).toThrow(/stored listed runs are unreadable/);
      expect(() => checkRuns(Buffer.from(bad))).toThrow(/stored listed runs are unreadable/);
    }
  });
});
