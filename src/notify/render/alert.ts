import type {
  ClassifiedDrop,
  ClassifiedPair,
  Classification,
  DomainRollup,
  InvoiceChange,
  InvoiceSnapshot,
  IsoDate,
  PairClass,
  PairFigures,
  Variation,
} from '../../monitor/types.js';
import { DECLINING_CLASSES, isDecliningClass } from '../../monitor/types.js';
import { dropHeadline, EVIDENCE_LEGEND, evidenceOf } from './evidence.js';
import { EMAILED_DROP_CLASSES } from '../../monitor/common-drops.js';
import { pairFigures } from '../../monitor/figures.js';
import type { RenderedEmail } from '../types.js';
import {
  dayBefore,
  displayText,
  formatCount,
  formatMoney,
  formatPercent,
  headerValue,
  MAX_ISP_CHARS,
  MAX_NAME_CHARS,
  MAX_URL_CHARS,
  percentChange,
  plural,
  shellQuote,
} from './format.js';
import {
  badge,
  callout,
  barChart,
  code,
  codeBlock,
  COLORS,
  esc,
  FONT,
  heading,
  composeEmail,
  keepWords,
  linkOrText,
  paragraph,
  prose,
  stackedList,
  stackingGrid,
} from './html.js';
import { invoiceSummaryHtml, invoiceSummaryText } from './invoice.js';
import { topK } from './top-k.js';
import { emptyClassCounts } from '../../monitor/classify.js';

/**
 * The alert digest: one e-mail per network per run, carrying the pairs of the e-mailed classes
 * (new, worse, reminder; cleared with notifyCleared). Its job is to let a person decide, per
 * tracking domain, "one ISP is filtering this domain" or "the whole domain is in trouble", so
 * pairs are grouped by domain, worst domain first, and a domain with many ISPs declining
 * together gets a headline of its own.
 *
 * Bounded: a run with 10,000 pairs lists at most `maxPairsListed` declining pairs (and as many
 * cleared ones), at most `maxPairsPerDomain` per domain, and summarises the rest by count.
 */
export interface AlertEmailInput {
  network: { id: string; name: string };
  asOf: IsoDate;
  classification: Classification;
  /** alerts.notifyCleared: whether cleared pairs are e-mailed. */
  notifyCleared: boolean;
  /** The network's latest invoice snapshot, when there is one. */
  latestInvoice?: { snapshot: InvoiceSnapshot; change?: InvoiceChange };
  /** Declining pairs listed in full; cleared pairs get half as many. @defaultValue 40 */
  maxPairsListed?: number;
  /** Pairs listed per domain; a blocked domain's 300 ISPs should not hide the next domain. @defaultValue 20 */
  maxPairsPerDomain?: number;
  /** Domains in the overview table at the top. @defaultValue 20 */
  maxDomainsInOverview?: number;
}

/*
 * 40 declining pairs (and up to 20 cleared) keep the HTML well under Gmail's ~102 KB clipping
 * point with a pair card of about 1.5 KB (bar chart included), and are as much as anyone
 * reads on a phone; `thm history` has the rest.
 */
export const DEFAULT_MAX_PAIRS_LISTED = 40;
export const DEFAULT_MAX_PAIRS_PER_DOMAIN = 20;
export const DEFAULT_MAX_DOMAINS_IN_OVERVIEW = 20;
/** The silence the e-mail suggests: long enough to matter, short enough to be noticed again. */
export const SUGGESTED_SILENCE = '7d';
/**
 * A network-wide drop is silenced only by silencing everything (every pair too): a day, for a
 * known outage, not a week of deafness.
 */
export const SUGGESTED_NETWORK_SILENCE = '1d';

const MAX_SILENCE_ISP_CHARS = 120;

interface DomainGroup {
  domainId: number;
  domainUrl: string;
  rollup: DomainRollup | undefined;
  /** The worst of its e-mailed declining pairs, worst first: as many as the e-mail can list. */
  pairs: ClassifiedPair[];
  /** All its e-mailed declining pairs. */
  pairCount: number;
  clicksLost: number;
  baselineClicks: number;
  ispsAffected: number;
}

/**
 * Returns undefined when no e-mailed class has a pair or a common drop: then no e-mail is sent.
 */
