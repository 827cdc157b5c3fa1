import type { ThmErrorCode } from '../../errors.js';
import type { IsoDate, ProblemEpisode } from '../../monitor/types.js';
import type { RenderedEmail } from '../types.js';
import {
  displayText,
  formatUtc,
  headerValue,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
} from './format.js';
import {
  callout,
  codeBlock,
  COLORS,
  esc,
  FONT,
  heading,
  composeEmail,
  keyValueTable,
  paragraph,
  prose,
} from './html.js';

/**
 * "Monitoring problem": sent once per episode when a run fails for good, so the monitor never
 * falls silent. It carries the API's own message and what to check for that kind of failure.
 */
export interface ProblemEmailInput {
  network: { id: string; name: string };
  asOf: IsoDate;
  problem: ProblemEpisode;
}

/** Where a new key is taken from, so the advice to run again does not go in a circle. */
const KEY_SOURCES =
  'A key file (apiKeyFile) is read again by every run: rewrite it and run again. A key in an environment variable (apiKeyEnv) changes only when the worker restarts with the new value.';

/** What a person should look at, per error code (src/errors.ts). */
export function whatToCheck(code: ThmErrorCode, networkId: string): string[] {
  switch (code) {
    case 'THM_API_AUTH':
      return [
        'The API refused the key (401 No Authentication Method Found): it is missing, wrong or revoked.',
        `Check the key in the variable or file named by apiKeyEnv / apiKeyFile of network ${networkId}, and that it is still active on the platform.`,
        KEY_SOURCES,
      ];
    case 'THM_API_REALM':
      return [
        'The API answered 403 Out of realm: the key belongs to another portal (e.g. an affiliate or advertiser key).',
        'Use a network API key.',
        KEY_SOURCES,
      ];
    case 'THM_API_PREMIUM_REQUIRED':
      return [
        'The API says the Traffic Health premium tier is required: the premium subscription may have lapsed.',
        'Check the subscription on the platform; the monitor resumes by itself once it is active.',
      ];
    case 'THM_API_TRANSIENT':
    case 'THM_API_RETRY_LATER':
      return [
        'The API was unreachable, too slow, rate-limited or answering with server errors, and kept doing so through every retry.',
        'Check the API status and the network path from the worker (DNS, firewall, proxy). Later runs retry by themselves.',
      ];
    case 'THM_API_INVALID_RESPONSE':
      return [
        'The API answered with data the monitor could not validate (not JSON, too large, or fields missing or mistyped). History was left untouched.',
        'The API may have changed; the worker log names the field and the entry.',
      ];
    case 'THM_CONFIG':
      return ['The configuration or the key file could not be read.', 'Run `thm config check`.'];
    default:
      return ['See the worker log for this run.'];
  }
}

export function renderProblemEmail(input: ProblemEmailInput): RenderedEmail {
  const name = displayText(input.network.name, MAX_NAME_CHARS) || input.network.id;
  const { problem } = input;
  const message = displayText(problem.message, MAX_MESSAGE_CHARS);
  const code = displayText(problem.code, 60);
  const subject = headerValue(
    `[Traffic Health] ${headerValue(name, MAX_NAME_CHARS)}: monitoring problem, ${problem.kind} failing (${input.asOf})`,
  );
  const lead = `The ${problem.kind} of ${name} failed for good: until this is fixed, the monitor cannot see ${problem.kind === 'traffic-check' ? 'ISP declines' : 'the invoice summary'} for this network. You get this once per problem, and a "monitoring restored" e-mail after the next success.`;
  const checks = whatToCheck(problem.code, input.network.id);
  const commands = ['thm status', `thm run ${problem.kind} --network ${input.network.id} --wait`];
  const details: Array<[string, string]> = [
    ['Network', esc(`${name} (${input.network.id})`)],
    ['Failing', esc(problem.kind)],
    ['Since', esc(formatUtc(problem.openedAt))],
    ['Error code', esc(code)],
    ['Message', `<strong>${esc(message)}</strong>`],
  ];
  const html = [
    `<h1 style="${FONT}font-size:20px;color:${COLORS.critical};margin:0 0 8px 0;">${esc(name)}: monitoring problem</h1>`,
    callout(esc(lead), COLORS.critical, COLORS.criticalBg),
    keyValueTable(details),
    heading('What to check'),
    ...checks.map((line) => paragraph(prose(line))),
    paragraph(esc('Then see the state and try again by hand:')),
    codeBlock(commands),
  ].join('');
  const footer = `Traffic Health Monitor, network ${input.network.id}, as-of ${input.asOf}.`;
  return composeEmail({
    subject,
    preheader: message,
    bodyHtml: html,
    footer,
    textLines: [
      `${name}: monitoring problem`,
      '',
      lead,
      '',
      `  Network:    ${name} (${input.network.id})`,
      `  Failing:    ${problem.kind}`,
      `  Since:      ${formatUtc(problem.openedAt)}`,
      `  Error code: ${code}`,
      `  Message:    ${message}`,
      '',
      'WHAT TO CHECK',
      ...checks,
      'Then see the state and try again by hand:',
      ...commands.map((c) => `  ${c}`),
    ],
  });
}
