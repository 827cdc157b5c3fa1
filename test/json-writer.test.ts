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