export function renderAlertEmail(input: AlertEmailInput): RenderedEmail | undefined {
  const maxListed = Math.max(1, input.maxPairsListed ?? DEFAULT_MAX_PAIRS_LISTED);
  const perDomain = Math.max(1, input.maxPairsPerDomain ?? DEFAULT_MAX_PAIRS_PER_DOMAIN);
  const maxOverview = Math.max(1, input.maxDomainsInOverview ?? DEFAULT_MAX_DOMAINS_IN_OVERVIEW);

  const content = alertContent(input);
  if (content === undefined) return undefined;
  const { counts, byDomain, cleared, drops } = content;
  const groups = groupDomains(
    byDomain,
    input.classification.domains,
    Math.min(perDomain, maxListed),
  );
  const ctx: RenderContext = {
    networkId: input.network.id,
    networkName: networkNameOf(input),
    asOf: input.asOf,
    trendDay: dayBefore(input.asOf),
    variation: input.classification.variation,
  };

  const subject = alertSubject(ctx.networkName, input.asOf, counts, input.notifyCleared, drops);
  const summary = summaryLine(counts, input.notifyCleared, drops);
  const headlines = groups.filter((g) => g.rollup?.headline);

  const html: string[] = [];
  const text: string[] = [];

  // Top: what this is, the counts, and the per-domain reading.
  html.push(
    `<h1 style="${FONT}font-size:20px;color:${COLORS.text};margin:0 0 4px 0;">${esc(ctx.networkName)}: traffic health</h1>`,
    paragraph(
      `Clicks on ${esc(ctx.trendDay)} (as-of ${esc(ctx.asOf)}) compared with 7, 14 and 30 days before. <strong>${esc(summary)}</strong>`,
      `color:${COLORS.muted};`,
    ),
  );
  text.push(
    `${ctx.networkName}: traffic health`,
    `Clicks on ${ctx.trendDay} (as-of ${ctx.asOf}) compared with 7, 14 and 30 days before.`,
    summary,
    '',
  );
  for (const drop of drops) {
    const name =
      drop.scope === 'network'
        ? ctx.networkName
        : displayText(drop.domainUrl, MAX_URL_CHARS) || `domain ${drop.domainId}`;
    const line = dropHeadline(drop, name);
    html.push(callout(`<strong>${esc(line)}</strong>`, COLORS.critical, COLORS.criticalBg));
    text.push(`!! ${line}`, '');
  }
  if (headlines.length > 0) {
    const names = headlines.slice(0, 3).map((g) => displayText(g.domainUrl, MAX_URL_CHARS));
    const more = headlines.length > 3 ? ` and ${headlines.length - 3} more` : '';
    const line = `${plural(headlines.length, 'domain')} look${headlines.length === 1 ? 's' : ''} blocked: ${names.join(', ')}${more}. Many ISPs are declining on ${headlines.length === 1 ? 'it' : 'each'} at once.`;
    html.push(callout(`<strong>${esc(line)}</strong>`, COLORS.critical, COLORS.criticalBg));
    text.push(`!! ${line}`, '');
  }

  if (groups.length > 0) {
    renderOverview(groups, maxOverview, html, text);
    renderDomains(groups, ctx, maxListed, perDomain, html, text);
  }
  const clearedListed =
    cleared.length > 0
      ? renderCleared(cleared, Math.max(1, Math.ceil(maxListed / 2)), html, text)
      : [];
  renderOthers(counts, html, text);
  if (input.latestInvoice) {
    html.push(heading('Latest invoice summary'));
    const { snapshot, change } = input.latestInvoice;
    html.push(invoiceSummaryHtml(snapshot, change, input.asOf));
    text.push('LATEST INVOICE SUMMARY', ...invoiceSummaryText(snapshot, change, input.asOf), '');
  }
  renderSilenceHelp(groups, drops, clearedListed[0], ctx, html, text);

  const footer = `Traffic Health Monitor, network ${ctx.networkId}, as-of ${ctx.asOf}. You receive this as a recipient of this network in the monitor's configuration.`;
  const preheader =
    headlines.length > 0
      ? `${summary} ${plural(headlines.length, 'domain')} look${headlines.length === 1 ? 's' : ''} blocked.`
      : summary;
  return composeEmail({ subject, preheader, bodyHtml: html.join(''), footer, textLines: text });
}

/**
 * The subject renderAlertEmail gives this alert, undefined when it sends none, without the
 * body: all `thm replay` shows of a day's alert (a replay of months would render every
 * e-mail's HTML to throw it away).
 */
export function renderAlertSubject(input: AlertEmailInput): string | undefined {
  const content = alertContent(input);
  return content === undefined
    ? undefined
    : alertSubject(
        networkNameOf(input),
        input.asOf,
        content.counts,
        input.notifyCleared,
        content.drops,
      );
}

