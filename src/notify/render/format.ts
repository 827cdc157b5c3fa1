import { HAS_INVISIBLE_CHARS, codePointName, revealInvisible } from '../../unicode.js';

/**
 * Text helpers shared by every e-mail kind: escaping, header-safe strings, cutting long API
 * strings, numbers and shell quoting. Pure and cheap: they run inside the timed path of a
 * traffic-check, once per listed pair, so escaping is one regex pass and formatters are created
 * once.
 *
 * Hostile text: everything shown passes through `oneLine` (display text, headers) or
 * `escapeHtml`, and both make bidi controls and invisible characters visible as `<U+202E>`
 * (src/unicode.ts), so no API string can reorder or hide what a reader sees. Lengths are cut
 * (`displayText`), an over-long URL is not linked (`safeHref`), and a URL's host is shown in
 * its ASCII (punycode) form when it is not plain ASCII, so a look-alike host reads as one.
 */

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const HTML_SPECIAL = /[&<>"']/g;
/* Non-global twins for the cheap "anything to do?" test: a /g regex's test() is stateful. */
const HAS_HTML_SPECIAL = /[&<>"']/;

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values; bidi
 * and invisible characters become a visible `<U+...>`.
 */
export function escapeHtml(value: string): string {
  const shown = revealInvisible(value);
  return HAS_HTML_SPECIAL.test(shown)
    ? shown.replace(HTML_SPECIAL, (c) => HTML_ENTITIES[c] ?? c)
    : shown;
}

/*
 * C0 and C1 controls, DEL, and the Unicode line and paragraph separators: anything a mail client
 * or a terminal might read as a line break or a control sequence.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
// eslint-disable-next-line no-control-regex
const HAS_CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * One line of printable text: control characters (CR, LF, tabs, escapes) become a single space
 * and the result is trimmed; bidi and invisible characters become a visible `<U+...>`. Every API
 * string passes through this before it reaches a header, a table cell or a line of the text
 * part, so `"Comcast\r\nBcc: x@evil"` cannot add a header and `"\u202Emoc.emca"` cannot pass
 * for `acme.com`.
 */
export function oneLine(value: string): string {
  const shown = revealInvisible(value);
  return HAS_CONTROL_CHARS.test(shown) ? shown.replace(CONTROL_CHARS, ' ').trim() : shown;
}

/**
 * Cuts a string to at most `max` characters (code points, so a surrogate pair is never split),
 * ending with an ellipsis when it was cut.
 */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  const points = Array.from(value);
  if (points.length <= max) return value;
  return `${points.slice(0, Math.max(1, max - 1)).join('')}…`;
}

/**
 * Display form of an API string: one line, cut to `max`, an http(s) URL with its host in ASCII.
 * Not escaped.
 */
export function displayText(value: string, max: number): string {
  return truncate(oneLine(asciiHost(value)), max);
}

const NON_ASCII = /[\u0080-\u{10ffff}]/u;
const URL_PARTS = /^(https?:\/\/)([^/?#\s]*)([\s\S]*)$/i;

/**
 * An http(s) URL whose host is not plain ASCII, shown with the host as the URL parser (and so
 * the browser) resolves it: `https://аcme.com/x` (a Cyrillic а) reads `https://xn--cme-5cd.com/x`.
 * Anything else comes back as it was.
 */
export function asciiHost(value: string): string {
  if (!NON_ASCII.test(value)) return value;
  const parts = URL_PARTS.exec(value);
  if (!parts || !NON_ASCII.test(parts[2] ?? '')) return value;
  const [, scheme = '', authority = '', rest = ''] = parts;
  try {
    const url = new URL(`${scheme}${authority}/`);
    const user = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
    return `${scheme}${user}${url.host}${rest}`;
  } catch {
    return value;
  }
}

/** Longest ISP name, domain URL and network name shown before cutting. */
export const MAX_ISP_CHARS = 80;
export const MAX_URL_CHARS = 120;
export const MAX_NAME_CHARS = 80;
/** The API's own error messages: long enough to be useful, short enough to read. */
export const MAX_MESSAGE_CHARS = 500;
/** RFC 5322 recommends 78; the subject is folded by nodemailer, but people read it in a list. */
export const MAX_SUBJECT_CHARS = 200;
/** Longer URLs are shown (cut) but not linked: no 100 KB href in every copy of a domain. */
export const MAX_HREF_CHARS = 2_048;

/** A header value: one line, cut. nodemailer encodes non-ASCII itself. */
export function headerValue(value: string, max = MAX_SUBJECT_CHARS): string {
  return truncate(oneLine(value).replace(/\s{2,}/g, ' '), max);
}

/**
 * An href only for a well-formed http(s) URL; anything else (javascript:, data:, a bare host,
 * garbage) is shown as text and never linked.
 */
export function safeHref(value: string): string | undefined {
  if (value.length > MAX_HREF_CHARS || !/^https?:\/\/[^\s]+$/i.test(value)) return undefined;
  try {
    const url = new URL(value);
    if (url.href.length > MAX_HREF_CHARS) return undefined;
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/*
 * Made on first use: building an Intl.NumberFormat loads ICU's locale data, which a CLI command
 * that imports this module but formats no money (`thm silence`, `thm history`) need not wait for.
 */
let integerFormat: Intl.NumberFormat | undefined;
let moneyFormat: Intl.NumberFormat | undefined;
const INTEGER = () =>
  (integerFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }));
const MONEY = () =>
  (moneyFormat ??= new Intl.NumberFormat('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }));

export function formatCount(value: number): string {
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) return groupThousands(value);
  return Number.isFinite(value) ? INTEGER().format(value) : 'n/a';
}

/**
 * A safe integer as Intl's en-US format writes it (`-12,345`), without Intl: an alert e-mail
 * formats hundreds of numbers, and Intl's format() was a large share of rendering one. Other
 * numbers go to Intl.
 */
function groupThousands(value: number): string {
  const digits = String(value < 0 ? -value : value);
  if (digits.length <= 3) return value < 0 ? `-${digits}` : digits;
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return value < 0 ? `-${out}` : out;
}

export function formatMoney(value: number): string {
  return Number.isFinite(value) ? MONEY().format(value) : 'n/a';
}

/** `-78%`, `+5%`, `0%`; null or not finite: `n/a`. */
export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  const rounded = Math.round(value);
  if (rounded === 0) return '0%';
  return `${rounded > 0 ? '+' : ''}${formatCount(rounded)}%`;
}

/** A signed change: `+2`, `-300.00`, `0`. */
export function formatSigned(value: number, money: boolean): string {
  const text = money ? formatMoney(Math.abs(value)) : formatCount(Math.abs(value));
  if (!Number.isFinite(value)) return 'n/a';
  if (value > 0) return `+${text}`;
  if (value < 0) return `-${text}`;
  return text;
}

/** Percent change from `before` to `after`, or null when `before` is 0. */
export function percentChange(before: number, after: number): number | null {
  if (!Number.isFinite(before) || !Number.isFinite(after) || before === 0) return null;
  return ((after - before) / before) * 100;
}

/** The day before an as-of date (the day the trends describe). Pure calendar arithmetic. */
export function dayBefore(asOf: string): string {
  const time = Date.parse(`${asOf}T00:00:00Z`);
  if (!Number.isFinite(time)) return asOf;
  return new Date(time - 86_400_000).toISOString().slice(0, 10);
}

/** Epoch milliseconds as `2026-11-21 07:00 UTC`. */
export function formatUtc(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return 'n/a';
  return `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A duration in words, coarse: `3 h 20 min`, `2 days 4 h`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'n/a';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days ${hours % 24} h`;
}

/**
 * Quotes a word for a POSIX shell so the user can paste the line. Plain single quotes for
 * printable text; ANSI-C `$'...'` when the value holds control, bidi or invisible characters,
 * each written as an escape (`\u202e`): an ISP name with a newline still round-trips exactly
 * (silences match the ISP exactly as sent), and the line a reader sees is the line they copy.
 */
export function shellQuote(value: string): string {
  if (!HAS_CONTROL_CHARS.test(value) && !HAS_INVISIBLE_CHARS.test(value))
    return `'${value.replace(/'/g, `'\\''`)}'`;
  const body = Array.from(value, (c) => {
    const code = c.codePointAt(0) ?? 0;
    if (c === '\\' || c === "'") return `\\${c}`;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) {
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`;
    }
    if (HAS_INVISIBLE_CHARS.test(c)) {
      const hex = codePointName(c).slice(2).toLowerCase();
      return hex.length <= 4 ? `\\u${hex}` : `\\U${hex.padStart(8, '0')}`;
    }
    return c;
  }).join('');
  return `$'${body}'`;
}

/** `1 reminder`, `2 reminders`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}
