import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActivePair } from '../../src/monitor/types.js';
import { activeDropPercents, decodeActive, encodeActive } from '../../src/store/active-codec.js';
import { dayNumber } from '../../src/dates.js';

/** The blob as text, as Redis hands it back. */
const encoded = (pairs: ActivePair[]): string => encodeActive(pairs).toString('utf8');

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

const NUMBERS = [
  0,
  -0,
  7,
  -5,
  1234567,
  1e15,
  2 ** 53 + 2,
  1e21,
  0.1 + 0.2,
  -1.5e-7,
  Number.NaN,
  Infinity,
];

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
    const decoded = decodeActive(encoded(pairs));
    // Grouped by domain, each domain's pairs in their order (here already so).
    expect(decoded).toEqual(pairs);
    // As bytes, as the store reads it.
    expect(decodeActive(encodeActive(pairs))).toEqual(pairs);
  });

  it('writes the bytes JSON.stringify writes for the same value, escapes and all', () => {
    const odd = [
      'a "q" \\ b',
      'tab\there',
      '\u0000\u001f',
      'Ünïcödé 🚀',
      'lone \ud800 high',
      'lone \udfff low',
      '',
      '</script>',
    ];
    const pairs = odd.map((isp, i) =>
      pair({
        isp,
        domainId: i % 3,
        domainUrl: `https://d${i % 3}.example/"x"`,
        dropPercent: i * 7.777,
        // Numbers JSON writes in every way: integers of each size and sign, -0, beyond the safe
        // integers, with an exponent, fractions, and what it writes as null.
        baseline: NUMBERS[i % NUMBERS.length]!,
        yesterday: NUMBERS[(i + 3) % NUMBERS.length]!,
        quietRuns: NUMBERS[(i + 4) % NUMBERS.length]!,
      }),
    );
    const p = (x: ActivePair) => [
      x.isp,
      dayNumber(x.firstSeen),
      dayNumber(x.lastSeen),
      dayNumber(x.lastNotified),
      x.notifiedSeverity === 'critical' ? 1 : 0,
      x.quietRuns,
      x.baseline,
      x.yesterday,
      Math.round(x.dropPercent * 100) / 100,
      x.quietAsOf === undefined ? 0 : dayNumber(x.quietAsOf),
    ];
    const byDomain = [0, 1, 2].map((d) => [
      d,
      `https://d${d}.example/"x"`,
      pairs.filter((x) => x.domainId === d).flatMap(p),
    ]);
    expect(encoded(pairs)).toBe(JSON.stringify({ v: 1, d: byDomain }));
    expect(encoded([])).toBe(JSON.stringify({ v: 1, d: [] }));
    // Read back from its bytes, escapes, exponents and nulls (refused) alike, as from its text.
    const finite = pairs.filter((x) => Number.isFinite(x.baseline + x.yesterday + x.quietRuns));
    expect(decodeActive(encodeActive(finite))).toEqual(decodeActive(encoded(finite)));
    expect(() => decodeActive(encodeActive(pairs))).toThrow(/bad number/);
    // Larger than one chunk of text, and than the buffer first allocated.
    const many = Array.from({ length: 3000 }, (_, i) =>
      pair({ isp: `isp ${i} ${'é'.repeat(i % 40)}` }),
    );
    expect(encoded(many)).toBe(
      JSON.stringify({ v: 1, d: [[1, 'https://d1.example', many.flatMap(p)]] }),
    );
  });

  it('pairs of one domain apart from each other: grouped by domain, each in its order', () => {
    const d = (domainId: number, isp: string) =>
      pair({ domainId, isp, domainUrl: `https://d${domainId}.example` });
    const pairs = [d(1, 'a'), d(1, 'b'), d(2, 'c'), d(1, 'e'), d(3, 'f'), d(2, 'g'), d(1, 'h')];
    const decoded = decodeActive(encoded(pairs));
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
    const blob = encoded(pairs);
    expect(blob.split('a-long-tracking-domain').length - 1).toBe(1);
    expect(decodeActive(blob)[0]).toMatchObject({ isp: 'isp0', dropPercent: 33.33 });
  });

  it('empty history', () => {
    expect(decodeActive(encoded([]))).toEqual([]);
    expect(decodeActive(null)).toEqual([]);
    expect(activeDropPercents(null)).toEqual([]);
    expect(activeDropPercents('')).toEqual([]);
  });

  it("activeDropPercents: each stored pair's drop, in the stored order, as decodeActive has them", () => {
    const blob = encoded([
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
  ])('refuses a corrupt blob (%s) with a THM_STORE error, counted or decoded', (name, blob) => {
    const error = expect.objectContaining({
      code: 'THM_STORE',
      message: `stored active pairs are unreadable (${name})`,
    });
    expect(() => decodeActive(blob)).toThrow(error);
    expect(() => activeDropPercents(blob)).toThrow(error);
    // As bytes (the store's way) the same.
    expect(() => decodeActive(Buffer.from(blob))).toThrow(error);
    expect(() => activeDropPercents(Buffer.from(blob))).toThrow(error);
  });

  describe('read from its bytes', () => {
    afterEach(() => vi.restoreAllMocks());

    it('reads what it wrote without JSON.parse, to the same pairs and the same doubles', () => {
      const parse = vi.spyOn(JSON, 'parse');
      // Cents, integers and zeros of both signs: what the history holds.
      const pairs = Array.from({ length: 2000 }, (_, i) =>
        pair({
          domainId: (i % 37) - 5,
          domainUrl: `https://d${(i % 37) - 5}.example/ü`,
          isp: `isp ${i} ${'é'.repeat(i % 5)}`,
          dropPercent: ((i * 7919) % 100_000) / 1000 - 20,
          baseline: i * 1013,
          yesterday: i % 3 === 0 ? -0 : i,
          quietRuns: i % 4,
        }),
      );
      const bytes = encodeActive(pairs);
      const decoded = decodeActive(bytes);
      expect(parse).not.toHaveBeenCalled();
      parse.mockRestore();
      expect(decoded).toEqual(decodeActive(bytes.toString('utf8')));
      const drops = new Map(pairs.map((p) => [p.isp, Math.round(p.dropPercent * 100) / 100]));
      expect(decoded).toHaveLength(pairs.length);
      for (const p of decoded) expect(p.dropPercent).toBe(drops.get(p.isp));
    });

    it('reads recurring ISP names right, names that share a slot of its table of recent ones too', () => {
      // Many names, so that some share a slot of the reader's table of recent strings.
      const names = Array.from({ length: 3000 }, (_, i) => `isp-${i}`);
      const pairs = [...names, ...names].map((isp, i) =>
        pair({ isp, domainId: i < names.length ? 1 : 2, domainUrl: `https://d${i}.example` }),
      );
      const decoded = decodeActive(encodeActive(pairs));
      expect(decoded.map((p) => p.isp)).toEqual([...names, ...names]);
      expect(decoded.map((p) => p.domainId)).toEqual([
        ...names.map(() => 1),
        ...names.map(() => 2),
      ]);
    });

    it('reads what it does not expect by JSON.parse: whitespace, escapes, long numbers', () => {
      const text = encoded([pair({ isp: 'plain' })]);
      const variants = [
        text.replace('"d":', ' "d" : '),
        text.replace('plain', 'pl\u0061in'),
        text.replace(',1000,', ',1000.0000000000000001,'),
        text.replace(',1000,', ',1e3,'),
      ];
      for (const variant of variants) {
        expect(decodeActive(Buffer.from(variant))).toEqual(decodeActive(text));
      }
      // And what JSON.parse refuses, it refuses: a leading zero, a bare point, a raw newline.
      for (const bad of [
        text.replace(',1000,', ',01000,'),
        text.replace(',1000,', ',1000.,'),
        text.replace('plain', 'pl\nain'),
        `${text} x`,
      ]) {
        const fromText = (() => {
          try {
            return decodeActive(bad);
          } catch (error) {
            return error;
          }
        })();
        expect(fromText).toBeInstanceOf(Error);
        expect(() => decodeActive(Buffer.from(bad))).toThrow((fromText as Error).message);
      }
    });
  });
});