/** What an alert e-mail is made of; undefined when it has nothing to say (none is sent). */
interface AlertContent {
  counts: Record<PairClass, number>;
  /** Its declining pairs, by domain. */
  byDomain: Map<number, ClassifiedPair[]>;
  /** Its cleared pairs (none unless notifyCleared). */
  cleared: ClassifiedPair[];
  /** The run's common drops that are news, the network's first. */
  drops: ClassifiedDrop[];
}

function alertContent(input: AlertEmailInput): AlertContent | undefined {
  // One pass: counts (from the pairs themselves, so the subject always matches the body),
  // declining pairs grouped by domain, cleared pairs. Ongoing pairs are only counted: a run
  // leaves them out of `pairs` (ClassifyInput.listOngoing), so their count is the run's.
  const counts = emptyClassCounts();
  counts.ongoing = input.classification.counts.ongoing;
  const byDomain = new Map<number, ClassifiedPair[]>();
  const cleared: ClassifiedPair[] = [];
  // Indexed: this runs once a check, too seldom for V8 to optimise away for...of's result
  // object per pair, megabytes of garbage at the largest networks.
  const pairs = input.classification.pairs;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    if (pair.class !== 'ongoing') counts[pair.class] += 1;
    if (isDecliningClass(pair.class)) {
      const list = byDomain.get(pair.domainId);
      if (list) list.push(pair);
      else byDomain.set(pair.domainId, [pair]);
    } else if (pair.class === 'cleared' && input.notifyCleared) {
      cleared.push(pair);
    }
  }
  const declining = DECLINING_CLASSES.reduce((sum, c) => sum + counts[c], 0);
  // The common drops of the run that are news (monitor/common-drops.ts), the network's first.
  const drops = (input.classification.drops ?? []).filter((d) =>
    EMAILED_DROP_CLASSES.includes(d.class),
  );
  if (declining === 0 && cleared.length === 0 && drops.length === 0) return undefined;
  return { counts, byDomain, cleared, drops };
}

/** The network's name as the e-mail shows it (its id when the name shows nothing). */
function networkNameOf(input: Pick<AlertEmailInput, 'network'>): string {
  return displayText(input.network.name, MAX_NAME_CHARS) || input.network.id;
}

interface RenderContext {
  networkId: string;
  networkName: string;
  asOf: IsoDate;
  trendDay: IsoDate;
  /** The network's variation the run judged by (the evidence lines measure drops by it). */
  variation?: Variation;
}

/** `[Traffic Health] Acme Network: 3 new, 1 worse, 2 reminders, 2 cleared (2026-11-21)` */
export function alertSubject(
  networkName: string,
  asOf: IsoDate,
  counts: Record<PairClass, number>,
  notifyCleared: boolean,
  drops: readonly ClassifiedDrop[] = [],
): string {
  const parts = newsParts(counts, notifyCleared, drops);
  // The name is cut first so the counts and the date always survive.
  const name = headerValue(networkName, MAX_NAME_CHARS);
  return headerValue(`[Traffic Health] ${name}: ${parts.join(', ')} (${headerValue(asOf, 20)})`);
}

/**
 * "network down 35%, 3 new, 1 worse, 2 reminders": what the e-mail brings, as the subject and
 * the summary line both say it, the common drops first.
 */
function newsParts(
  counts: Record<PairClass, number>,
  notifyCleared: boolean,
  drops: readonly ClassifiedDrop[],
): string[] {
  const parts = dropParts(drops);
  if (counts.new > 0) parts.push(`${formatCount(counts.new)} new`);
  if (counts.worse > 0) parts.push(`${formatCount(counts.worse)} worse`);
  if (counts.reminder > 0) parts.push(plural(counts.reminder, 'reminder'));
  if (notifyCleared && counts.cleared > 0) parts.push(`${formatCount(counts.cleared)} cleared`);
  return parts;
}

/** "network down 35%", "2 domains down": the common drops of a run. */
function dropParts(drops: readonly ClassifiedDrop[]): string[] {
  const parts: string[] = [];
  const network = drops.find((d) => d.scope === 'network');
  if (network) parts.push(`network down ${Math.round(network.dropPercent)}%`);
  const domains = drops.filter((d) => d.scope === 'domain');
  if (domains.length === 1) parts.push(`1 domain down ${Math.round(domains[0]!.dropPercent)}%`);
  else if (domains.length > 1) parts.push(`${formatCount(domains.length)} domains down`);
  return parts;
}

