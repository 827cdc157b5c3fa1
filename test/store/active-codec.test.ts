import { describe, expect, it } from 'vitest';
import type { ActivePair } from '../../src/monitor/types.js';
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
