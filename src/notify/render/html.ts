import type { RenderedEmail } from '../types.js';
import { escapeHtml, safeHref } from './format.js';

/**
 * The HTML frame every e-mail kind shares. Mail clients are not browsers: no <style> blocks
 * (Gmail strips some, Outlook ignores most), no external assets, layout by tables, every style
 * inline, a fixed readable width. Callers pass already-escaped fragments; `esc` is the only way
 * API text gets in.
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
} as const;

export const FONT = 'font-family:Arial,Helvetica,sans-serif;';

/** An http(s) URL as a link, anything else as plain text; both escaped. */
export function linkOrText(url: string, display: string): string {
  const href = safeHref(url);
  if (!href) return esc(display);
  return `<a href="${esc(href)}" style="color:${COLORS.link};text-decoration:none;">${esc(display)}</a>`;
}

/** A small coloured label (severity, class). */
export function badge(label: string, color: string): string {
  // Short on purpose: one per listed pair (see dataTable on size).
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
  return `<code style="font-family:Menlo,Consolas,monospace;font-size:12px;background:${COLORS.headerBg};padding:2px 4px;border-radius:3px;overflow-wrap:break-word;">${esc(text)}</code>`;
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
  return `<pre style="font-family:Menlo,Consolas,monospace;font-size:12px;line-height:1.5;background:${COLORS.headerBg};border:1px solid ${COLORS.border};padding:8px 10px;margin:0 0 10px 0;white-space:pre-wrap;word-break:break-all;">${lines.map(esc).join('\n')}</pre>`;
}

export interface Column {
  /** Header text (plain). */
  label: string;
  align?: 'left' | 'right';
  nowrap?: boolean;
}

/*
 * Data tables are the bulk of a big digest, and Gmail clips a message whose HTML passes about
 * 102 KB. So a cell carries no style of its own: the font is set once on the table (and for
 * Outlook, which does not inherit it into cells, once in the head), padding by cellpadding,
 * alignment by the align/valign attributes every client honours, rows told apart by zebra
 * stripes instead of per-cell borders. About 0.5 KB per listed pair.
 */
const TABLE_STYLE = `border-collapse:collapse;border:1px solid ${COLORS.border};margin:0 0 12px 0;font:13px Arial,Helvetica,sans-serif;color:${COLORS.text};`;

/** A data table. `rows` are arrays of already-escaped cell HTML. */
export function dataTable(columns: Column[], rows: string[][]): string {
  const parts: string[] = [
    `<table width="100%" cellpadding="6" cellspacing="0" border="0" style="${TABLE_STYLE}"><tr bgcolor="${COLORS.headerBg}">`,
  ];
  for (const column of columns) {
    parts.push(
      `<th align="${column.align ?? 'left'}" style="font-size:12px;color:${COLORS.muted};white-space:nowrap;">${esc(column.label)}</th>`,
    );
  }
  parts.push('</tr>');
  const aligns = columns.map(
    (c) => `<td${c.align === 'right' ? ' align="right"' : ''}${c.nowrap ? ' nowrap' : ''}>`,
  );
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] ?? [];
    parts.push(r % 2 === 1 ? `<tr valign="top" bgcolor="${ZEBRA}">` : '<tr valign="top">');
    for (let i = 0; i < row.length; i++) parts.push(aligns[i] ?? '<td>', row[i] ?? '', '</td>');
    parts.push('</tr>');
  }
  parts.push('</table>');
  return parts.join('');
}

const ZEBRA = '#f8fafc';

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
 * The whole document: a centred 760px column on a light background. `preheader` is the hidden
 * line many clients show next to the subject in the inbox list.
 */
export function htmlDocument(input: {
  title: string;
  preheader: string;
  bodyHtml: string;
  footer: string;
}): string {
  return [
    '<!DOCTYPE html><html><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>${esc(input.title)}</title>`,
    // Only for Outlook on Windows, which does not inherit the table's font into cells; every
    // other style is inline.
    '<style>td,th{font-family:Arial,Helvetica,sans-serif;}</style></head>',
    `<body style="margin:0;padding:0;background:#f5f7fa;">`,
    `<div style="display:none;max-height:0;overflow:hidden;">${esc(input.preheader)}</div>`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;background:#f5f7fa;"><tr><td align="center" style="padding:16px 8px;">`,
    `<table role="presentation" width="760" cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%;max-width:760px;background:#ffffff;border:1px solid ${COLORS.border};"><tr><td style="padding:20px 24px;">`,
    input.bodyHtml,
    `<p style="${FONT}font-size:12px;color:${COLORS.muted};margin:24px 0 0 0;border-top:1px solid ${COLORS.border};padding-top:10px;">${esc(input.footer)}</p>`,
    '</td></tr></table></td></tr></table></body></html>',
  ].join('');
}

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