function summaryLine(
  counts: Record<PairClass, number>,
  notifyCleared: boolean,
  drops: readonly ClassifiedDrop[] = [],
): string {
  const parts = newsParts(counts, notifyCleared, drops);
  const quiet: string[] = [];
  if (counts.ongoing > 0) quiet.push(`${formatCount(counts.ongoing)} ongoing`);
  if (counts.silenced > 0) quiet.push(`${formatCount(counts.silenced)} silenced`);
  return `${parts.join(', ')}.${quiet.length > 0 ? ` Not repeated here: ${quiet.join(', ')}.` : ''}`;
}

/** The numbers a listed pair shows: given, or derived from today's API entry. */
function figuresOf(pair: ClassifiedPair): PairFigures | undefined {
  return pair.figures ?? (pair.entry ? pairFigures(pair.entry) : undefined);
}

/**
 * Clicks 7 days back and yesterday, read in place: these run for every pair, several times
 * per pair while sorting 10,000 of them, so they neither build the figures nor allocate.
 */
function baselineClicksOf(pair: ClassifiedPair): number {
  if (pair.figures) return pair.figures.clicks.d7;
  return pair.entry ? pair.entry.seven_days_ago_total_clicks : 0;
}

function clicksLostOf(pair: ClassifiedPair): number {
  if (pair.figures) return Math.max(0, pair.figures.clicks.d7 - pair.figures.clicks.yesterday);
  if (pair.entry) {
    return Math.max(0, pair.entry.seven_days_ago_total_clicks - pair.entry.yesterday_total_clicks);
  }
  return 0;
}

/** Critical first, then most clicks lost, then by ISP. */
function comparePairs(a: ClassifiedPair, b: ClassifiedPair): number {
  if (a.severity !== b.severity) return a.severity === 'critical' ? -1 : 1;
  const lost = clicksLostOf(b) - clicksLostOf(a);
  if (lost !== 0) return lost;
  return a.isp < b.isp ? -1 : a.isp > b.isp ? 1 : 0;
}

/** Domains worst first by clicks lost (the rollup's figure, else the sum over its pairs). */
function groupDomains(
  byDomain: Map<number, ClassifiedPair[]>,
  rollups: DomainRollup[],
  listable: number,
): DomainGroup[] {
  const rollupById = new Map<number, DomainRollup>();
  for (const rollup of rollups) rollupById.set(rollup.domainId, rollup);
  const groups: DomainGroup[] = [];
  for (const [domainId, all] of byDomain) {
    const pairs = topK(all, listable, comparePairs);
    const rollup = rollupById.get(domainId);
    let lost = 0;
    let baseline = 0;
    if (!rollup) {
      for (const pair of all) {
        lost += clicksLostOf(pair);
        baseline += baselineClicksOf(pair);
      }
    }
    groups.push({
      domainId,
      domainUrl: rollup?.domainUrl || pairs[0]?.domainUrl || `domain ${domainId}`,
      rollup,
      pairs,
      pairCount: all.length,
      clicksLost: rollup?.clicksLost ?? lost,
      baselineClicks: rollup?.baselineClicks ?? baseline,
      ispsAffected: rollup?.ispsAffected ?? all.length,
    });
  }
  groups.sort((a, b) => b.clicksLost - a.clicksLost || a.domainId - b.domainId);
  return groups;
}

/** The sentence that answers "one ISP filtering, or the whole domain?". */
function domainReading(group: DomainGroup): { short: string; long: string; blocked: boolean } {
  const isps = group.ispsAffected;
  const drop = formatPercent(
    percentChange(group.baselineClicks, group.baselineClicks - group.clicksLost),
  );
  const volume = `${formatCount(group.clicksLost)} clicks lost (${formatCount(group.baselineClicks - group.clicksLost)} yesterday vs ${formatCount(group.baselineClicks)} seven days back, ${drop})`;
  if (group.rollup?.headline) {
    return {
      blocked: true,
      short: `Looks blocked: ${formatCount(isps)} ISPs together`,
      long: `This domain looks blocked: ${formatCount(isps)} ISPs are declining on it together, ${volume}. When many ISPs drop at once the trouble is usually the domain itself (a blocklist, DNS, its certificate, a takedown), not one ISP's filtering: check the domain first.`,
    };
  }
  if (isps <= 1) {
    const isp = group.pairs[0] ? displayText(group.pairs[0].isp, MAX_ISP_CHARS) : 'one ISP';
    return {
      blocked: false,
      short: 'One ISP: likely that ISP filtering',
      long: `Only one ISP (${isp}) is declining on this domain: that looks like that ISP filtering the domain, not the domain in trouble. ${capitalise(volume)}.`,
    };
  }
  return {
    blocked: false,
    short: `${formatCount(isps)} ISPs, not the whole domain`,
    long: `${formatCount(isps)} ISPs are declining on this domain, not enough together to call the domain blocked: more likely those ISPs filtering it. ${capitalise(volume)}.`,
  };
}

