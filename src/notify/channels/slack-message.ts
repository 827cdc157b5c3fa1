import { dropHeadline } from '../render/evidence.js';
import type { ClassifiedPair, PairClass } from '../../monitor/types.js';
import { dropSilenceCommand, silenceCommand } from '../render/alert.js';
import {
  displayText,
  formatCount,
  formatDuration,
  formatMoney,
  formatPercent,
  formatUtc,
  MAX_ISP_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  MAX_URL_CHARS,
  plural,
  truncate,
} from '../render/format.js';
import type { ChannelMessageInput } from './event.js';
import { channelListing, clicksOf, type ListedDomain } from './listing.js';

/**
 * The Slack message (Block Kit, posted to an incoming webhook): the headline first (what
 * changed, the worst domain), then up to MAX_SLACK_PAIRS pairs with their figures, "and N more"
 * pointing at the e-mail and `thm history`, and the silence command.
 *
 * Every string from the API (ISP names, domain URLs, error messages) is inert: one line, cut,
 * `&`, `<` and `>` escaped (so no `<!channel>`, `<@U123>` or `<http://x|link>` can form), and
 * set as inline code, where Slack neither formats nor auto-links; a backtick inside becomes a
 * look-alike so it cannot close the code span. Link unfurling is off.
 */
export const MAX_SLACK_PAIRS = 10;

export interface SlackMessage {
  /** Shown in notifications and where blocks cannot be. */
  text: string;
  blocks: SlackBlock[];
  unfurl_links: false;
  unfurl_media: false;
}

export type SlackBlock =
  | { type: 'header'; text: { type: 'plain_text'; text: string; emoji: false } }
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: Array<{ type: 'mrkdwn'; text: string }> }
  | { type: 'divider' };

/** Slack's escaping of the three control characters of its markup. */
export function escapeSlack(value: string): string {
  return value.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** An untrusted string as inline code: one line, cut to `max`, escaped, no backtick inside. */
export function slackCode(value: string, max: number): string {
  const text = escapeSlack(displayText(value, max)).replace(/`/g, 'ˋ');
  return `\`${text || ' '}\``;
}

/** Trusted text (our own words, config names) as mrkdwn: still escaped. */
function plain(value: string, max = 300): string {
  return escapeSlack(displayText(value, max));
}

const HEADER_MAX = 150;
const SECTION_MAX = 3000;

export function renderSlackMessage(input: ChannelMessageInput): SlackMessage {
  const { notification: n, event } = input;
  const name = displayText(input.network.name, MAX_NAME_CHARS) || input.network.id;
  const blocks: SlackBlock[] = [];
  let headline: string;
  switch (event.kind) {
    case 'alert': {
      const listing = channelListing(event.classification, event.notifyCleared);
      const counts = event.classification.counts;
      const changes = [
        ...listing.drops.map((d) =>
          d.scope === 'network'
            ? `network down ${Math.round(d.dropPercent)}%`
            : `domain ${d.domainId} down ${Math.round(d.dropPercent)}%`,
        ),
        changeSummary(counts, event.notifyCleared),
      ].filter((part) => part !== '');
      headline = `${name}: ${changes.join(', ')} (${n.asOf})`;
      blocks.push(header(headline));
      for (const drop of listing.drops) {
        const domain = displayText(drop.domainUrl, MAX_URL_CHARS) || `domain ${drop.domainId}`;
        blocks.push(section(dropHeadline(drop, drop.scope === 'network' ? name : domain)));
      }
      const worst = listing.domains[0];
      if (worst) blocks.push(section(domainHeadline(listing.domains, worst)));
      const shown = listing.pairs.slice(0, MAX_SLACK_PAIRS);
      if (shown.length > 0) blocks.push(section(shown.map(pairLine).join('\n')));
      const rest = listing.pairs.length - shown.length;
      const notRepeated = quietCounts(counts);
      const more: string[] = [];
      if (rest > 0)
        more.push(
          `and ${plural(rest, 'more pair')}: in the e-mail, or ${slackCode(`thm history --network ${n.networkId}`, 120)}`,
        );
      if (notRepeated) more.push(`Not repeated here: ${notRepeated}.`);
      if (more.length > 0) blocks.push(context(more.join('  ')));
      const example = listing.pairs[0];
      const onlyDrop = example === undefined ? listing.drops[0] : undefined;
      if (example)
        blocks.push(
          context(
            `Silence a pair for a week: ${slackCode(silenceCommand(n.networkId, example.domainId, example.isp), 400)}`,
          ),
        );
      else if (onlyDrop)
        blocks.push(
          context(
            `${onlyDrop.scope === 'domain' ? 'Silence the whole domain for a week' : 'Silence the network-wide drop for a day (every pair too)'}: ${slackCode(dropSilenceCommand(n.networkId, onlyDrop), 400)}`,
          ),
        );
      break;
    }
    case 'problem': {
      const p = event.problem;
      headline = `${name}: monitoring problem (${n.asOf})`;
      blocks.push(
        header(headline),
        section(
          `Traffic checks of *${plain(name)}* are failing since ${plain(formatUtc(p.openedAt))}: ${slackCode(p.code, 60)} ${slackCode(p.message, MAX_MESSAGE_CHARS)}\nUntil it is fixed, declines on this network go unnoticed. One message per episode; another says when it is over.`,
        ),
      );
      break;
    }
    case 'restored': {
      const p = event.problem;
      headline = `${name}: monitoring restored (${n.asOf})`;
      blocks.push(
        header(headline),
        section(
          `Traffic checks of *${plain(name)}* work again after ${plain(formatDuration(event.restoredAt - p.openedAt))} (since ${plain(formatUtc(p.openedAt))}, ${slackCode(p.code, 60)}).`,
        ),
      );
      break;
    }
    case 'premium-lost':
    case 'premium-regained': {
      const lost = event.kind === 'premium-lost';
      headline = `${name}: Traffic Health Premium ${lost ? (event.firstSight ? 'not active' : 'lost') : 'active again'} (${n.asOf})`;
      blocks.push(
        header(headline),
        section(
          lost
            ? `*${plain(name)}* ${event.firstSight ? 'does not have' : 'no longer has'} the Traffic Health Premium tier: the monitor cannot see ISP declines until it is active.`
            : `*${plain(name)}* has the Traffic Health Premium tier again: monitoring resumes with the next check.`,
        ),
      );
      break;
    }
    case 'invoice': {
      const s = event.snapshot;
      headline = `${name}: invoice summary (${n.asOf})`;
      const change = event.change
        ? ` (change: ${formatCount(event.change.total_count)} invoices, balance ${formatMoney(event.change.balance)})`
        : '';
      blocks.push(
        header(headline),
        section(
          `${slackCode(s.status, 50)} invoices: ${formatCount(s.total_count)}, balance ${formatMoney(s.balance)}, billed ${formatMoney(s.billed)}, paid ${formatMoney(s.paid)}${plain(change)}`,
        ),
      );
      break;
    }
  }
  return {
    text: plain(headline, 300),
    blocks,
    unfurl_links: false,
    unfurl_media: false,
  };
}

function header(text: string): SlackBlock {
  // plain_text is never parsed for mentions or links; cut to Block Kit's limit.
  return {
    type: 'header',
    text: { type: 'plain_text', text: truncate(text, HEADER_MAX), emoji: false },
  };
}

function section(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, SECTION_MAX) } };
}

