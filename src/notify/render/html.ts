import type { RenderedEmail } from '../types.js';
import { escapeHtml, safeHref } from './format.js';

/**
 * The HTML frame every e-mail kind shares. Mail clients are not browsers, so:
 *
 * - Every style inline. The one <style> block is an extra (Outlook's cell font, the dark
 *   palette): Gmail's app and Outlook drop or ignore it, and the layout must not need it. No
 *   media queries: narrow screens are handled by widths that shrink (width:100% with a
 *   max-width) and blocks that wrap under each other (`stackingGrid`).
 * - Layout by tables with widths in attributes, which Outlook's Word engine keeps; no flex or
 *   grid. Where Outlook would ignore a max-width, a table only it sees (`<!--[if mso]>`) holds
 *   the same widths.
 * - Anything can wrap: the card sets `overflow-wrap:anywhere` once, which is inherited, so a
 *   long URL or ISP name breaks instead of widening a table on a phone. Spaces are still
 *   preferred; short hyphenated words are kept whole (`keepWords`).
 * - Dark mode: a `color-scheme` meta and, for clients that honour it, a dark palette mapped
 *   from the light one (`DARK_STYLE`); clients that invert colours themselves get solid
 *   colours only (no images, no transparency), and severity always in words as well.
 * - No external assets. Callers pass already-escaped fragments; `esc` is the only way API text
 *   gets in.
 */

export const esc = escapeHtml;

export const COLORS = {
  text: '#1f2933',
  muted: '#52606d',
  border: '#d9e2ec',
  headerBg: '#f0f4f8',
  critical: '#b42318',
  criticalBg: '#fef3f2',
  warning: '#b54708',
  warningBg: '#fffaeb',
  cleared: '#027a48',
  clearedBg: '#ecfdf3',
  link: '#1d4ed8',
  /** The page around the card, the card, every other table row. */
  page: '#f5f7fa',
  card: '#ffffff',
  zebra: '#f8fafc',
  /** Bars of the comparison days (the day itself is drawn in its severity's colour). */
  bar: '#9fb3c8',
} as const;

/**
 * The dark palette, one counterpart per light colour, applied by attribute selectors to the
 * inline styles and bgcolor attributes the renderers write: no class on every element, no
 * byte per pair. Only for clients that honour prefers-color-scheme in a <style> block (Apple
 * Mail, iOS Mail, Outlook for Mac); the rest show the light design or invert it themselves.
 */
const DARK: Array<[light: string, dark: string, role: 'text' | 'bg' | 'border']> = [
  [COLORS.text, '#e4e7eb', 'text'],
  [COLORS.muted, '#a6b1bd', 'text'],
  [COLORS.critical, '#ff8f80', 'text'],
  [COLORS.warning, '#f7b26a', 'text'],
  [COLORS.cleared, '#6ce9a6', 'text'],
  [COLORS.link, '#8ab4ff', 'text'],
  [COLORS.page, '#0f1317', 'bg'],
  [COLORS.card, '#1a1f24', 'bg'],
  [COLORS.headerBg, '#26313b', 'bg'],
  [COLORS.zebra, '#20262d', 'bg'],
  [COLORS.criticalBg, '#3d1f1c', 'bg'],
  [COLORS.warningBg, '#3a2c14', 'bg'],
  [COLORS.clearedBg, '#12301f', 'bg'],
  [COLORS.border, '#3e4c59', 'border'],
];

function darkRule([light, dark, role]: (typeof DARK)[number]): string {
  if (role === 'text') return `[style*="color:${light}"]{color:${dark}!important}`;
  if (role === 'border') return `[style*="solid ${light}"]{border-color:${dark}!important}`;
  return `[bgcolor="${light}"],[style*="background:${light}"]{background:${dark}!important}`;
}

const DARK_STYLE = `@media (prefers-color-scheme:dark){${DARK.map(darkRule).join('')}}`;

export const FONT = 'font-family:Arial,Helvetica,sans-serif;';

/** An http(s) URL as a link, anything else as plain text; both escaped. */
export function linkOrText(url: string, display: string): string {
  const href = safeHref(url);
  if (!href) return esc(display);
  return `<a href="${esc(href)}" style="color:${COLORS.link};text-decoration:none;">${esc(display)}</a>`;
}

/** A small coloured label (severity, class). */
export function badge(label: string, color: string): string {
  // Short on purpose: one per listed pair (see TABLE_STYLE on size). A word, never colour alone.
  return `<b style="color:${color};font-size:11px;">${esc(label)}</b>`;
}

export function heading(text: string, level: 2 | 3 = 2): string {
  const size = level === 2 ? 18 : 15;
  return `<h${level} style="${FONT}font-size:${size}px;color:${COLORS.text};margin:24px 0 8px 0;">${esc(text)}</h${level}>`;
}

