import { runSignificance } from './runs.js';
import type { ClassifiedDrop, ClassifiedPair, Variation } from './types.js';

/**
 * Why a pair is in the e-mail and how strong the evidence is, in words a person reads: the
 * renderer shows these as they are (src/notify/render/alert.ts). Pure; docs/alert-quality.md
 * explains the figure.
 *
 * A drop is measured against the pair's normal day-to-day variation: the network's own, learned
 * from its days (monitor/variation.ts), and chance, which moves a small pair more. Said as a
 * typical dip ("about 17% from day to day") and the drop as so many such dips in a row: on the
 * ratio scale the rule works on, a drop to a third is as deep as six dips of 17% one after
 * another (0.83^6 = 0.33), and that count is the drop in standard deviations of the variation
 * (against 7 days back; the z beside it is the weaker of both weeks, with chance's correction
 * for small counts).
 */

export interface PairEvidence {
  /** The drop in standard deviations of day-to-day noise (significanceOf), one decimal. */
  z: number;
  /** How strong that is, in words. */
  strength: string;
  /** Why the pair is here beyond today's numbers: its listed run, when it has one. */
  reason?: string;
  /** The pair's normal variation and the drop measured by it, in words; absent: not known. */
  measure?: string;
  /** One line: strength, z, measure and reason together. */
  line: string;
}

/** Shown once under the pairs, so "z" never stands unexplained. */
export const EVIDENCE_LEGEND =
  'z: how many standard deviations of normal day-to-day variation the drop is: the variation this network shows, learned from its days, and chance, which moves small counts more; against the same weekday 7 and 14 days back, the weaker of the two. alerts.minSignificance sets where alerting starts.';

/** Strength bands, strongest first. */
const BANDS: ReadonlyArray<readonly [number, string]> = [
  [10, 'far beyond normal day-to-day variation'],
  [5, 'well beyond normal day-to-day variation'],
  [3, 'beyond normal day-to-day variation'],
  [2, 'at the edge of normal day-to-day variation'],
];

export function strengthOf(z: number): string {
  for (const [min, words] of BANDS) if (z >= min) return words;
  return 'within normal day-to-day variation';
}

/** "-31%": a drop shown as a signed whole percent. */
function minusPercent(dropPercent: number): string {
  const rounded = Math.round(dropPercent);
  return rounded === 0 ? '0%' : `${rounded > 0 ? '-' : '+'}${Math.abs(rounded)}%`;
}

/**
 * A run of up to 7 days began after the day 7 back, so today's drop against that day is the
 * whole decline so far ("in total"); a longer run has its comparison day inside it.
 */
export function runReason(pair: Pick<ClassifiedPair, 'run' | 'dropPercent'>): string | undefined {
  const run = pair.run;
  if (run === undefined || run.days < 2) return undefined;
  if (run.days <= 7)
    return `down ${run.days} days running, ${minusPercent(pair.dropPercent)} in total`;
  return `down ${run.days} days running`;
}

/** "about 17%": a day's typical dip for a standard deviation `sd` of the log ratio of two days. */
export function typicalDipPercent(sd: number): number {
  return (1 - Math.exp(-sd)) * 100;
}

/**
 * The pair's normal day-to-day variation and its drop measured by it, in words: the spread of
 * its clicks between yesterday and 7 days back (the network's learned variation on both days,
 * and chance at its counts), as a typical dip, and the drop (beyond its domain's common move,
 * when it was judged against one) as that many dips in a row. Undefined without today's clicks
 * or a learned variation, or for no drop.
 */
export function measureOf(
  pair: Pick<ClassifiedPair, 'entry' | 'figures' | 'commonShare'>,
  variation: Pick<Variation, 'extra' | 'days'> | undefined,
): string | undefined {
  if (variation === undefined) return undefined;
  const clicks = pair.figures?.clicks ?? entryClicks(pair);
  if (clicks === undefined) return undefined;
  const share = pair.commonShare ?? 1;
  const base = clicks.d7 * share;
  const log = Math.log((base + 0.5) / (clicks.yesterday + 0.5));
  if (!(log > 0)) return undefined;
  const chance = 1 / (base + 0.5) + 1 / (clicks.yesterday + 0.5);
  const own = 2 * variation.extra;
  const sd = Math.sqrt(own + chance);
  const dip = Math.round(typicalDipPercent(sd));
  const times = log / sd;
  const what =
    chance > own
      ? `chance at ${Math.round(clicks.d7)} clicks a day moves this pair about ${dip}% from day to day${own > 0 ? " (with the network's own variation)" : ''}`
      : `this network's clicks vary about ${dip}% from day to day${chance > own / 4 ? " at this pair's size" : ''} (learned over ${Math.round(variation.days)} days)`;
  const drop =
    share < 1
      ? `beyond its domain's common drop of ${Math.round((1 - share) * 100)}%, this drop is`
      : 'this drop is';
  return `${what}; ${drop} as deep as ${countInWords(times)} such ${times >= 0.95 && times < 1.05 ? 'dip' : 'dips'} in a row`;
}

