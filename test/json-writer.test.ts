import { describe, expect, it } from 'vitest';
import { JsonWriter } from '../src/json-writer.js';

/** What the writer wrote, as text. */
function written(write: (out: JsonWriter) => void): string {
  const out = new JsonWriter(4, undefined);
  write(out);
  return out.bytes().toString('utf8');
}

/** Deterministic pseudo-random numbers (a linear congruential generator), for many cases. */
function numbers(count: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  });
}

describe('JsonWriter', () => {
  it('writes a number as JSON.stringify does: integers, cents, fractions, exponents, null', () => {
    const fixed = [
      0,
      -0,
      1,
      -1,
      7,
      10,
      99,
      100,
      12.3,
      12.34,
      -12.3,
      -0.05,
      0.01,
      0.1,
      0.29,
      1.005,
      2.675,
      99.99,
      100.01,
      123456789012.34,
      9999999999999.99,
      99_999_999_999_999 / 100,
      1e15 + 0.5,
      1e21,
      1.5e-7,
      0.000001,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 2,
      -1e300,
      Number.MIN_VALUE,
      NaN,
      Infinity,
      -Infinity,
      1 / 3,
      0.1 + 0.2,
    ];
    const random = numbers(20_000, 7).flatMap((r, i) => [
      // Cents of every size (what the store writes: rounded percentages) and other fractions.
      Math.round((r - 0.5) * 10 ** (i % 16)) / 100,
      (r - 0.5) * 10 ** ((i % 40) - 20),
      Math.round(r * 1e6) / 1000,
    ]);
    // Integers at every change of digit count, at 2^31 and beyond, of both signs.
    const powers = Array.from({ length: 16 }, (_, k) => 10 ** k).flatMap((p) => [p - 1, p, p + 1]);
    const edges = [...powers, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32, 2 ** 53 - 1];
    const integers = [...edges, ...edges.map((n) => -n)];
    for (const value of [...fixed, ...integers, ...random]) {
      expect(written((out) => out.number(value))).toBe(JSON.stringify(value));
    }
  });

  it('writes hundredths as JSON.stringify writes their value', () => {
    const cents = [0, 1, -1, 5, 10, 50, 99, 100, 101, 110, -110, 123456, 99_999_999_999_999];
    const random = numbers(20_000, 11).map((r, i) => Math.round((r - 0.5) * 10 ** (i % 18)));
    for (const hundredths of [...cents, ...random, NaN, 2 ** 60]) {
      expect(written((out) => out.cents(hundredths))).toBe(JSON.stringify(hundredths / 100));
    }
  });

  it('writes a string as JSON.stringify does, short or long, plain or escaped', () => {
    const pieces = [
      'a',
      'Z',
      ' ',
      '~',
      '\x7f',
      '"',
      '\\',
      '\n',
      '\u0000',
      'é',
      '€',
      '🚀',
      '\ud800',
      '\udfff',
      '\u2028',
    ];
    const random = numbers(5_000, 3).map((r, i) => {
      let text = '';
      // Lengths around the short strings' limit (64) and beyond.
      const length = Math.floor(r * 140);
      for (let j = 0; j < length; j++) {
        // Mostly plain ASCII, sometimes (every tenth string) a character that is not.
        const k = (i * 31 + j * 7) % (i % 10 === 0 ? pieces.length : 4);
        text += pieces[k];
      }
      return text;
    });
    for (const text of ['', ...pieces, ...random]) {
      expect(written((out) => out.string(text))).toBe(JSON.stringify(text));
    }
  });
});
