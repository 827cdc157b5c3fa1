import { describe, expect, it } from 'vitest';
import type { ActivePair, AddedPair } from '../../src/monitor/types.js';
import { activeDropPercents, decodeActive, encodeActive } from '../../src/store/active-codec.js';
import { activeBlobV1 } from './fixtures.js';

function pair(over: Partial<ActivePair>): ActivePair {
  return {
    domainId: 1,
    isp: 'x',
    domainUrl: 'https://d1.example',
    firstSeen: '2026-02-27',
    lastSeen: '2026-03-01',
    lastNotified: '2026-02-28',
    notifiedSeverity: 'critical',
    quietRuns: 0,
    baseline: 1000,
    yesterday: 10,
    dropPercent: 99,
    ...over,
  };
}

/** Numbers of every kind: integers of each size and sign, beyond 2^40 and the safe integers, fractions, NaN, infinities. */
const NUMBERS = [
  0,
  7,
  -5,
  127,
  128,
  1234567,
  2 ** 28,
  -(2 ** 28),
  2 ** 40,
  2 ** 40 + 1,
  -(2 ** 40) - 1,
  1e15,
  2 ** 53 + 2,
  1e21,
  0.1 + 0.2,
  -1.5e-7,
  Number.NaN,
  Infinity,
  -Infinity,
];

/** Strings of every kind: escapes, control characters, astral, lone surrogates, long, empty. */
const STRINGS = [
  'a "q" \\ b',
  'tab\there',
  '\u0000\u001f',
  'Ünïcödé 🚀',
  'lone \ud800 high',
  'lone \udfff low',
  '',
  '</script>',
  'x'.repeat(63),
  'y'.repeat(64),
  'é'.repeat(300),
];

/** Whether decoding `blob` throws the active codec's THM_STORE error (and nothing else). */
function refused(blob: Buffer): boolean {
  try {
    decodeActive(blob);
    activeDropPercents(blob);
    return false;
  } catch (error) {
    expect(error).toMatchObject({
      code: 'THM_STORE',
      message: expect.stringMatching(/^stored active pairs are unreadable \(.+\)$/),
    });
    return true;
  }
}

