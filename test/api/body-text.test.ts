import { describe, expect, it } from 'vitest';
import { REUSED_TEXT_MAX_BYTES, bodyText } from '../../src/api/body-text.js';

/**
 * A body's text is its UTF-8 decoding, whichever way it is decoded (src/api/body-text.ts: ASCII
 * bodies up to a size as Latin-1, the others as UTF-8).
 */
const samples: Record<string, Buffer> = {
  empty: Buffer.alloc(0),
  ascii: Buffer.from('{"entries":[{"isp":"Comcast Cable","network_tracking_domain_id":7}]}'),
  'accented ISP': Buffer.from('{"isp":"Telefónica de España"}'),
  'emoji and CJK': Buffer.from('{"isp":"🛰️ 中国电信"}'),
  'a byte over 0x7f that is not UTF-8': Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]),
  'a DEL and controls (still ASCII)': Buffer.from([0x22, 0x7f, 0x01, 0x1f, 0x22]),
};

describe('bodyText', () => {
  for (const [name, buffer] of Object.entries(samples)) {
    it(`decodes ${name} as UTF-8 would`, () => {
      expect(bodyText(buffer, buffer.length)).toBe(buffer.toString('utf8'));
    });
  }

  it('reads only the first `end` bytes of a larger (reused) buffer', () => {
    const buffer = Buffer.alloc(64, 0xff);
    const text = Buffer.from('{"isp":"Orange"}');
    text.copy(buffer);
    expect(bodyText(buffer, text.length)).toBe('{"isp":"Orange"}');
    // The bytes after `end` are not ASCII: they must not send the body down the UTF-8 path
    // with them, nor into the text.
    const accented = Buffer.from('{"isp":"Orange España"}');
    accented.copy(buffer);
    expect(bodyText(buffer, accented.length)).toBe('{"isp":"Orange España"}');
  });

  it('decodes an ASCII body above the reuse limit as UTF-8 would', () => {
    const buffer = Buffer.alloc(REUSED_TEXT_MAX_BYTES + 1, 0x20);
    buffer.write('"ok"', REUSED_TEXT_MAX_BYTES - 3);
    const text = bodyText(buffer, buffer.length);
    expect(text.length).toBe(buffer.length);
    expect(text.endsWith('"ok"')).toBe(true);
    expect(text).toBe(buffer.toString('utf8'));
  });
});