function context(text: string): SlackBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, SECTION_MAX) }] };
}

function changeSummary(counts: Record<PairClass, number>, notifyCleared: boolean): string {
  const parts: string[] = [];
  if (counts.new > 0) parts.push(`${formatCount(counts.new)} new`);
  if (counts.worse > 0) parts.push(`${formatCount(counts.worse)} worse`);
  if (counts.reminder > 0) parts.push(plural(counts.reminder, 'reminder'));
  if (notifyCleared && counts.cleared > 0) parts.push(`${formatCount(counts.cleared)} cleared`);
  return parts.join(', ');
}

function quietCounts(counts: Record<PairClass, number>): string {
  const parts: string[] = [];
  if (counts.ongoing > 0) parts.push(`${formatCount(counts.ongoing)} ongoing`);
  if (counts.silenced > 0) parts.push(`${formatCount(counts.silenced)} silenced`);
  return parts.join(', ');
}

/** The worst domain first; when domains look blocked, those. */
function domainHeadline(domains: ListedDomain[], worst: ListedDomain): string {
  const blocked = domains.filter((d) => d.headline);
  if (blocked.length > 0) {
    const names = blocked.slice(0, 3).map((d) => slackCode(d.domainUrl, MAX_URL_CHARS));
    const more = blocked.length > 3 ? ` and ${formatCount(blocked.length - 3)} more` : '';
    return `:rotating_light: *${plural(blocked.length, 'domain')} look${blocked.length === 1 ? 's' : ''} blocked:* ${names.join(', ')}${more}: many ISPs declining at once (worst: ${formatCount(blocked[0]!.ispsAffected)} ISPs, ${formatCount(blocked[0]!.clicksLost)} clicks lost).`;
  }
  return `*Worst domain:* ${slackCode(worst.domainUrl, MAX_URL_CHARS)}: ${plural(worst.ispsAffected, 'ISP')} declining, ${formatCount(worst.clicksLost)} clicks lost.`;
}

const CLASS_WORD: Record<PairClass, string> = {
  new: 'new',
  worse: 'worse',
  reminder: 'reminder',
  ongoing: 'ongoing',
  cleared: 'cleared',
  silenced: 'silenced',
};

function pairLine(pair: ClassifiedPair): string {
  const where = `${slackCode(pair.isp, MAX_ISP_CHARS)} on ${slackCode(pair.domainUrl, MAX_URL_CHARS)}`;
  if (pair.class === 'cleared') {
    const caveat = pair.mayStillBeDepressed
      ? ' *may still be depressed*: the 7-day comparison day is now inside the drop'
      : '';
    return `• cleared: ${where}, first seen ${pair.firstSeen}${caveat}`;
  }
  const clicks = clicksOf(pair);
  const figures = clicks
    ? `: ${formatCount(clicks.yesterday)} clicks yesterday vs ${formatCount(clicks.d7)} / ${formatCount(clicks.d14)} / ${formatCount(clicks.d30)} (7 / 14 / 30 days back)`
    : '';
  return `• ${pair.severity === 'critical' ? '*critical*' : 'warning'} ${CLASS_WORD[pair.class]}: ${where} ${formatPercent(-pair.dropPercent)}${figures}, first seen ${pair.firstSeen}`;
}