describe('active pair codec', () => {
  it('round-trips every field, odd ISP strings included', () => {
    const pairs = [
      pair({}),
      pair({ isp: 'a:b "quoted"\n<script>', notifiedSeverity: 'warning', dropPercent: 25.5 }),
      pair({
        isp: 'Ünïcödé 🚀',
        domainId: 2,
        domainUrl: 'https://d2.example',
        quietRuns: 1,
        quietAsOf: '2026-03-02',
      }),
      pair({ isp: '', domainId: -3, domainUrl: '' }),
    ];
    const decoded = decodeActive(encodeActive(pairs));
    // Grouped by domain, each domain's pairs in their order (here already so).
    expect(decoded).toEqual(pairs);
  });

  it('reads back every number and string as written: any double, any string', () => {
    const pairs = STRINGS.map((isp, i) =>
      pair({
        isp,
        domainId: NUMBERS[i % NUMBERS.length]!,
        domainUrl: STRINGS[(i + 1) % STRINGS.length]!,
        dropPercent: i * 7.777,
        baseline: NUMBERS[i % NUMBERS.length]!,
        yesterday: NUMBERS[(i + 5) % NUMBERS.length]!,
        quietRuns: NUMBERS[(i + 9) % NUMBERS.length]!,
      }),
    );
    // Each domain once (ids are unique here), so the order is the written one.
    const decoded = decodeActive(encodeActive(pairs));
    expect(decoded).toEqual(
      pairs.map((p) => ({ ...p, dropPercent: Math.round(p.dropPercent * 100) / 100 })),
    );
    // -0 is written as an integer, and reads back as 0 (as JSON wrote it).
    const [zero] = decodeActive(encodeActive([pair({ baseline: -0 })]));
    expect(Object.is(zero!.baseline, 0)).toBe(true);
    // Larger than the buffer first allocated.
    const many = Array.from({ length: 3000 }, (_, i) =>
      pair({ isp: `isp ${i} ${'é'.repeat(i % 40)}`, baseline: i * 1013 }),
    );
    expect(decodeActive(encodeActive(many))).toEqual(many);
  });

  it('reads a version-1 blob (JSON, as earlier versions wrote it), as text or bytes', () => {
    const pairs = STRINGS.map((isp, i) =>
      pair({
        isp,
        domainId: i % 3,
        domainUrl: `https://d${i % 3}.example/"x"`,
        dropPercent: i * 7.777,
        baseline: i * 1000,
        quietRuns: i % 2,
        quietAsOf: i % 2 ? '2026-03-02' : undefined,
      }),
    );
    const v1 = activeBlobV1(pairs);
    const expected = decodeActive(encodeActive(pairs));
    expect(decodeActive(v1)).toEqual(expected);
    expect(decodeActive(Buffer.from(v1))).toEqual(expected);
    expect(activeDropPercents(Buffer.from(v1))).toEqual(expected.map((p) => p.dropPercent));
  });

  it('pairs of one domain apart from each other: grouped by domain, each in its order', () => {
    const d = (domainId: number, isp: string) =>
      pair({ domainId, isp, domainUrl: `https://d${domainId}.example` });
    const pairs = [d(1, 'a'), d(1, 'b'), d(2, 'c'), d(1, 'e'), d(3, 'f'), d(2, 'g'), d(1, 'h')];
    const decoded = decodeActive(encodeActive(pairs));
    expect(decoded.map((p) => `${p.domainId}:${p.isp}`)).toEqual([
      '1:a',
      '1:b',
      '1:e',
      '1:h',
      '2:c',
      '2:g',
      '3:f',
    ]);
    expect(decoded).toEqual(expect.arrayContaining(pairs));
  });

  it('stores a domain URL once, and dropPercent to 2 decimals', () => {
    const pairs = Array.from({ length: 50 }, (_, i) =>
      pair({
        isp: `isp${i}`,
        domainUrl: 'https://a-long-tracking-domain.example.com',
        dropPercent: 100 / 3,
      }),
    );
    const blob = encodeActive(pairs);
    expect(blob.toString('latin1').split('a-long-tracking-domain').length - 1).toBe(1);
    expect(decodeActive(blob)[0]).toMatchObject({ isp: 'isp0', dropPercent: 33.33 });
  });

  it('stores each ISP name once, however many domains have it: ~20 bytes a pair', () => {
    // 50 domains of the same 20 ISPs, with a history's numbers: day numbers, clicks, drops.
    const pairs = Array.from({ length: 1000 }, (_, i) =>
      pair({
        domainId: 100 + Math.floor(i / 20),
        domainUrl: `https://track-${Math.floor(i / 20)}.example.com`,
        isp: `Broadband Provider ${i % 20} Ltd`,
        baseline: 500 + i * 7,
        yesterday: 100 + i,
        dropPercent: 40 + (i % 50) / 3,
        quietRuns: i % 3,
        quietAsOf: i % 3 ? '2026-03-01' : undefined,
      }),
    );
    const blob = encodeActive(pairs);
    expect(blob.toString('latin1').split('Broadband Provider 7 Ltd').length - 1).toBe(1);
    expect(blob.length / pairs.length).toBeLessThan(24);
    expect(decodeActive(blob)).toEqual(
      pairs.map((p) => ({ ...p, dropPercent: Math.round(p.dropPercent * 100) / 100 })),
    );
  });

  it('empty history', () => {
    expect(decodeActive(encodeActive([]))).toEqual([]);
    expect(activeDropPercents(encodeActive([]))).toEqual([]);
    expect(decodeActive(null)).toEqual([]);
    expect(activeDropPercents(null)).toEqual([]);
    expect(activeDropPercents('')).toEqual([]);
  });

  it("activeDropPercents: each stored pair's drop, in the stored order, as decodeActive has them", () => {
    const blob = encodeActive([
      pair({ domainId: 1, isp: 'a', dropPercent: 61.234 }),
      pair({ domainId: 2, isp: 'b', domainUrl: 'https://d2.example', dropPercent: 40 }),
      pair({ domainId: 1, isp: 'c', dropPercent: 99.5 }),
    ]);
    expect(activeDropPercents(blob)).toEqual(decodeActive(blob).map((p) => p.dropPercent));
    expect(activeDropPercents(blob).sort()).toEqual([40, 61.23, 99.5]);
  });

  it.each([
    ['not JSON', '{'],
    ['unknown version', '{"v":2,"d":[]}'],
    ['bad domain', '{"v":1,"d":[[1,["x",1,2,3,4,5,6,7,8,0]]]}'],
    ['bad pair list', '{"v":1,"d":[[1,"u",["x",1]]]}'],
    ['bad ISP', '{"v":1,"d":[[1,"u",[7,1,2,3,4,5,6,7,8,0]]]}'],
    ['bad number', '{"v":1,"d":[[1,"u",["x",1,2,3,"4",5,6,7,8,0]]]}'],
  ])(
    'refuses a corrupt version-1 blob (%s) with a THM_STORE error, counted or decoded',
    (name, blob) => {
      const error = expect.objectContaining({
        code: 'THM_STORE',
        message: `stored active pairs are unreadable (${name})`,
      });
      expect(() => decodeActive(blob)).toThrow(error);
      expect(() => activeDropPercents(blob)).toThrow(error);
      // As bytes (the store's way) the same.
      expect(() => decodeActive(Buffer.from(blob))).toThrow(error);
      expect(() => activeDropPercents(Buffer.from(blob))).toThrow(error);
    },
  );

  describe('a damaged blob', () => {
    const pairs = Array.from({ length: 40 }, (_, i) =>
      pair({
        domainId: i % 4,
        domainUrl: `https://d${i % 4}.example/ü`,
        isp: `isp ${i % 7} ${'é'.repeat(i % 3)}`,
        baseline: i * 100_003,
        yesterday: i % 5 === 0 ? 0.5 : i,
        quietAsOf: i % 2 ? '2026-03-02' : undefined,
      }),
    );
    const blob = encodeActive(pairs);

    it('cut short anywhere: refused', () => {
      for (let length = 1; length < blob.length; length++) {
        expect(refused(blob.subarray(0, length)), `first ${length} bytes`).toBe(true);
      }
    });

    it('with a byte changed anywhere: read as something or refused, never another error', () => {
      let refusals = 0;
      for (let at = 0; at < blob.length; at++) {
        for (const value of [0x00, 0x7f, 0x80, 0xff, blob[at]! ^ 0x01]) {
          const damaged = Buffer.from(blob);
          damaged[at] = value;
          if (refused(damaged)) refusals++;
        }
      }
      expect(refusals).toBeGreaterThan(0);
    });

    it.each([
      ['unknown version', (b: Buffer) => (b[1] = 3)],
      ['truncated', (b: Buffer) => b.writeUInt32LE(b.length + 1, 2)],
      ['bad string table', (b: Buffer) => b.writeUInt32LE(6, 2)],
    ])('refused: %s', (name, damage) => {
      const damaged = Buffer.from(blob);
      damage(damaged);
      expect(() => decodeActive(damaged)).toThrow(`stored active pairs are unreadable (${name})`);
    });

    it('refused: an ISP beyond the string table, a wrong pair count, a byte before the table or after it', () => {
      const one = encodeActive([pair({ isp: 'a' })]);
      // The one pair's ISP index follows the header (6), the pair and domain counts, the
      // domain's id, its URL and its count.
      const ispAt = 6 + 1 + 1 + 1 + 1 + 'https://d1.example'.length + 1;
      expect(one[ispAt]).toBe(0);
      const beyond = Buffer.from(one);
      beyond[ispAt] = 1;
      expect(() => decodeActive(beyond)).toThrow('(bad ISP)');
      expect(() => decodeActive(Buffer.concat([one, Buffer.from([0])]))).toThrow(
        '(bad string table)',
      );
      // A pair count that the domains do not add up to.
      const counted = Buffer.from(one);
      expect(counted[6]).toBe(1);
      counted[6] = 2;
      expect(() => decodeActive(counted)).toThrow('(bad domain)');
      const table = one.readUInt32LE(2);
      const padded = Buffer.concat([one.subarray(0, table), Buffer.from([0]), one.subarray(table)]);
      padded.writeUInt32LE(table + 1, 2);
      expect(() => decodeActive(padded)).toThrow('(bad domain)');
    });
  });

  it('reads recurring ISP names right, beyond one byte of index', () => {
    const names = Array.from({ length: 3000 }, (_, i) => `isp-${i}`);
    const pairs = [...names, ...names].map((isp, i) =>
      pair({ isp, domainId: i < names.length ? 1 : 2, domainUrl: `https://d${i}.example` }),
    );
    const decoded = decodeActive(encodeActive(pairs));
    expect(decoded.map((p) => p.isp)).toEqual([...names, ...names]);
    expect(decoded.map((p) => p.domainId)).toEqual([...names.map(() => 1), ...names.map(() => 2)]);
  });
});