function capitalise(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}

function renderOverview(groups: DomainGroup[], max: number, html: string[], text: string[]): void {
  // A list, not a four-column table: the columns squeezed a phone's width into broken words.
  const rows: string[] = [];
  text.push('DOMAINS, WORST FIRST');
  for (const group of groups.slice(0, max)) {
    const url = displayText(group.domainUrl, MAX_URL_CHARS);
    const reading = domainReading(group);
    const color = reading.blocked ? COLORS.critical : COLORS.text;
    const figures = `${plural(group.ispsAffected, 'ISP')} declining, ${formatCount(group.clicksLost)} clicks lost`;
    rows.push(
      `${linkOrText(group.domainUrl, url)} <span style="color:${COLORS.muted};font-size:11px;">domain ${group.domainId}</span><br><span style="color:${color};${reading.blocked ? 'font-weight:bold;' : ''}">${esc(reading.short)}</span>: ${esc(figures)}`,
    );
    text.push(`  ${url} (domain ${group.domainId}): ${figures}. ${reading.short}.`);
  }
  if (groups.length > max) {
    const rest = groups.length - max;
    rows.push(`<em>and ${esc(plural(rest, 'more domain'))}</em>`);
    text.push(`  and ${plural(rest, 'more domain')}`);
  }
  html.push(heading('Domains, worst first'), stackedList(rows));
  text.push('');
}

/**
 * One listed pair as a card: ISP and severity (in words and colour) on the first line, then
 * a bar chart of clicks yesterday against 7, 14 and 30 days back (with the percent change of
 * yesterday against each), then conversions, revenue and the date first seen. Two cards to a
 * row on a desktop, one on a phone (stackingGrid): the nine-column table it replaces made
 * every phone scroll sideways. About 1.3 KB a card, hence DEFAULT_MAX_PAIRS_LISTED.
 */
const PAIR_CARD_WIDTH = 358;
const PAIR_CARD_GUTTER = 16;

function severityColor(pair: ClassifiedPair): string {
  return pair.severity === 'critical' ? COLORS.critical : COLORS.warning;
}

function severityBadge(pair: ClassifiedPair): string {
  return badge(pair.severity === 'critical' ? 'CRITICAL' : 'WARNING', severityColor(pair));
}

/** A drop in the critical colour; a rise, no change or n/a as plain text. */
function percentHtml(value: number | null | undefined): string {
  const text = formatPercent(value);
  return value !== null && value !== undefined && value < 0
    ? `<span style="color:${COLORS.critical};">${text}</span>`
    : text;
}

const MUTED_DIV = `<div style="font-size:12px;color:${COLORS.muted};">`;

function pairCardHtml(pair: ClassifiedPair, variation: Variation | undefined): string {
  const color = severityColor(pair);
  const isp = keepWords(displayText(pair.isp, MAX_ISP_CHARS));
  const head = `<div style="border-top:3px solid ${color};padding-top:5px;font-size:13px;"><strong>${isp}</strong> ${severityBadge(pair)} ${pair.class}</div>`;
  const firstSeen = `${esc(evidenceOf(pair, variation).line)}<br>First seen ${esc(pair.firstSeen)}`;
  const f = figuresOf(pair);
  if (!f) {
    return `${head}${MUTED_DIV}Last drop ${formatPercent(-pair.dropPercent)} vs 7 days back<br>${firstSeen}</div>`;
  }
  const chart = barChart([
    {
      label: 'Yesterday',
      value: f.clicks.yesterday,
      color,
      valueHtml: `<strong>${formatCount(f.clicks.yesterday)}</strong>`,
    },
    ...(['d7', 'd14', 'd30'] as const).map((day) => ({
      label: `${day.slice(1)} days back`,
      value: f.clicks[day],
      color: COLORS.bar,
      valueHtml: `${formatCount(f.clicks[day])} ${percentHtml(f.clickTrend[day])}`,
    })),
  ]);
  const conversions = `Conversions ${formatCount(f.conversions.yesterday)} vs ${formatCount(f.conversions.d7)} ${percentHtml(f.conversionTrend.d7)}`;
  const revenue = `Revenue ${formatMoney(f.revenue.yesterday)} vs ${formatMoney(f.revenue.d7)} ${percentHtml(f.revenueTrend.d7)}`;
  return `${head}${chart}${MUTED_DIV}${conversions}<br>${revenue}<br>${firstSeen}</div>`;
}

