import { describe, expect, it } from 'vitest';
import { scanCounts, scanEntries } from '../../src/api/entries-scan.js';
import { parseJsonBody } from '../../src/api/json-body.js';
import { rng } from '../../src/sandbox/random.js';
import { buildEntry } from '../../src/sandbox/trends.js';

/**
 * The entries reader (src/api/entries-scan.ts) gives exactly JSON.parse's value (same keys in
 * the same order, -0 kept, same strings) or gives up; it never gives another value. Checked on
 * the API's entries, on numbers and strings written every way JSON allows, on shapes that
 * change, and on many randomly damaged bodies.
 */

/** The same JSON value: key order, -0 and the prototype included. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key, i) =>
      key === keysB[i] &&
      same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** The reader's value of an array's text (the whole buffer is the array), or undefined. */
function scan(text: string | Buffer): unknown[] | undefined {
  const buffer = typeof text === 'string' ? Buffer.from(text) : text;
  const last = buffer.length - 1;
  if (buffer[0] !== 0x5b || buffer[last] !== 0x5d) return undefined;
  return scanEntries(buffer, 0, last);
}

/** Scans `text`; the reader must take it and give JSON.parse's value. */
function taken(text: string | Buffer): unknown[] {
  const value = scan(text);
  expect(value).toBeDefined();
  expect(same(value, JSON.parse(text.toString()))).toBe(true);
  return value!;
}

const apiEntries = (count: number, seed = 1) => {
  const random = rng(seed);
  const day = () => Math.floor(random() * 5_000);
  return Array.from({ length: count }, (_, i) =>
    buildEntry(100_001, {
      domainId: 1 + (i % 9),
      url: `https://trk${i % 9}.example`,
      isp: `ISP ${i}`,
      clicks: [day(), day(), day(), day()],
      conversions: [day() % 50, day() % 50, day() % 50, day() % 50],
      revenue: [random() * 900, random() * 900, random() * 900, random() * 900],
    }),
  );
};

