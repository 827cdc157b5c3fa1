import type { InvoiceChange, InvoiceSnapshot, IsoDate } from '../../monitor/types.js';
import type { RenderedEmail } from '../types.js';
import {
  displayText,
  formatCount,
  formatMoney,
  formatSigned,
  formatUtc,
  headerValue,
  MAX_NAME_CHARS,
} from './format.js';
import { COLORS, esc, FONT, composeEmail, keyValueTable, paragraph, prose } from './html.js';

/**
 * The invoice summary: its own e-mail (invoices.notify) and a section of the alert digest.
 * Amounts carry no currency: the summary endpoint does not say which one.
 */
export interface InvoiceEmailInput {
  network: { id: string; name: string };
  snapshot: InvoiceSnapshot;
  change?: InvoiceChange;
  /** The run's as-of date; default: the snapshot's UTC date. */
  asOf?: IsoDate;
}

type Field = 'total_count' | 'balance' | 'billed' | 'paid';
const FIELDS: Array<{ field: Field; label: string; money: boolean }> = [
  { field: 'total_count', label: 'Invoices', money: false },
  { field: 'balance', label: 'Balance', money: true },
  { field: 'billed', label: 'Billed', money: true },
  { field: 'paid', label: 'Paid', money: true },
];

function value(snapshot: InvoiceSnapshot, field: Field, money: boolean): string {
  return money ? formatMoney(snapshot[field]) : formatCount(snapshot[field]);
}

function changeText(change: InvoiceChange | undefined, field: Field, money: boolean): string {
  if (!change) return '';
  return ` (${formatSigned(change[field], money)} since the previous snapshot)`;
}

/**
 * When the snapshot was taken. The summary endpoint has no past dates: a past-dated run (`thm
 * run --date`, the demo) reads today's totals, so its e-mail says so instead of putting
 * today's time under an older as-of date without comment. A day either side is normal (the
 * as-of date is the network's local date, the time is UTC).
 */
function snapshotTime(snapshot: InvoiceSnapshot, asOf: IsoDate | undefined): string {
  const time = formatUtc(snapshot.time * 1000);
  const asOfMs = asOf === undefined ? Number.NaN : Date.parse(`${asOf}T12:00:00Z`);
  if (!Number.isFinite(asOfMs) || Math.abs(snapshot.time * 1000 - asOfMs) <= 36 * 3_600_000) {
    return time;
  }
  return `${time}, the totals at that time, not as of ${asOf} (the summary has no past dates)`;
}

/** `asOf`: the run's as-of date, to say so when the snapshot is from another day. */
export function invoiceSummaryHtml(
  snapshot: InvoiceSnapshot,
  change?: InvoiceChange,
  asOf?: IsoDate,
): string {
  const rows: Array<[string, string]> = [['Status', esc(displayText(snapshot.status, 50))]];
  for (const { field, label, money } of FIELDS) {
    const delta = change
      ? ` <span style="color:${COLORS.muted};font-size:12px;">${esc(changeText(change, field, money))}</span>`
      : '';
    rows.push([label, `<strong>${value(snapshot, field, money)}</strong>${delta}`]);
  }
  rows.push(['Taken', esc(snapshotTime(snapshot, asOf))]);
  return keyValueTable(rows);
}

export function invoiceSummaryText(
  snapshot: InvoiceSnapshot,
  change?: InvoiceChange,
  asOf?: IsoDate,
): string[] {
  const lines = [`  Status: ${displayText(snapshot.status, 50)}`];
  for (const { field, label, money } of FIELDS) {
    lines.push(`  ${label}: ${value(snapshot, field, money)}${changeText(change, field, money)}`);
  }
  lines.push(`  Taken: ${snapshotTime(snapshot, asOf)}`);
  return lines;
}

export function renderInvoiceEmail(input: InvoiceEmailInput): RenderedEmail {
  const name = displayText(input.network.name, MAX_NAME_CHARS) || input.network.id;
  const status = displayText(input.snapshot.status, 50);
  const asOf = input.asOf ?? new Date(input.snapshot.time * 1000).toISOString().slice(0, 10);
  const subject = headerValue(
    `[Traffic Health] ${headerValue(name, MAX_NAME_CHARS)}: invoices ${status}: ${formatCount(input.snapshot.total_count)}, balance ${formatMoney(input.snapshot.balance)} (${asOf})`,
  );
  const intro = `Partner invoice summary of ${name} (filter: status ${status}).`;
  const html = [
    `<h1 style="${FONT}font-size:20px;color:${COLORS.text};margin:0 0 8px 0;">${esc(name)}: invoice summary</h1>`,
    paragraph(esc(intro)),
    invoiceSummaryHtml(input.snapshot, input.change, asOf),
    input.change
      ? ''
      : paragraph(esc('No previous snapshot to compare with.'), `color:${COLORS.muted};`),
    paragraph(
      prose(
        `\`thm invoices --network ${input.network.id}\` lists the snapshots with their changes.`,
      ),
      `color:${COLORS.muted};font-size:13px;`,
    ),
  ].join('');
  const footer = `Traffic Health Monitor, network ${input.network.id}. Sent because invoices.notify is on for this network.`;
  return composeEmail({
    subject,
    preheader: intro,
    bodyHtml: html,
    footer,
    textLines: [
      `${name}: invoice summary`,
      intro,
      '',
      ...invoiceSummaryText(input.snapshot, input.change, asOf),
      ...(input.change ? [] : ['  No previous snapshot to compare with.']),
      '',
      `\`thm invoices --network ${input.network.id}\` lists the snapshots with their changes.`,
    ],
  });
}
