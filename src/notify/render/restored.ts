import type { IsoDate, ProblemEpisode } from '../../monitor/types.js';
import type { RenderedEmail } from '../types.js';
import {
  displayText,
  formatDuration,
  formatUtc,
  headerValue,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
} from './format.js';
import { callout, COLORS, esc, FONT, composeEmail, keyValueTable } from './html.js';

/** "Monitoring restored": the first success after a problem episode closes it. */
export interface RestoredEmailInput {
  network: { id: string; name: string };
  asOf: IsoDate;
  problem: ProblemEpisode;
  /** Epoch milliseconds of the successful run. */
  restoredAt: number;
}

export function renderRestoredEmail(input: RestoredEmailInput): RenderedEmail {
  const name = displayText(input.network.name, MAX_NAME_CHARS) || input.network.id;
  const { problem } = input;
  const subject = headerValue(
    `[Traffic Health] ${headerValue(name, MAX_NAME_CHARS)}: monitoring restored, ${problem.kind} working again (${input.asOf})`,
  );
  const duration = formatDuration(input.restoredAt - problem.openedAt);
  const lead = `The ${problem.kind} of ${name} works again. It was failing for ${duration}; runs missed in that time are not made up, so declines that started then are reported from this run on.`;
  const message = displayText(problem.message, MAX_MESSAGE_CHARS);
  const rows: Array<[string, string]> = [
    ['Failing since', esc(formatUtc(problem.openedAt))],
    ['Restored at', esc(formatUtc(input.restoredAt))],
    ['Was', esc(`${displayText(problem.code, 60)}: ${message}`)],
  ];
  const html = [
    `<h1 style="${FONT}font-size:20px;color:${COLORS.cleared};margin:0 0 8px 0;">${esc(name)}: monitoring restored</h1>`,
    callout(esc(lead), COLORS.cleared, COLORS.clearedBg),
    keyValueTable(rows),
  ].join('');
  const footer = `Traffic Health Monitor, network ${input.network.id}, as-of ${input.asOf}.`;
  return composeEmail({
    subject,
    preheader: lead,
    bodyHtml: html,
    footer,
    textLines: [
      `${name}: monitoring restored`,
      '',
      lead,
      '',
      `  Failing since: ${formatUtc(problem.openedAt)}`,
      `  Restored at:   ${formatUtc(input.restoredAt)}`,
      `  Was:           ${displayText(problem.code, 60)}: ${message}`,
    ],
  });
}
