/**
 * Characters that change how text looks without being seen: bidirectional overrides and
 * isolates (U+202A-202E, U+2066-2069: "moc.emca" shown as "acme.com", or a shell command shown
 * in another order than it runs), zero-width and other invisible format characters (U+200B,
 * U+2060, U+FEFF, the soft hyphen, Hangul fillers, tag characters). One definition: the config
 * refuses them in names it shows (src/config/mailbox.ts), and the e-mail text layer makes them
 * visible (src/notify/render/format.ts).
 */
/* Not a regex literal: one source for the global and the non-global twin. */
const INVISIBLE_CLASS =
  '[\\u00ad\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufeff\\uffa0\\u{e0000}-\\u{e007f}]';
// eslint-disable-next-line no-misleading-character-class -- each code point is meant on its own (U+200D, tags)
export const INVISIBLE_CHARS = new RegExp(INVISIBLE_CLASS, 'gu');
/** Non-global twin for a cheap test (a /g regex's test() is stateful). */
// eslint-disable-next-line no-misleading-character-class -- the same set
export const HAS_INVISIBLE_CHARS = new RegExp(INVISIBLE_CLASS, 'u');

/** `U+202E` for a character (its first code point). */
export function codePointName(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Every invisible or bidi-control character replaced by a visible `<U+202E>`: the reader sees
 * that something is there, and where, instead of text reordered or joined under their eyes.
 */
export function revealInvisible(value: string): string {
  return HAS_INVISIBLE_CHARS.test(value)
    ? value.replace(INVISIBLE_CHARS, (c) => `<${codePointName(c)}>`)
    : value;
}