function pairLinesText(pair: ClassifiedPair, variation: Variation | undefined): string[] {
  const isp = displayText(pair.isp, MAX_ISP_CHARS);
  const head = `  - ${isp} [${pair.severity.toUpperCase()}, ${pair.class}] first seen ${pair.firstSeen}`;
  const evidence = `      ${evidenceOf(pair, variation).line}`;
  const f = figuresOf(pair);
  if (!f)
    return [head, evidence, `      last drop ${formatPercent(-pair.dropPercent)} vs 7 days back`];
  return [
    head,
    evidence,
    `      clicks yesterday ${formatCount(f.clicks.yesterday)} | 7d back ${formatCount(f.clicks.d7)} (${formatPercent(f.clickTrend.d7)}) | 14d back ${formatCount(f.clicks.d14)} (${formatPercent(f.clickTrend.d14)}) | 30d back ${formatCount(f.clicks.d30)} (${formatPercent(f.clickTrend.d30)})`,
    `      conversions ${formatCount(f.conversions.yesterday)} vs ${formatCount(f.conversions.d7)} (${formatPercent(f.conversionTrend.d7)}) | revenue ${formatMoney(f.revenue.yesterday)} vs ${formatMoney(f.revenue.d7)} (${formatPercent(f.revenueTrend.d7)})`,
  ];
}

export function silenceCommand(
  networkId: string,
  domainId: number,
  isp: string | undefined,
): string {
  // A silence matches the ISP exactly as sent, or as a glob: an absurdly long name becomes a
  // prefix glob that still matches it, so the line stays pasteable.
  const pattern =
    isp !== undefined && isp.length > MAX_SILENCE_ISP_CHARS
      ? `${Array.from(isp).slice(0, 100).join('')}*`
      : isp;
  const ispPart = pattern === undefined ? '' : ` --isp ${shellQuote(pattern)}`;
  // Network ids are config slugs; quoted anyway if one ever is not.
  const network = /^[a-z0-9_-]+$/.test(networkId) ? networkId : shellQuote(networkId);
  // No placeholder reason: one pasted as it was got stored as '...'. Without --reason the
  // command asks for one.
  return `thm silence add --network ${network} --domain ${domainId}${ispPart} --for ${SUGGESTED_SILENCE}`;
}

/**
 * The command that silences a common drop: its domain whole, or, for the network, everything
 * (a silence of every ISP on every domain is what holds a network drop: monitor/silences.ts).
 */
export function dropSilenceCommand(
  networkId: string,
  drop: Pick<ClassifiedDrop, 'scope' | 'domainId'>,
): string {
  if (drop.scope === 'domain') return silenceCommand(networkId, drop.domainId, undefined);
  const network = /^[a-z0-9_-]+$/.test(networkId) ? networkId : shellQuote(networkId);
  return `thm silence add --network ${network} --isp ${shellQuote('*')} --for ${SUGGESTED_NETWORK_SILENCE}`;
}

/** "Silence the whole domain go.example.com", said before a drop's silence command. */
function dropSilenceLabel(drop: ClassifiedDrop): string {
  if (drop.scope === 'network')
    return 'Silence the network-wide drop for a day (this silences every pair of the network too)';
  const url = displayText(drop.domainUrl, MAX_URL_CHARS) || `domain ${drop.domainId}`;
  return `Silence the drop of ${url} (the whole domain)`;
}