/**
 * A version-2 blob as earlier releases wrote it (the bytes are the format's, fixed): the current
 * code reads it, and writes the same bytes for the same pairs. Fractions, negative and huge
 * numbers, UTF-8 and UTF-16 strings (a lone surrogate), a long name, the first and last days.
 */
const LONG_ISP = 'Deutsche Telekom AG, a name longer than sixty-four characters in all of it';
const V2_PAIRS: ActivePair[] = [
  pair({
    domainId: 12,
    isp: 'Comcast',
    domainUrl: 'https://trk12.example.com',
    firstSeen: '2026-11-01',
    lastSeen: '2026-11-20',
    lastNotified: '2026-11-14',
    baseline: 4100,
    yesterday: 1200,
    dropPercent: 70.73,
  }),
  pair({
    domainId: 12,
    isp: 'Telefónica 😀',
    domainUrl: 'https://trk12.example.com',
    firstSeen: '2026-10-31',
    lastSeen: '2026-11-19',
    lastNotified: '2026-10-31',
    notifiedSeverity: 'warning',
    quietRuns: 1,
    baseline: 2 ** 45,
    yesterday: -3,
    dropPercent: 33.333,
    quietAsOf: '2026-11-20',
  }),
  pair({
    domainId: 7,
    isp: LONG_ISP,
    domainUrl: 'https://ünïcode.example/ü',
    firstSeen: '1970-01-01',
    lastSeen: '9999-12-31',
    lastNotified: '2000-02-29',
    notifiedSeverity: 'warning',
    quietRuns: 2,
    baseline: 0.5,
    yesterday: 1e300,
    dropPercent: -12.5,
  }),
  pair({
    domainId: 12,
    isp: 'lone \ud800 surrogate',
    domainUrl: 'https://trk12.example.com',
    firstSeen: '2026-11-01',
    lastSeen: '2026-11-20',
    lastNotified: '2026-11-14',
    baseline: 300000000,
    yesterday: 268435456,
    dropPercent: 100,
  }),
  pair({
    domainId: 2 ** 40 + 3,
    isp: 'Comcast',
    domainUrl: '',
    firstSeen: '2026-11-01',
    lastSeen: '2026-11-20',
    lastNotified: '2026-11-14',
    baseline: 50,
    yesterday: 10,
    dropPercent: 80,
  }),
];
/** Two pairs new on 2026-11-21, as classification hands them to the store (AddedPair). */
const V2_ADDED = [
  {
    domainId: 7,
    isp: 'Orange',
    domainUrl: 'https://ünïcode.example/ü',
    firstSeen: '2026-11-21',
    severity: 'critical',
    dropPercent: 61.04,
    entry: { seven_days_ago_total_clicks: 900, yesterday_total_clicks: 351 },
  },
  {
    domainId: 99,
    isp: 'Comcast',
    domainUrl: 'https://trk99.example.com',
    firstSeen: '2026-11-21',
    severity: 'warning',
    dropPercent: 21.5,
    entry: { seven_days_ago_total_clicks: 128, yesterday_total_clicks: 100 },
  },
] as unknown as AddedPair[];
const V2_BLOB = Buffer.from(
  [
    '00020f0100000704303268747470733a2f2f74726b31322e6578616d706c652e636f6d0300d88805a489058c',
    '89050400908001c02584dd010001d48805a08905d48805000401000000000000c0420a9468a4890502d88805',
    'a489058c8905040080989abc048080808004c0b802001c3868747470733a2f2fc3bc6ec3af636f64652e6578',
    '616d706c652fc3bc0203008085cc05a0d802000801000000000000e03f019c7500883ce4377e86270004a889',
    '05a88905a889050400901cfc0ae0be0100010030000000007042000100d88805a489058c89050400c8012880',
    'fa01008c033268747470733a2f2f74726b39392e6578616d706c652e636f6d0100a88905a88905a889050000',
    '80049003984300050e436f6d6361737435540065006c0065006600f3006e0069006300610020003dd800de41',
    '6c006f006e006500200000d8200073007500720072006f006700610074006500940144657574736368652054',
    '656c656b6f6d2041472c2061206e616d65206c6f6e676572207468616e2073697874792d666f757220636861',
    '7261637465727320696e20616c6c206f662069740c4f72616e6765',
  ].join(''),
  'hex',
);