export function paragraph(innerHtml: string, extraStyle = ''): string {
  return `<p style="${FONT}font-size:14px;line-height:1.5;color:${COLORS.text};margin:0 0 10px 0;${extraStyle}">${innerHtml}</p>`;
}

/** A call-out box: the domain headline, the "may still be depressed" caveat. */
export function callout(innerHtml: string, color: string, background: string): string {
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:8px 0 12px 0;"><tr><td style="${FONT}font-size:14px;line-height:1.5;color:${COLORS.text};background:${background};border-left:4px solid ${color};padding:10px 12px;">${innerHtml}</td></tr></table>`;
}

export function code(text: string): string {
  return `<code style="font-family:Menlo,Consolas,monospace;font-size:12px;background:${COLORS.headerBg};padding:2px 4px;border-radius:3px;">${keepWords(text)}</code>`;
}

/**
 * Our own sentences with `backtick` spans shown as code. Never for API strings (an ISP name may
 * hold a backtick); those go through esc.
 */
export function prose(text: string): string {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? code(part) : esc(part)))
    .join('');
}

export function codeBlock(lines: string[]): string {
  return `<pre style="font-family:Menlo,Consolas,monospace;font-size:12px;line-height:1.5;background:${COLORS.headerBg};border:1px solid ${COLORS.border};padding:8px 10px;margin:0 0 10px 0;white-space:pre-wrap;">${lines.map(keepWords).join('\n')}</pre>`;
}

/*
 * Lists and pair cards are the bulk of a big digest, and Gmail clips a message whose HTML
 * passes about 102 KB. So a cell carries as little style as it can: the font is set once on
 * the table (and for Outlook, which does not inherit it into cells, once in the head), padding
 * by cellpadding, alignment by the align/valign attributes every client honours, rows told
 * apart by zebra stripes instead of per-cell borders.
 */
const TABLE_STYLE = `border-collapse:collapse;border:1px solid ${COLORS.border};margin:0 0 12px 0;font:13px Arial,Helvetica,sans-serif;color:${COLORS.text};`;

/** Items one under the other in a bordered, striped table of one column. */
export function stackedList(items: string[]): string {
  const rows = items.map(
    (item, r) => `<tr${r % 2 === 1 ? ` bgcolor="${COLORS.zebra}"` : ''}><td>${item}</td></tr>`,
  );
  return `<table role="presentation" width="100%" cellpadding="6" cellspacing="0" border="0" style="${TABLE_STYLE}">${rows.join('')}</table>`;
}

/** Two-column label/value table (invoice summary, problem details). */
export function keyValueTable(rows: Array<[label: string, valueHtml: string]>): string {
  const parts: string[] = [
    `<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:0 0 12px 0;">`,
  ];
  for (const [label, value] of rows) {
    parts.push(
      `<tr><td style="${FONT}font-size:13px;color:${COLORS.muted};padding:3px 16px 3px 0;white-space:nowrap;vertical-align:top;">${esc(label)}</td><td style="${FONT}font-size:13px;color:${COLORS.text};padding:3px 0;vertical-align:top;">${value}</td></tr>`,
    );
  }
  parts.push('</table>');
  return parts.join('');
}

/**
 * The whole document: a centred column, 760px at most and the screen's width on a phone, on a
 * light background. `preheader` is the hidden line many clients show next to the subject in
 * the inbox list.
 */
export function htmlDocument(input: {
  title: string;
  preheader: string;
  bodyHtml: string;
  footer: string;
}): string {
  return [
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">',
    `<title>${esc(input.title)}</title>`,
    // Outlook on Windows does not inherit the table's font into cells; the dark palette.
    `<style>:root{color-scheme:light dark;supported-color-schemes:light dark}td,th{font-family:Arial,Helvetica,sans-serif;}${DARK_STYLE}</style></head>`,
    `<body bgcolor="${COLORS.page}" style="margin:0;padding:0;background:${COLORS.page};">`,
    `<div style="display:none;max-height:0;overflow:hidden;">${esc(input.preheader)}</div>`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" bgcolor="${COLORS.page}" style="border-collapse:collapse;background:${COLORS.page};"><tr><td align="center" style="padding:12px 6px;">`,
    `<table role="presentation" width="${CARD_WIDTH}" cellpadding="0" cellspacing="0" bgcolor="${COLORS.card}" style="border-collapse:collapse;width:100%;max-width:${CARD_WIDTH}px;background:${COLORS.card};border:1px solid ${COLORS.border};"><tr><td align="left" style="padding:${CARD_PADDING}px;${FONT}font-size:14px;color:${COLORS.text};overflow-wrap:anywhere;word-break:break-word;">`,
    input.bodyHtml,
    `<p style="${FONT}font-size:12px;color:${COLORS.muted};margin:24px 0 0 0;border-top:1px solid ${COLORS.border};padding-top:10px;">${esc(input.footer)}</p>`,
    '</td></tr></table></td></tr></table></body></html>',
  ].join('');
}