function renderDomains(
  groups: DomainGroup[],
  ctx: RenderContext,
  maxListed: number,
  perDomain: number,
  html: string[],
  text: string[],
): void {
  let budget = maxListed;
  let domainsListed = 0;
  for (const group of groups) {
    if (budget <= 0) break;
    domainsListed += 1;
    const url = displayText(group.domainUrl, MAX_URL_CHARS);
    const reading = domainReading(group);
    const shown = group.pairs.slice(0, Math.min(perDomain, budget));
    budget -= shown.length;

    html.push(
      `<h2 style="${FONT}font-size:17px;color:${COLORS.text};margin:28px 0 6px 0;">${linkOrText(group.domainUrl, url)} <span style="font-size:12px;font-weight:normal;color:${COLORS.muted};">domain ${group.domainId}</span></h2>`,
    );
    text.push(`== ${url} (domain ${group.domainId}) ==`);
    if (reading.blocked) {
      html.push(
        callout(`<strong>${esc(reading.long)}</strong>`, COLORS.critical, COLORS.criticalBg),
      );
      text.push(`LOOKS BLOCKED. ${reading.long}`);
    } else {
      html.push(paragraph(esc(reading.long)));
      text.push(reading.long);
    }
    html.push(
      stackingGrid(
        shown.map((pair) => pairCardHtml(pair, ctx.variation)),
        PAIR_CARD_WIDTH,
        2,
        PAIR_CARD_GUTTER,
      ),
    );
    for (const pair of shown) text.push(...pairLinesText(pair, ctx.variation));
    const hidden = group.pairCount - shown.length;
    const quiet = Math.max(0, group.ispsAffected - group.pairCount);
    const notes: string[] = [];
    if (hidden > 0)
      notes.push(`and ${plural(hidden, 'more ISP')} declining on this domain, not listed.`);
    if (quiet > 0) {
      notes.push(
        `${plural(quiet, 'more ISP')} of this domain ${quiet === 1 ? 'is' : 'are'} declining too, already reported (ongoing) or silenced.`,
      );
    }
    for (const line of notes) {
      html.push(paragraph(`<em>${esc(line)}</em>`, `color:${COLORS.muted};font-size:13px;`));
      text.push(`  ${line}`);
    }
    const top = shown[0];
    const command = reading.blocked
      ? silenceCommand(ctx.networkId, group.domainId, undefined)
      : silenceCommand(ctx.networkId, group.domainId, top?.isp);
    const what = reading.blocked
      ? 'the whole domain'
      : `${displayText(top?.isp ?? '', MAX_ISP_CHARS)} on this domain`;
    html.push(
      paragraph(
        `<span style="font-size:12px;color:${COLORS.muted};">Silence ${esc(what)}:</span><br>${code(command)}`,
      ),
    );
    text.push(`  Silence ${what}:`, `    ${command}`, '');
  }
  if (domainsListed > 0) {
    html.push(paragraph(esc(EVIDENCE_LEGEND), `color:${COLORS.muted};font-size:12px;`));
    text.push(EVIDENCE_LEGEND, '');
  }
  const restDomains = groups.length - domainsListed;
  let restPairs = 0;
  for (const group of groups.slice(domainsListed)) restPairs += group.pairCount;
  if (restDomains > 0) {
    const line = `and ${plural(restPairs, 'more declining pair')} on ${plural(restDomains, 'more domain')}, not listed (this e-mail lists at most ${formatCount(maxListed)}). \`thm history --network ${ctx.networkId}\` shows them all.`;
    html.push(paragraph(`<em>${prose(line)}</em>`, `color:${COLORS.muted};`));
    text.push(line, '');
  }
}

