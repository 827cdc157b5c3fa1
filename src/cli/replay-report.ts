import type { ClassCounts } from '../monitor/types.js';
import { displayText, MAX_ISP_CHARS, MAX_URL_CHARS } from '../notify/render/format.js';
import type { DateRange } from '../replay/range.js';
import {
  SUMMED_CLASSES,
  SummaryTally,
  type ReplayNetwork,
  type ReplaySummary,
  type ReplayVariant,
  type ReplayedDay,
  type ReplayedEmail,
  type ReplayedDrop,
  type ReplayedPair,
} from '../replay/replay.js';
import type { SentAlert } from '../store/listing-codec.js';
import { formatTable, printJson, writeLines } from './output.js';

/*
 * What `thm replay` prints (docs/replay.md): per day what each replay would have e-mailed
 * (the subject, and without --compare the pairs by class) beside what the monitor sent, then
 * the summaries side by side; or, with --json, one document.
 */

export interface ReplayHeader {
  network: ReplayNetwork;
  range: DateRange;
  /** Where the listings came from: the store, or a file. */
  source: { file: string } | { store: true };
  variants: readonly ReplayVariant[];
}

/** Pairs shown per class and day in text; --json lists every one. */
const PAIRS_SHOWN = 8;

/** Prints the days as they are replayed, then the summaries. Returns the number of days. */
export function printReplayText(header: ReplayHeader, days: Iterable<ReplayedDay>): number {
  const { network, range, variants } = header;
  const file = 'file' in header.source ? header.source.file : undefined;
  const fromFile = file !== undefined;
  const tallies = variants.map(() => new SummaryTally());
  const sentTally = new SummaryTally();
  const compare = variants.length > 1;
  const width = compare ? Math.max(...variants.map((v) => v.label.length)) : 0;
  writeLines([
    `${network.name} (${network.id}): replay of ${range.from} to ${range.to}, ${file !== undefined ? `listings from ${file}` : 'stored listings'}, from an empty state`,
    ...(compare ? [] : [`settings: ${variants[0]!.label}`]),
    '',
  ]);
  let count = 0;
  for (const day of days) {
    count += 1;
    day.runs.forEach((run, v) => tallies[v]!.add(run.email !== null, run.counts));
    if (day.sent !== undefined) sentTally.add(day.sent !== null, day.sentCounts);
    const lines: string[] = [];
    const sent = fromFile ? undefined : day.sent;
    if (compare) {
      lines.push(`${day.asOf}  (${day.listed} listed)`);
      day.runs.forEach((run, v) =>
        lines.push(`  ${variants[v]!.label.padEnd(width)}  ${run.email?.subject ?? '-'}`),
      );
      if (!fromFile) lines.push(`  ${'sent'.padEnd(width)}  ${sentLine(sent)}`);
    } else {
      const email = day.runs[0]!.email;
      if (!email && !sent) {
        lines.push(
          `${day.asOf}  nothing to send (${day.listed} listed)${fromFile ? '' : '; nothing sent'}`,
        );
      } else {
        lines.push(`${day.asOf}  would send: ${email?.subject ?? '-'}`);
        if (email) lines.push(...pairLines(email));
        if (!fromFile) lines.push(`            sent:       ${sentLine(sent)}`);
      }
    }
    writeLines(lines);
  }
  const columns = variants.map((v) => v.label);
  const summaries = tallies.map((t) => t.summary());
  if (!fromFile) {
    columns.push('sent');
    summaries.push(sentTally.summary());
  }
  writeLines([
    '',
    `${count} listed day${count === 1 ? '' : 's'} replayed:`,
    formatTable(
      ['', ...columns],
      [
        ['e-mails', ...summaries.map((s) => String(s.emails))],
        ...SUMMED_CLASSES.map((c) => [`${c} pairs`, ...summaries.map((s) => String(s.pairs[c]))]),
      ],
    ),
  ]);
  return count;
}

function sentLine(sent: SentAlert | null | undefined): string {
  return sent ? sent.subject : '-';
}

/**
 * An e-mail's common drops, one line each, then its pairs, one line per class: the first few,
 * worst first, and how many in all.
 */
function pairLines(email: ReplayedEmail): string[] {
  const lines: string[] = email.drops.map((d) => `              ${dropText(d)}`);
  for (const c of SUMMED_CLASSES) {
    const pairs = email.pairs.filter((p) => p.class === c);
    if (pairs.length === 0) continue;
    const shown = [...pairs]
      .sort((a, b) => b.dropPercent - a.dropPercent)
      .slice(0, PAIRS_SHOWN)
      .map(pairText);
    const more = pairs.length - shown.length;
    lines.push(
      `              ${c} (${pairs.length}): ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`,
    );
  }
  return lines;
}

/** A common drop: `new (domain): URL -83%, its ISPs together`. */
function dropText(d: ReplayedDrop): string {
  const drop = `-${Math.abs(d.dropPercent).toFixed(0)}%`;
  return d.scope === 'network'
    ? `${d.class} (network): ${drop}, its domains together`
    : `${d.class} (domain): ${displayText(d.domainUrl, MAX_URL_CHARS)} ${drop}, its ISPs together`;
}

function pairText(p: ReplayedPair): string {
  const drop = `${p.dropPercent >= 0 ? '-' : '+'}${Math.abs(p.dropPercent).toFixed(0)}%`;
  return `${displayText(p.domainUrl, MAX_URL_CHARS)} ${displayText(p.isp, MAX_ISP_CHARS)} ${drop}${p.severity === 'critical' ? ' critical' : ''}`;
}

/** The --json document: `{"days": [...], "summary": {...}}` (docs/replay.md). */
export function printReplayJson(header: ReplayHeader, days: Iterable<ReplayedDay>): number {
  const { variants } = header;
  const fromFile = 'file' in header.source;
  const compare = variants.length > 1;
  const tallies = variants.map(() => new SummaryTally());
  const sentTally = new SummaryTally();
  const out: unknown[] = [];
  for (const day of days) {
    day.runs.forEach((run, v) => tallies[v]!.add(run.email !== null, run.counts));
    if (day.sent !== undefined) sentTally.add(day.sent !== null, day.sentCounts);
    const emails = day.runs.map((run) => emailJson(run.email, run.counts));
    out.push({
      asOf: day.asOf,
      ...(compare ? { emails } : { email: emails[0] }),
      sent: fromFile || !day.sent ? null : { subject: day.sent.subject },
    });
  }
  const settingsOf = (v: ReplayVariant, summary: ReplaySummary) => ({
    label: v.label,
    settings: v.alerts,
    ...summary,
  });
  const summary = {
    network: header.network.id,
    from: header.range.from,
    to: header.range.to,
    source: 'file' in header.source ? 'file' : 'store',
    days: out.length,
    ...(compare
      ? { variants: variants.map((v, i) => settingsOf(v, tallies[i]!.summary())) }
      : settingsOf(variants[0]!, tallies[0]!.summary())),
    // What the monitor sent over the same days; null for a file (not known).
    sent: fromFile ? null : sentTally.summary(),
  };
  printJson({ days: out, summary });
  return out.length;
}

function emailJson(email: ReplayedEmail | null, counts: ClassCounts) {
  return email && { subject: email.subject, counts, drops: email.drops, pairs: email.pairs };
}