/** The column's widest and its padding: the content is at most 760 - 2 * 18 = 724px wide. */
const CARD_WIDTH = 760;
const CARD_PADDING = 18;

/**
 * Blocks side by side while they fit, one under the other when they do not: each is an
 * inline-block of `width:100%` up to `maxWidth` (its `gutter` of right and bottom padding
 * included), so a phone gets one per row and a desktop `perRow` (no media query involved).
 * Outlook, which ignores inline-block and max-width, gets a table of `perRow` cells of
 * `maxWidth` that only it sees.
 */
export function stackingGrid(
  blocks: string[],
  maxWidth: number,
  perRow: number,
  gutter: number,
): string {
  const cell = `<td width="${maxWidth}" valign="top">`;
  const open = `<div style="display:inline-block;vertical-align:top;width:100%;max-width:${maxWidth}px;box-sizing:border-box;padding:0 ${gutter}px ${gutter}px 0;">`;
  const parts: string[] = [
    `<!--[if mso]><table role="presentation" cellpadding="0" cellspacing="0"><tr>${cell}<![endif]-->`,
  ];
  for (let i = 0; i < blocks.length; i++) {
    if (i > 0) {
      const next = i % perRow === 0 ? `</td></tr><tr>${cell}` : `</td>${cell}`;
      parts.push(`<!--[if mso]>${next}<![endif]-->`);
    }
    parts.push(open, blocks[i] ?? '', '</div>');
  }
  parts.push('<!--[if mso]></td></tr></table><![endif]-->');
  // No white space between the blocks: it would add a gap that can push the second one down.
  return parts.join('');
}

export interface Bar {
  /** Plain text. */
  label: string;
  value: number;
  color: string;
  /** The figures shown after the bar (the value, a percent change), escaped HTML. */
  valueHtml: string;
}

/**
 * A horizontal bar chart from table cells: each bar is a one-cell table of a percentage width
 * with a background colour. Unlike SVG or images it shows in every client, Outlook included,
 * needs no download, and survives a dark-mode inversion. Bars are relative to the largest
 * value; a zero gets no bar. About 180 bytes a bar: the biggest part of a pair card.
 */
export function barChart(bars: Bar[]): string {
  let max = 0;
  for (const bar of bars) if (Number.isFinite(bar.value) && bar.value > max) max = bar.value;
  const rows = bars.map((bar) => {
    const share = max > 0 && bar.value > 0 ? Math.max(1, Math.round((bar.value / max) * 100)) : 0;
    const drawn =
      share > 0
        ? `<table width="${share}%" cellpadding="0" cellspacing="0"><tr><td height="8" bgcolor="${bar.color}"></td></tr></table>`
        : '';
    return `<tr><td>${esc(bar.label)}</td><td width="100%">${drawn}</td><td align="right">${bar.valueHtml}</td></tr>`;
  });
  return `<table role="presentation" width="100%" cellpadding="2" cellspacing="0" style="font-size:12px;white-space:nowrap;margin:4px 0;">${rows.join('')}</table>`;
}

/**
 * Short hyphenated words (`T-Mobile`, `--wait`) never break at the hyphen: escaped, with each
 * such word in a no-wrap span. Longer ones may still break, so nothing can overflow a phone.
 */
export function keepWords(text: string): string {
  const escaped = esc(text);
  if (!text.includes('-')) return escaped;
  return escaped.replace(/(^|\s)(\S*-\S*)(?=\s|$)/g, (whole, space: string, word: string) =>
    word.length <= MAX_KEPT_WORD
      ? `${space}<span style="white-space:nowrap;">${word}</span>`
      : whole,
  );
}

const MAX_KEPT_WORD = 24;

/**
 * The last step of every renderer: the text part ends with the "-- " signature separator (with
 * the space: clients recognise it and fold or strip the footer when replying) and the footer, the HTML part is the full document. One place, so every kind looks the same.
 */
export function composeEmail(input: {
  subject: string;
  preheader: string;
  bodyHtml: string;
  textLines: string[];
  footer: string;
}): RenderedEmail {
  return {
    subject: input.subject,
    text: [...input.textLines, '-- ', input.footer].join('\n'),
    html: htmlDocument({
      title: input.subject,
      preheader: input.preheader,
      bodyHtml: input.bodyHtml,
      footer: input.footer,
    }),
  };
}
