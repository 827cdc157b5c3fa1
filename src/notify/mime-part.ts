/**
 * The text and HTML parts of an e-mail, encoded by us and handed to nodemailer as ready MIME
 * nodes (its `raw` option). Nodemailer's own quoted-printable encoder builds its output a
 * character at a time and re-scans every line with regular expressions: about 4 MB of garbage
 * per alert e-mail, 28% of everything the worker allocated in the fleet benchmark (P3, docs/performance.md). This
 * one writes bytes into one buffer.
 *
 * Same choice of encoding as nodemailer: 7bit when the text is printable ASCII in lines of at
 * most 76 characters, quoted-printable otherwise (RFC 2045 section 6.7). Line breaks become
 * CRLF. Soft breaks go after a space where one is near the end of the line, and never inside
 * the bytes of one UTF-8 character, so even a client that decodes line by line shows whole
 * characters.
 */

/** RFC 2045: encoded lines are at most 76 characters, a soft break's "=" included. */
const MAX_LINE = 76;
/** A soft break goes after a space found at or beyond this column, else at the limit. */
const BREAK_AFTER = 50;
const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const EQUALS = 0x3d;
const HEX = Buffer.from('0123456789ABCDEF', 'latin1');

/** One MIME node: headers, blank line, body; CRLF throughout. */
export function mimeTextPart(type: 'text/plain' | 'text/html', text: string): string {
  const sevenBit = isSevenBitText(text);
  const encoding = sevenBit ? '7bit' : 'quoted-printable';
  const body = sevenBit ? text.replace(/\r\n|\r|\n/g, '\r\n') : encodeQuotedPrintable(text);
  return (
    `Content-Type: ${type}; charset=utf-8\r\n` +
    `Content-Transfer-Encoding: ${encoding}\r\n\r\n${body}`
  );
}

/** Printable ASCII, tabs and line breaks only, no line over 76 characters. */
export function isSevenBitText(text: string): boolean {
  let column = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) {
      column = 0;
      continue;
    }
    if ((c < SPACE && c !== TAB) || c > 0x7e) return false;
    column += 1;
    if (column > MAX_LINE) return false;
  }
  return true;
}

/** Quoted-printable of the UTF-8 bytes of `text`; hard line breaks (CRLF, LF, CR) become CRLF. */
export function encodeQuotedPrintable(text: string): string {
  const input = Buffer.from(text, 'utf8');
  const n = input.length;
  // Worst case: every byte escaped (3x), plus a soft break per 24 characters of output.
  const out = Buffer.allocUnsafe(3 * n + 3 * Math.ceil(n / 24) + 3);
  let o = 0;
  /** Where the current output line starts. */
  let lineStart = 0;
  /** Just after the last literal space or tab of this line (a good place to break), or -1. */
  let breakAt = -1;

  for (let i = 0; i < n;) {
    const b = input[i]!;
    // Most bytes: printable ASCII but "=" with room on the line whatever follows, written as
    // they are (what the general case below decides for them, in one test).
    if (b > SPACE && b < 0x7f && b !== EQUALS && o - lineStart < MAX_LINE - 1) {
      out[o++] = b;
      i += 1;
      continue;
    }
    if (b === LF || b === CR) {
      i += b === CR && input[i + 1] === LF ? 2 : 1;
      out[o++] = CR;
      out[o++] = LF;
      lineStart = o;
      breakAt = -1;
      continue;
    }
    // One character: its UTF-8 bytes are encoded together and never split by a soft break.
    const size = b < 0xc0 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    const end = Math.min(i + size, n);
    const next = end < n ? input[end]! : LF;
    const lineEnds = next === LF || next === CR;
    const whitespace = b === SPACE || b === TAB;
    // Spaces and tabs are literal unless they would end a line (RFC 2045 rule 3).
    const literal =
      size === 1 && ((b > SPACE && b < 0x7f && b !== EQUALS) || (whitespace && !lineEnds));
    const width = literal ? 1 : 3 * (end - i);
    // A line that goes on needs room for the soft break's "="; the last one does not.
    const room = lineEnds ? MAX_LINE : MAX_LINE - 1;
    if (o - lineStart + width > room) {
      if (breakAt - lineStart >= BREAK_AFTER) {
        // Break after that space: move the rest of the line down to make room for "=\r\n".
        out.copyWithin(breakAt + 3, breakAt, o);
        writeSoftBreak(out, breakAt);
        o += 3;
        lineStart = breakAt + 3;
      } else {
        writeSoftBreak(out, o);
        o += 3;
        lineStart = o;
      }
      breakAt = -1;
    }
    if (literal) {
      out[o++] = b;
      if (whitespace) breakAt = o;
    } else {
      for (let j = i; j < end; j += 1) {
        const byte = input[j]!;
        out[o++] = EQUALS;
        out[o++] = HEX[byte >> 4]!;
        out[o++] = HEX[byte & 0x0f]!;
      }
    }
    i = end;
  }
  return out.toString('latin1', 0, o);
}

function writeSoftBreak(out: Buffer, at: number): void {
  out[at] = EQUALS;
  out[at + 1] = CR;
  out[at + 2] = LF;
}