describe('scanEntries', () => {
  it("reads the API's entries as JSON.parse does", () => {
    const entries = apiEntries(500);
    expect(Object.keys(entries[0]!).length).toBeGreaterThan(30);
    const value = taken(JSON.stringify(entries));
    expect(value).toHaveLength(500);
    // The shape is learned once, and the next body starts with it.
    const { learned, fast } = scanCounts;
    taken(JSON.stringify(apiEntries(300, 2)));
    expect([scanCounts.learned - learned, scanCounts.fast - fast]).toEqual([0, 300]);
  });

  it('reads every number as JSON.parse does', () => {
    const random = rng(7);
    const numbers = [
      '0',
      '-0',
      '-0.0',
      '0.0',
      '1.50',
      '1e5',
      '1E+2',
      '1e-7',
      '-1.5E-3',
      '2e308',
      '-2e308',
      '123456789012345',
      '1234567890123456',
      '12345678901234567890123',
      '9007199254740993',
      '0.1',
      '0.30000000000000004',
      '1.7976931348623157e308',
      '5e-324',
      '2.2250738585072011e-308',
      '0.000001',
      '0.000000000000001234',
      '-123.456e-2',
      '99999999999999.9',
      '999999999999999.9',
      '0.100000000000000005551',
      '4.35',
      '-33.33',
    ];
    for (let i = 0; i < 3_000; i += 1) {
      const x = (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
      numbers.push(String(x), x.toFixed(Math.floor(random() * 20)), x.toExponential(8));
      // Digit strings of up to 24 digits with the point anywhere.
      const digits = Array.from({ length: 1 + Math.floor(random() * 24) }, () =>
        Math.floor(random() * 10),
      ).join('');
      const point = Math.floor(random() * digits.length);
      const text = `${digits.slice(0, point) || '0'}.${digits.slice(point) || '0'}`;
      numbers.push(text.replace(/^0+(?=\d)/, ''), `-${text.replace(/^0+(?=\d)/, '')}`);
    }
    const text = `[${numbers.map((n, i) => `{"i":${i},"v":${n}}`).join(',')}]`;
    expect(taken(text)).toHaveLength(numbers.length);
  });

  it('gives up at what JSON does not allow, and the body parse then throws as JSON.parse', () => {
    for (const bad of [
      '01',
      '-',
      '1.',
      '.5',
      '1e',
      '1e+',
      '+1',
      '--1',
      '1.e5',
      'NaN',
      'Infinity',
      '0x1',
      'nul',
      'tru',
      'True',
    ]) {
      const text = `[{"v":1},{"v":${bad}}]`;
      expect(scan(text)).toBeUndefined();
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
    }
    // Through the body parse, at a size that takes the reader.
    const list = JSON.stringify(apiEntries(400));
    const body = Buffer.from(`{"entries":${list.slice(0, -1)},{"v":01}]}`);
    expect(() => parseJsonBody(body, body.length)).toThrow(SyntaxError);
  });

  it('decodes strings as Buffer#toString decodes the body, and gives up at escapes', () => {
    const isps = [
      'Telefónica',
      'Ελληνικά 😀',
      '中国电信',
      'a"b',
      'tab\there',
      'back\\slash',
      '\u2028',
      '',
    ];
    const text = JSON.stringify(isps.map((isp, i) => ({ i, isp })));
    const escaped = scan(text);
    expect(escaped).toBeUndefined(); // quotes and backslashes are escaped in JSON
    taken(
      JSON.stringify(
        isps
          .slice(0, 3)
          .concat(['', '\u2028', ' x '])
          .map((isp, i) => ({ i, isp })),
      ),
    );
    // Bytes that are not UTF-8, as the body's decoding reads them (U+FFFD).
    const raw = Buffer.concat([
      Buffer.from('[{"isp":"a'),
      Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]),
      Buffer.from('"},{"isp":"'),
      Buffer.from([0xf0, 0x9f, 0x98]),
      Buffer.from('"}]'),
    ]);
    expect(same(scan(raw), JSON.parse(raw.toString('utf8')))).toBe(true);
    // A string like the entry before's is handed back only when its bytes spell it in ASCII:
    // a lone 0xE9 after "é" (C3 A9) is U+FFFD, not "é".
    const after = Buffer.concat([
      Buffer.from('[{"isp":"é"},{"isp":"'),
      Buffer.from([0xe9]),
      Buffer.from('"},{"isp":"ab"},{"isp":"abc"},{"isp":"a"},{"isp":"a"},{"isp":"b"}]'),
    ]);
    expect(scan(after)).toEqual(
      ['é', '\ufffd', 'ab', 'abc', 'a', 'a', 'b'].map((isp) => ({ isp })),
    );
    // A raw control character is not JSON.
    expect(scan('[{"isp":"a\u0001b"}]')).toBeUndefined();
  });

  it('follows shapes that change from entry to entry, nested ones too', () => {
    const random = rng(3);
    const keys = ['a', 'b', 'c', 'd_1', 'E'];
    const entries = Array.from({ length: 2_000 }, (_, i) => {
      const entry: Record<string, unknown> = {};
      for (const key of keys) if (random() < 0.8) entry[key] = i;
      if (random() < 0.5)
        entry.nested = random() < 0.5 ? { url: `u${i}` } : { url: null, x: { y: true } };
      if (i % 7 === 0) entry.flag = false;
      return entry;
    });
    taken(JSON.stringify(entries.slice(0, 8)));
    // Many shapes: more than one body may learn; the value is right either way.
    const value = scan(JSON.stringify(entries));
    if (value) expect(same(value, entries)).toBe(true);
    // An empty list, an empty object.
    taken('[]');
    taken('[{},{}]');
  });

  it('gives up at keys, values and layouts outside its subset', () => {
    for (const text of [
      '[{"__proto__":{"polluted":1}}]',
      '[{"a":1,"a":2}]',
      '[{"a b":1}]',
      '[{"0":1}]',
      '[{"ключ":1}]',
      '[{"a":[1,2]}]',
      '[{"a":1}, {"a":2}]',
      '[ {"a":1}]',
      '[{"a" :1}]',
      '[1,2]',
      '["a"]',
      '[{"a":{"b":{"c":{"d":{"e":{"f":1}}}}}}]',
      '[{"a":1},]',
      '[{"a":1}{"a":2}]',
    ]) {
      expect(scan(text), text).toBeUndefined();
    }
    // The body parse still gives JSON.parse's value (an own __proto__ key, the last "a").
    const big = JSON.stringify(apiEntries(300));
    for (const extra of ['{"__proto__":{"polluted":1}}', '{"a":1,"a":2}']) {
      const text = `{"entries":[${extra},${big.slice(1)}}`;
      const body = Buffer.from(text);
      const value = parseJsonBody(body, body.length);
      expect(same(value, JSON.parse(text))).toBe(true);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('compares every byte of every key, whatever 8 bytes spell as a double', () => {
    // Keys are compared 8 bytes at a time as doubles; only the same bits may compare equal.
    // Taken: a second entry of the first's shape. Then, across the second entry, 8 bytes
    // replaced by a NaN, an infinity, +0 or -0 (as doubles): no longer JSON, so given up; and
    // single bits flipped: JSON.parse's value or given up.
    const first = { yesterday_total_clicks: 1, isp: 'a', abcdefgh: 2, ab: 3 };
    const base = `[${JSON.stringify(first)},${JSON.stringify({ ...first, isp: 'b' })}]`;
    taken(base);
    const second = base.indexOf('},{') + 2;
    const patterns = [
      [0, 0, 0, 0, 0, 0, 0xf8, 0x7f], // NaN
      [0, 0, 0, 0, 0, 0, 0xf0, 0x7f], // Infinity
      [0, 0, 0, 0, 0, 0, 0, 0], // +0
      [0, 0, 0, 0, 0, 0, 0, 0x80], // -0
    ];
    let tried = 0;
    let stillJson = 0;
    for (let at = second + 1; at + 8 <= base.length - 2; at += 1) {
      for (const pattern of patterns) {
        const bytes = Buffer.from(base);
        Buffer.from(pattern).copy(bytes, at);
        expect(scan(bytes), `${pattern.join(',')} at ${at}`).toBeUndefined();
        tried += 1;
      }
      for (let bit = 0; bit < 7; bit += 1) {
        const bytes = Buffer.from(base);
        bytes[at] = bytes[at]! ^ (1 << bit);
        // Still JSON (another key letter, a digit for a digit): the reader gives JSON.parse's
        // value (a key read with the old shape's name would differ) or gives up.
        let parsed: unknown;
        try {
          parsed = JSON.parse(bytes.toString());
        } catch {
          expect(scan(bytes)).toBeUndefined();
          continue;
        }
        const value = scan(bytes);
        if (value !== undefined) {
          expect(same(value, parsed), `bit ${bit} at ${at}`).toBe(true);
          stillJson += 1;
        }
      }
    }
    expect(tried).toBeGreaterThan(150);
    // Many flips left JSON with other keys or values, and the reader took them.
    expect(stillJson).toBeGreaterThan(50);
  });

  it('never reads past the array, whatever the bytes after it', () => {
    const text = JSON.stringify(apiEntries(20));
    // An entry cut short before the `]`: the stale bytes after it must not complete it.
    const cut = `${text.slice(0, text.length - 40)}]`;
    const buffer = Buffer.concat([Buffer.from(cut), Buffer.from(text.slice(text.length - 40))]);
    expect(scanEntries(buffer, 0, cut.length - 1)).toBeUndefined();
  });

  it('gives JSON.parse its value or gives up, for thousands of damaged bodies', () => {
    const random = rng(11);
    const base = JSON.stringify(
      apiEntries(6, 5).map((e, i) => ({ ...e, note: i % 2 ? 'x' : null })),
    );
    const alphabet = '{}[],:"\\-+.0123456789eEtrufalsn x_';
    let took = 0;
    for (let i = 0; i < 8_000; i += 1) {
      const at = Math.floor(random() * base.length);
      const char = alphabet[Math.floor(random() * alphabet.length)]!;
      const kind = random();
      const text =
        kind < 0.4
          ? base.slice(0, at) + char + base.slice(at + 1)
          : kind < 0.7
            ? base.slice(0, at) + base.slice(at + 1)
            : base.slice(0, at) + char + base.slice(at);
      const value = scan(text);
      if (value === undefined) continue;
      took += 1;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`the reader took what JSON.parse refuses: ${text}`);
      }
      if (!same(value, parsed)) throw new Error(`the reader's value differs: ${text}`);
    }
    // Most damage leaves valid JSON of another value (a digit for a digit): those are taken.
    expect(took).toBeGreaterThan(800);
  });
});
