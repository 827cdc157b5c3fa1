import { describe, expect, it } from 'vitest';
import type { IspTrend } from '../../src/api/schemas.js';
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

describe('listed runs codec', () => {
  it('round-trips every field, odd ISP strings included', () => {
    const runs = [
      run({}),
      run({ isp: 'a:b "quoted"\n<script>', days: 1, since: '2026-03-01' }),
      run({ isp: 'Ünïcödé 🚀', domainId: 2 }),
      run({ isp: '', domainId: -3, clicks: 0 }),
    ];
    const decoded = decodeRuns(encodeRuns(runs));
    // Grouped by domain, each domain's runs in their order (here already so).
    expect(decoded).toEqual(runs);
  });

  it('runs of one domain apart from each other: grouped by domain, each in its order', () => {
    const runs = [1, 2, 1, 3, 2, 1].map((domainId, i) =>
      run({ domainId, isp: `isp${i}`, days: i }),
    );
    const decoded = decodeRuns(encodeRuns(runs));
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

  it('is compact: a domain once, an ISP name once, seven values a run', () => {
    const blob = encodeRuns([run({}), run({ isp: 'y' }), run({ domainId: 2 })]);
    // Day 20511 (2026-02-27) is 82044 as a number's code (4n): 0xfc 0x80 0x05.
    const first = [0, 0xfc, 0x80, 0x05, 0x84, 0x81, 0x05, 12, 0xd0, 0x41, 0xe0, 0x5d, 0x98, 0x5c];
    expect([...blob]).toEqual([
      ...[0, 2, 54, 0, 0, 0], // binary, version 2, the string table at byte 54
      3, // runs
      2, // domains
      ...[4, 2, ...first, 1, ...first.slice(1)], // domain 1: two runs, ISPs 0 and 1
      ...[8, 1, ...first], // domain 2: one run, ISP 0
      ...[2, 2, 0x78, 2, 0x79], // the string table: "x", "y"
    ]);
    expect(decodeRuns(blob)).toEqual([run({}), run({ isp: 'y' }), run({ domainId: 2 })]);
  });

  it('reads a version-1 blob (JSON, as earlier versions wrote it)', () => {
    const v1 =
      '{"v":1,"d":[[1,["x",20511,20513,3,2100,3000,2950,"y",20511,20513,3,2100,3000,2950]]]}';
    expect(decodeRuns(v1)).toEqual([run({}), run({ isp: 'y' })]);
    expect(decodeRuns(Buffer.from(v1))).toEqual([run({}), run({ isp: 'y' })]);
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
    const good = encodeRuns([run({})]);
    expect(() => checkRuns(good)).not.toThrow();
    for (let length = 1; length < good.length; length++) {
      expect(() => checkRuns(good.subarray(0, length))).toThrow(
        /stored listed runs are unreadable/,
      );
    }
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

describe('a version-2 blob written by an earlier release', () => {
  it('is read as written, and the same runs are written as the same bytes', () => {
    const runs = [
      run({ domainId: 12, isp: 'Comcast', since: '2026-11-10', last: '2026-11-20', days: 9 }),
      run({
        domainId: 3,
        isp: 'Telefónica 😀',
        since: '2026-11-19',
        last: '2026-11-20',
        days: 2,
        clicks: 1.5,
        d7: -1,
        d14: 2 ** 50,
      }),
    ];
    const started = {
      asOf: '2026-11-21',
      entries: [
        {
          network_tracking_domain_id: 12,
          isp: 'AT&T',
          yesterday_total_clicks: 40,
          seven_days_ago_total_clicks: 80,
          fourteen_days_ago_total_clicks: 75,
        },
        {
          network_tracking_domain_id: 5,
          isp: 'Comcast',
          yesterday_total_clicks: 0,
          seven_days_ago_total_clicks: 100000,
          fourteen_days_ago_total_clicks: 99999,
        },
      ] as unknown as IspTrend[],
    };
    const blob = Buffer.from(
      [
        '0002540000000403300200fc8805a4890524d041e05d985c01a88905a8890504a001c002ac020c0102a08905',
        'a489050801000000000000f83f02010000000000001043140100a88905a88905040080b518fcb418030e436f',
        '6d63617374084154265435540065006c0065006600f3006e0069006300610020003dd800de',
      ].join(''),
      'hex',
    );
    expect(encodeRuns(runs, started).equals(blob)).toBe(true);
    expect(decodeRuns(blob)).toEqual([
      runs[0],
      run({
        domainId: 12,
        isp: 'AT&T',
        since: '2026-11-21',
        last: '2026-11-21',
        days: 1,
        clicks: 40,
        d7: 80,
        d14: 75,
      }),
      runs[1],
      run({
        domainId: 5,
        isp: 'Comcast',
        since: '2026-11-21',
        last: '2026-11-21',
        days: 1,
        clicks: 0,
        d7: 100000,
        d14: 99999,
      }),
    ]);
  });
});