function entryClicks(
  pair: Pick<ClassifiedPair, 'entry'>,
): { yesterday: number; d7: number } | undefined {
  const entry = pair.entry;
  return entry === undefined
    ? undefined
    : { yesterday: entry.yesterday_total_clicks, d7: entry.seven_days_ago_total_clicks };
}

/** "six", "1.5", "more than 20": how many typical dips a drop is as deep as. */
export function countInWords(count: number): string {
  if (count > 20) return 'more than 20';
  if (count < 1.95) return (Math.round(count * 10) / 10).toString();
  const whole = Math.round(count);
  return WORDS[whole] ?? String(whole);
}

const WORDS: Readonly<Record<number, string>> = {
  2: 'two',
  3: 'three',
  4: 'four',
  5: 'five',
  6: 'six',
  7: 'seven',
  8: 'eight',
  9: 'nine',
  10: 'ten',
};

export function evidenceOf(
  pair: Pick<
    ClassifiedPair,
    'significance' | 'dropPercent' | 'run' | 'steady' | 'entry' | 'figures' | 'commonShare'
  >,
  variation?: Pick<Variation, 'extra' | 'days'>,
): PairEvidence {
  const z = round1(pair.significance);
  const reason = runReason(pair);
  const measure = measureOf(pair, variation);
  const tail = `${measure ? `; ${measure}` : ''}${reason ? `; ${reason}` : ''}`;
  const extras = { ...(reason === undefined ? {} : { reason }), ...(measure ? { measure } : {}) };
  if (pair.steady && pair.run !== undefined) {
    // Alerted on the run's days together: say so, and what yesterday alone would have said.
    const together = round1(runSignificance(pair.run, variation?.extra ?? 0));
    const strength = `${strengthOf(together)} over ${pair.run.days} days in a row`;
    const line = `${capitalise(strength)} (z ${together.toFixed(1)}; yesterday alone z ${z.toFixed(1)})${tail}.`;
    return { z, strength, ...extras, line };
  }
  const strength = strengthOf(pair.significance);
  const line = `${capitalise(strength)} (z ${z.toFixed(1)})${tail}.`;
  return { z, strength, ...extras, line };
}

/**
 * A common drop's headline: what moved, how deep, on how many ISPs, and what it likely is. A
 * network drop is a dip of everything (a holiday, a tracking outage, a large partner pausing);
 * a domain drop is the domain itself (a campaign that ended, a blocklist, its DNS or
 * certificate), not one ISP filtering it.
 */
export function dropHeadline(drop: ClassifiedDrop, domainName: string): string {
  const depth = `about ${Math.round(drop.dropPercent)}%`;
  const isps = `${drop.ispsDown} of the ${drop.ispsKnown} ISPs it has shown`;
  const worse = drop.class === 'worse' ? ' It has dropped further since the last e-mail.' : '';
  const still = drop.class === 'reminder' ? ' It is still down.' : '';
  if (drop.scope === 'network') {
    const domains =
      drop.domainsDown !== undefined && drop.domainsKnown !== undefined
        ? `${drop.domainsDown} of ${drop.domainsKnown} domains`
        : 'its domains';
    return `The whole network is down ${depth} against the same weekday a week ago, on ${domains} and nearly every ISP together: a network-wide dip (a holiday, a tracking outage, a large partner pausing), not ISP filtering. Each ISP is judged against that dip; none is listed for it.${worse}${still}`;
  }
  return `${domainName} is down ${depth} against the same weekday a week ago, on ${isps}, together: the domain itself (a campaign that ended, a blocklist, its DNS or certificate), not one ISP filtering it. Its ISPs are judged against that drop; none is listed for it.${worse}${still}`;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function capitalise(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}