describe('a version-2 blob written by an earlier release', () => {
  it('is read as written, and the same pairs are written as the same bytes', () => {
    expect(encodeActive(V2_PAIRS, V2_ADDED).equals(V2_BLOB)).toBe(true);
    const decoded = decodeActive(V2_BLOB);
    expect(decoded.slice(0, 1)).toEqual([V2_PAIRS[0]]);
    expect(decoded.map((p) => [p.domainId, p.isp, p.firstSeen, p.baseline, p.yesterday])).toEqual([
      [12, 'Comcast', '2026-11-01', 4100, 1200],
      [12, 'Telefónica 😀', '2026-10-31', 2 ** 45, -3],
      [12, 'lone \ud800 surrogate', '2026-11-01', 300000000, 268435456],
      [7, LONG_ISP, '1970-01-01', 0.5, 1e300],
      [7, 'Orange', '2026-11-21', 900, 351],
      [2 ** 40 + 3, 'Comcast', '2026-11-01', 50, 10],
      [99, 'Comcast', '2026-11-21', 128, 100],
    ]);
    expect(decoded.map((p) => p.dropPercent)).toEqual([70.73, 33.33, 100, -12.5, 61.04, 80, 21.5]);
    expect(decodeActive(encodeActive(decoded))).toEqual(decoded);
  });
});
