import type { IsoDate } from '../../monitor/types.js';
import type { RenderedEmail } from '../types.js';
import { displayText, headerValue, MAX_NAME_CHARS } from './format.js';
import { callout, COLORS, esc, FONT, composeEmail, paragraph, prose } from './html.js';

/** Premium lost / regained: sent when the state changes, not every day. */
export interface PremiumEmailInput {
  network: { id: string; name: string };
  asOf: IsoDate;
  /** true: premium was lost; false: it is active again. */
  lost: boolean;
  /** The first run of this network found it without premium: it never had it here. */
  firstSight?: boolean;
}

export function renderPremiumEmail(input: PremiumEmailInput): RenderedEmail {
  const name = displayText(input.network.name, MAX_NAME_CHARS) || input.network.id;
  const what = input.lost
    ? 'Traffic Health premium inactive'
    : 'Traffic Health premium active again';
  const subject = headerValue(
    `[Traffic Health] ${headerValue(name, MAX_NAME_CHARS)}: ${what} (${input.asOf})`,
  );
  const lines = input.lost
    ? [
        input.firstSight
          ? `The platform reports that ${name} does not have the Traffic Health premium tier (has_premium is false), on the monitor's first check of this network.`
          : `The platform reports that ${name} no longer has the Traffic Health premium tier (has_premium is false).`,
        'Without it the ISP trends cannot be read: no declining domains will be detected or e-mailed for this network until premium is active again. Active pairs are kept as they are.',
        'The monitor keeps checking every scheduled run and e-mails once when premium is back.',
      ]
    : [
        `The platform reports that ${name} has the Traffic Health premium tier again (has_premium is true).`,
        'ISP trends are read again from this run on; declines are reported as usual.',
      ];
  const color = input.lost ? COLORS.warning : COLORS.cleared;
  const background = input.lost ? COLORS.warningBg : COLORS.clearedBg;
  const html = [
    `<h1 style="${FONT}font-size:20px;color:${color};margin:0 0 8px 0;">${esc(name)}: ${esc(what)}</h1>`,
    callout(esc(lines[0] ?? ''), color, background),
    ...lines.slice(1).map((line) => paragraph(esc(line))),
    paragraph(
      prose('`thm status` shows the premium state of every network.'),
      `color:${COLORS.muted};font-size:13px;`,
    ),
  ].join('');
  const footer = `Traffic Health Monitor, network ${input.network.id}, as-of ${input.asOf}.`;
  return composeEmail({
    subject,
    preheader: lines[0] ?? what,
    bodyHtml: html,
    footer,
    textLines: [
      `${name}: ${what}`,
      '',
      ...lines,
      '',
      '`thm status` shows the premium state of every network.',
    ],
  });
}