/** Returns the cleared pairs it listed, in their order. */
function renderCleared(
  cleared: ClassifiedPair[],
  maxListed: number,
  html: string[],
  text: string[],
): ClassifiedPair[] {
  // The ones that may still be depressed first: they are the ones a person must look at.
  const shown = topK(
    cleared,
    maxListed,
    (a, b) =>
      Number(Boolean(b.mayStillBeDepressed)) - Number(Boolean(a.mayStillBeDepressed)) ||
      a.domainId - b.domainId ||
      (a.isp < b.isp ? -1 : a.isp > b.isp ? 1 : 0),
  );
  const depressed = cleared.filter((p) => p.mayStillBeDepressed).length;
  html.push(heading(`Cleared (${formatCount(cleared.length)})`));
  text.push(`CLEARED (${formatCount(cleared.length)})`);
  const explain =
    'These pairs are no longer declining by the monitor\'s rules. "Cleared" does not mean "recovered": the API lists a pair only while yesterday is below each of the days 7, 14 and 30 back.';
  html.push(paragraph(esc(explain)));
  text.push(explain);
  if (depressed > 0) {
    const caveat = `${plural(depressed, 'pair')} may still be depressed, not healed: ${depressed === 1 ? 'it' : 'they'} stopped being listed about a week after first seen, with the last numbers still far under the baseline. Once the 7-day comparison day is itself inside the drop, the API stops listing a pair even if its traffic has not come back. Check these before treating them as fixed.`;
    html.push(callout(`<strong>${esc(caveat)}</strong>`, COLORS.warning, COLORS.warningBg));
    text.push(`!! ${caveat}`);
  }
  // One pair per row, its figures under its name: reads the same on a phone and a desktop.
  const rows = shown.map((pair) => {
    const url = displayText(pair.domainUrl, MAX_URL_CHARS);
    const note = pair.mayStillBeDepressed
      ? badge('MAY STILL BE DEPRESSED', COLORS.warning)
      : badge('CLEARED', COLORS.cleared);
    return `<strong>${keepWords(displayText(pair.isp, MAX_ISP_CHARS))}</strong> ${note}<br><span style="color:${COLORS.muted};">on ${linkOrText(pair.domainUrl, url)}, ${keepWords(`first seen ${pair.firstSeen}, last drop ${formatPercent(-pair.dropPercent)}`)}</span>`;
  });
  html.push(stackedList(rows));
  for (const pair of shown) {
    const note = pair.mayStillBeDepressed ? ' MAY STILL BE DEPRESSED' : '';
    text.push(
      `  - ${displayText(pair.domainUrl, MAX_URL_CHARS)} / ${displayText(pair.isp, MAX_ISP_CHARS)}: cleared, first seen ${pair.firstSeen}, last drop ${formatPercent(-pair.dropPercent)}.${note}`,
    );
  }
  if (cleared.length > shown.length) {
    const line = `and ${plural(cleared.length - shown.length, 'more cleared pair')}, not listed.`;
    html.push(paragraph(`<em>${esc(line)}</em>`, `color:${COLORS.muted};`));
    text.push(`  ${line}`);
  }
  text.push('');
  return shown;
}

function renderOthers(counts: Record<PairClass, number>, html: string[], text: string[]): void {
  if (counts.ongoing === 0 && counts.silenced === 0) return;
  const lines: string[] = [];
  if (counts.ongoing > 0) {
    lines.push(
      `Ongoing: ${plural(counts.ongoing, 'pair')} still active and already reported; not repeated until a reminder is due or it gets worse.`,
    );
  }
  if (counts.silenced > 0) {
    lines.push(
      `Silenced: ${plural(counts.silenced, 'pair')} matching a silence (\`thm silence list\`).`,
    );
  }
  html.push(heading('Not in this e-mail'));
  for (const line of lines) html.push(paragraph(prose(line)));
  text.push('NOT IN THIS E-MAIL', ...lines, '');
}

function renderSilenceHelp(
  groups: DomainGroup[],
  /** The common drops this e-mail tells: each gets its own line here. */
  drops: readonly ClassifiedDrop[],
  /** The first cleared pair listed, the example when no domain is. */
  firstCleared: ClassifiedPair | undefined,
  ctx: RenderContext,
  html: string[],
  text: string[],
): void {
  const bodyHtml: string[] = [];
  const bodyText: string[] = [];
  if (groups.length > 0) {
    // Each listed domain already carries its own line: not repeated here.
    const lead =
      'To stop e-mails about a pair for a while (it is still counted as silenced), run the "Silence" line under its domain above.';
    bodyHtml.push(paragraph(esc(lead)));
    bodyText.push(lead);
  } else if (firstCleared) {
    const lead =
      'To stop e-mails about a pair for a while (it is still counted as silenced), run for example:';
    const command = silenceCommand(ctx.networkId, firstCleared.domainId, firstCleared.isp);
    bodyHtml.push(paragraph(esc(lead)), codeBlock([command]));
    bodyText.push(lead, `  ${command}`);
  }
  for (const drop of drops) {
    const label = dropSilenceLabel(drop);
    const command = dropSilenceCommand(ctx.networkId, drop);
    bodyHtml.push(
      paragraph(
        `<span style="font-size:12px;color:${COLORS.muted};">${esc(label)}:</span><br>${code(command)}`,
      ),
    );
    bodyText.push(`${label}:`, `  ${command}`);
  }
  // Nothing to silence, no heading.
  if (bodyText.length === 0) return;
  const after =
    'Leave out --isp to silence a whole domain, or --domain to silence an ISP everywhere; --isp also takes globs (* and ?). `thm silence list` and `thm silence remove ID` manage them.';
  html.push(
    heading('Silencing'),
    ...bodyHtml,
    paragraph(prose(after), `color:${COLORS.muted};font-size:13px;`),
  );
  text.push('SILENCING', ...bodyText, after, '');
}
