import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { describe, expect, it } from 'vitest';
import { encodeQuotedPrintable, isSevenBitText, mimeTextPart } from '../../src/notify/mime-part.js';
import { mailOptions } from '../../src/notify/transport.js';
import type { Notification } from '../../src/notify/types.js';

/**
 * A strict quoted-printable decoder (RFC 2045 6.7): it throws on anything an encoder must not
 * write (a bad escape, a character outside printable ASCII, a line over 76 characters,
 * whitespace at the end of a line), so decoding also checks the encoding.
 */
function decodeStrict(encoded: string): string {
  const bytes: number[] = [];
  const lines = encoded.split('\r\n');
  lines.forEach((line, index) => {
    if (line.length > 76) throw new Error(`line ${index} has ${line.length} characters`);
    if (/[ \t]$/.test(line)) throw new Error(`line ${index} ends with whitespace`);
    if (/[^\t\x20-\x7e]/.test(line))
      throw new Error(`line ${index} has a raw control or 8-bit byte`);
    let soft = false;
    for (let i = 0; i < line.length; i += 1) {
      const c = line[i]!;
      if (c !== '=') {
        bytes.push(c.charCodeAt(0));
        continue;
      }
      if (i === line.length - 1) {
        soft = true;
        break;
      }
      const hex = line.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) throw new Error(`line ${index}: bad escape =${hex}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    }
    if (!soft && index < lines.length - 1) bytes.push(0x0d, 0x0a);
  });
  return Buffer.from(bytes).toString('utf8');
}

const crlf = (text: string) => text.replace(/\r\n|\r|\n/g, '\r\n');

/** Deterministic pseudo-random text mixing what e-mails carry: ASCII, spaces, "=", accents, CJK, emoji, line breaks. */
function randomText(seed: number, length: number): string {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const pieces = [
    'a',
    'Z',
    '0',
    ' ',
    ' ',
    '\t',
    '=',
    '.',
    '<td>',
    'ó',
    '中',
    '😀',
    '\n',
    '\r\n',
    '  \n',
    'word ',
  ];
  let out = '';
  while (out.length < length) out += pieces[Math.floor(next() * pieces.length)]!;
  return out;
}

describe('encodeQuotedPrintable', () => {
  it.each([
    ['plain', 'hello world', 'hello world'],
    ['the equals sign', 'a=b', 'a=3Db'],
    ['whitespace before a line break and at the end', 'a \nb\t\nc ', 'a=20\r\nb=09\r\nc=20'],
    ['every kind of line break', 'a\r\nb\rc\nd', 'a\r\nb\r\nc\r\nd'],
    ['UTF-8 bytes', 'Telefónica 中', 'Telef=C3=B3nica =E4=B8=AD'],
    ['a control character', 'a\u0001b', 'a=01b'],
  ])('%s', (_name, input, expected) => {
    expect(encodeQuotedPrintable(input)).toBe(expected);
  });

  it('wraps long lines with soft breaks, after a space where there is one near the end', () => {
    const words = 'lorem ipsum dolor '.repeat(20);
    const encoded = encodeQuotedPrintable(words);
    const lines = encoded.split('\r\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines.slice(0, -1)) {
      expect(line.length).toBeLessThanOrEqual(76);
      expect(line).toMatch(/ =$/); // broken after a space
    }
    expect(decodeStrict(encoded)).toBe(words);
  });

  it('breaks a line without spaces at 75 characters plus "="', () => {
    const encoded = encodeQuotedPrintable('x'.repeat(200));
    expect(encoded.split('\r\n').map((l) => l.length)).toEqual([76, 76, 50]);
  });

  it('a last line of exactly 76 characters needs no soft break', () => {
    expect(encodeQuotedPrintable('y'.repeat(76))).toBe('y'.repeat(76));
    expect(encodeQuotedPrintable(`${'y'.repeat(76)}\nz`)).toBe(`${'y'.repeat(76)}\r\nz`);
  });

  it('never splits the bytes of one character across a soft break', () => {
    const encoded = encodeQuotedPrintable('中'.repeat(100));
    for (const line of encoded.split('\r\n')) {
      // Each line holds whole 3-byte characters: a multiple of 9 escape characters, plus "=".
      expect(line.replace(/=$/, '').length % 9).toBe(0);
    }
    expect(decodeStrict(encoded)).toBe('中'.repeat(100));
  });

  it('round-trips random text through a strict decoder (300 samples)', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const text = randomText(seed, 1 + ((seed * 37) % 700));
      expect(decodeStrict(encodeQuotedPrintable(text)), `seed ${seed}`).toBe(crlf(text));
    }
  });
});

describe('mimeTextPart', () => {
  it('7bit for short lines of printable ASCII, as nodemailer would choose', () => {
    expect(isSevenBitText('hello\nworld = ok')).toBe(true);
    expect(mimeTextPart('text/plain', 'hello\nworld')).toBe(
      'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nhello\r\nworld',
    );
  });

  it.each([
    ['a long line', 'x'.repeat(77)],
    ['a non-ASCII character', 'café'],
    ['a control character', 'a\u0000b'],
  ])('quoted-printable for %s', (_name, text) => {
    expect(isSevenBitText(text)).toBe(false);
    expect(mimeTextPart('text/html', text)).toContain(
      'Content-Transfer-Encoding: quoted-printable',
    );
  });

  it('through nodemailer and mailparser, text and HTML come back exactly', async () => {
    const text = `${randomText(7, 3000)}\nTelefónica 中国电信 =3D ${'L'.repeat(300)}`;
    const html = `<table><tr><td>${randomText(8, 3000)}</td></tr></table>`;
    const n: Notification = {
      id: 'id1',
      messageId: '<id1@thm.example>',
      networkId: 'acme',
      kind: 'alert',
      asOf: '2026-11-21',
      to: ['ops@acme.example'],
      events: [],
      createdAt: Date.UTC(2026, 10, 21),
      subject: 'Subject',
      text,
      html,
    };
    const raw = await new MailComposer(mailOptions(n, 'alerts@thm.example')).compile().build();
    const parsed = await simpleParser(raw);
    expect(parsed.text).toBe(crlf(text).replace(/\r\n/g, '\n'));
    expect(parsed.html).toBe(crlf(html).replace(/\r\n/g, '\n'));
    expect(raw.toString()).toMatch(/Content-Type: multipart\/alternative/);
  });
});
