import { describe, expect, it } from 'vitest';
import { PIECES_FROM_BYTES, parseEntriesInPieces, parseJsonBody } from '../../src/api/json-body.js';

/**
 * A body parsed in pieces (src/api/json-body.ts) is the value JSON.parse gives for the whole
 * text, or JSON.parse's own error; the buffer is left as it was either way.
 */

/** An entry padded so that a list of them crosses PIECES_FROM_BYTES and is cut many times. */
function entry(i: number, isp: string, extra: Record<string, unknown> = {}): unknown {
  return {
    network_tracking_domain_id: 1 + (i % 7),
    isp,
    yesterday_total_clicks: i,
    relationship: { url: `https://trk${i % 7}.example` },
    pad: 'x'.repeat(200),
    ...extra,
  };
}

function entries(count: number, isp: (i: number) => string = (i) => `ISP ${i}`): unknown[] {
  return Array.from({ length: count }, (_, i) => entry(i, isp(i)));
}

/**
 * Parses `text` with parseJsonBody and with JSON.parse, checks they agree and that the buffer is
 * unchanged, and whether the body was parsed in pieces (`pieces`) or whole; the value.
 */
function both(text: string, pieces?: boolean): unknown {
  const buffer = Buffer.from(text);
  const copy = Buffer.from(buffer);
  const value = parseJsonBody(buffer, buffer.length);
  expect(value).toEqual(JSON.parse(text));
  expect(buffer.equals(copy)).toBe(true);
  if (pieces !== undefined) {
    expect(parseEntriesInPieces(buffer, buffer.length) !== undefined).toBe(pieces);
    expect(buffer.equals(copy)).toBe(true);
  }
  return value;
}

describe('parseJsonBody', () => {
  it('parses a large entries body as JSON.parse does, over many pieces', () => {
    const text = JSON.stringify({ entries: entries(5_000) });
    expect(text.length).toBeGreaterThan(4 * PIECES_FROM_BYTES);
    const value = both(text, true) as { entries: unknown[] };
    expect(value.entries).toHaveLength(5_000);
  });

  it('keeps the keys after the array, in their order', () => {
    const text = JSON.stringify({ entries: entries(2_000), total: 2_000, next: null });
    expect(Object.keys(both(text, true) as object)).toEqual(['entries', 'total', 'next']);
  });

  it('gives the same value when strings and nested arrays hold the cut pattern', () => {
    // Cuts inside them leave pieces that do not parse: the body is parsed whole.
    const text = JSON.stringify({
      entries: Array.from({ length: 2_000 }, (_, i) =>
        entry(i, i % 3 === 0 ? `ISP },{"x":${i}` : `Ελληνικά 😀 ${i}`, {
          days: [{ a: i }, { b: `},{"` }],
          note: '"},{"entries":[]}',
        }),
      ),
    });
    both(text, false);
    // Multi-byte UTF-8 holds no ASCII byte, so cuts never split a character: still in pieces.
    both(JSON.stringify({ entries: entries(2_000, (i) => `Telefónica 😀 ${i}`) }), true);
  });

  it('allows whitespace around the entries key, and pretty-printed bodies', () => {
    both(
      ` { "entries" : [ ${entries(2_000)
        .map((e) => JSON.stringify(e))
        .join(',')} ] } `,
      true,
    );
    // Pretty-printed: no `},{"` to cut at, so one piece, still right.
    both(JSON.stringify({ entries: entries(1_500) }, null, 2), true);
  });

  it('takes a second "entries" key after the array as JSON.parse does (the last one)', () => {
    const list = entries(2_000).map((e) => JSON.stringify(e));
    both(`{"entries":[${list.join(',')}],"entries":[1,2]}`, false);
    both(`{"entries":[${list.join(',')}],"entr\\u0069es":[]}`, false);
  });

  it('parses small bodies, and bodies of other shapes, whole', () => {
    both('{"entries":[]}');
    both('{"entries":[{"isp":"a"},{"isp":"b"}],"n":2}');
    both(`{"data":${JSON.stringify(entries(2_000))}}`, false);
    both(JSON.stringify(entries(2_000)), false);
    // The last `]` is the tail's, not the array's: the last piece does not parse.
    both(`{"entries":${JSON.stringify(entries(2_000))},"meta":{"pages":[1,2]}}`, false);
  });

  it('throws what JSON.parse throws for a broken body, with the buffer unchanged', () => {
    const list = entries(2_000).map((e) => JSON.stringify(e));
    const broken = [
      `{"entries":[${list.join(',')}`,
      `{"entries":[${list.slice(0, 900).join(',')},{"isp":}${list.slice(900).join(',')}]}`,
      `{"entries":[${list.join(',')}]}}`,
      `{"entries":[${list.join(',')},]}`,
    ];
    for (const text of broken) {
      const buffer = Buffer.from(text);
      const copy = Buffer.from(buffer);
      let expected: unknown;
      try {
        JSON.parse(text);
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeInstanceOf(SyntaxError);
      expect(() => parseJsonBody(buffer, buffer.length)).toThrow((expected as Error).message);
      expect(buffer.equals(copy)).toBe(true);
    }
  });

  it('reads only the first `end` bytes of a larger (reused) buffer', () => {
    const text = JSON.stringify({ entries: entries(2_000) });
    const buffer = Buffer.alloc(text.length + 4096, 0x7b);
    buffer.write(text);
    expect(parseJsonBody(buffer, Buffer.byteLength(text))).toEqual(JSON.parse(text));
  });
});
