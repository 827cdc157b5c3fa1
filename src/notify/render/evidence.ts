import { runDropPercent, runSignificance } from '../../monitor/runs.js';
import type { ClassifiedDrop, ClassifiedPair, ListedRun, Variation } from '../../monitor/types.js';
import { formatCount, plural } from './format.js';

/**
 * Why a pair is in the e-mail and how strong the drop is, in words a person reads: "this
 * network's clicks vary about 11% from day to day (learned over 40 days); this drop is six
 * times that." One phrasing for every card and channel; docs/alert-quality.md explains the
 * figure.
 *
 * "That" is one standard deviation of the log ratio of two of the pair's days at its normal
 * level (a typical day's move, said as a percent: 1 - e^-sd), from whichever noise the rule
 * weighs most at the pair's size: the network's own variation, learned from its days
 * (monitor/variation.ts), for a large pair; chance, which moves small counts more, for a
 * small one; both, said as both, in between. "Six times" is the drop's log ratio in those
 * standard deviations, so it is exact against the figure the sentence names: on the ratio
 * scale a drop to half is six moves of 11% one after another (0.89^6 = 0.50), not 6 x 11%.
 * The z the rule compares with minSignificance (the weaker of both weeks, with chance's
 * correction for small counts) follows as the verdict, not the headline.
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
  /** One line: reason, measure, and strength with z, each a sentence. */
  line: string;
}

/** Shown once under the pairs, so neither "times that" nor "z" stands unexplained. */
export const EVIDENCE_LEGEND =
  'How strong a drop is: "vary about 11% from day to day" is how far a normal day moves a pair\'s clicks (the network\'s own variation, learned from its days, and chance, which moves small counts more), and "six times that" is the drop in such moves, one after another: a drop to half is six moves of 11% (0.89^6 = 0.50), not 6 x 11%. z: the same as the alert rule counts it, against the same weekday 7 and 14 days back, the weaker of the two; alerts.minSignificance sets where alerting starts.';

/** Strength bands, strongest first. */
const BANDS: ReadonlyArray<readonly [number, string]> = [
  [10, 'far beyond normal variation'],
  [5, 'well beyond normal variation'],
  [3, 'beyond normal variation'],
  [2, 'at the edge of normal variation'],
];

export function strengthOf(z: number): string {
  for (const [min, words] of BANDS) if (z >= min) return words;
  return 'within normal variation';
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

/** A typical day's move in percent, for a standard deviation `sd` of a log ratio of two days. */
export function typicalMovePercent(sd: number): number {
  return (1 - Math.exp(-sd)) * 100;
}

/** "about 11%" ("11%" without `about`); "under 1%" for a move that rounds to nothing. */
function aboutPercent(sd: number, about = true): string {
  const percent = Math.round(typicalMovePercent(sd));
  if (percent < 1) return 'under 1%';
  return about ? `about ${percent}%` : `${percent}%`;
}

/**
 * "six times that", "about twice that", "more than ten times that": a count of typical moves,
 * rounded as a person says it. Whole numbers from three up (2.5 is three), halves below.
 */
export function timesInWords(times: number): string {
  if (times >= 10.5) return 'more than ten times that';
  if (times >= 2.5) return `${WORDS[Math.round(times)]} times that`;
  if (times >= 1.75) return 'about twice that';
  if (times >= 1.25) return 'about one and a half times that';
  if (times >= 0.75) return 'about that much';
  return 'less than that';
}

const WORDS: Readonly<Record<number, string>> = {
  3: 'three',
  4: 'four',
  5: 'five',
  6: 'six',
  7: 'seven',
  8: 'eight',
  9: 'nine',
  10: 'ten',
};

/**
 * Which noise is named: the one whose variance is ten times the other's or more (then the
 * other changes the figure by under 5%), else both.
 */
const DOMINANT = 10;

/**
 * The variation the sentence names, as its opening clause, and its sd. `own` and `chance`:
 * the variances of the log ratio of two days (two of `days` days summed, for a run) from the
 * network's variation and from chance at `perDay` clicks a day.
 */
function variationClause(
  own: number,
  chance: number,
  perDay: number,
  variation: Pick<Variation, 'extra' | 'days'> | undefined,
  days: number,
): { clause: string; sd: number } {
  const overDays = (sd: number) => (days > 1 ? `, ${aboutPercent(sd)} over ${days} days` : '');
  const perDaySd = (sd: number) => sd * Math.sqrt(days);
  const atSize = `at ${formatCount(Math.round(perDay))} clicks a day`;
  if (variation === undefined || own * DOMINANT <= chance) {
    const sd = Math.sqrt(chance);
    return {
      clause: `${atSize}, chance moves this pair ${aboutPercent(perDaySd(sd))} from day to day${overDays(sd)}`,
      sd,
    };
  }
  const learned =
    variation.days >= 0.5
      ? `learned over ${plural(Math.round(variation.days), 'day')}`
      : 'a first estimate, nothing learned yet';
  if (chance * DOMINANT <= own) {
    const sd = Math.sqrt(own);
    return {
      clause: `this network's clicks vary ${aboutPercent(perDaySd(sd))} from day to day${overDays(sd)} (${learned})`,
      sd,
    };
  }
  const sd = Math.sqrt(own + chance);
  const network = aboutPercent(perDaySd(Math.sqrt(own)), false);
  if (chance > own) {
    return {
      clause: `${atSize}, chance moves this pair more than this network's own variation does (${network}, ${learned}): together ${aboutPercent(perDaySd(sd))} from day to day${overDays(sd)}`,
      sd,
    };
  }
  return {
    clause: `${atSize}, this pair's clicks vary ${aboutPercent(perDaySd(sd))} from day to day${overDays(sd)} (this network's ${network}, ${learned}, and chance)`,
    sd,
  };
}

/**
 * The pair's normal day-to-day variation and its drop measured by it, in words: "this
 * network's clicks vary about 11% from day to day (learned over 40 days); this drop is six
 * times that". The drop is yesterday against 7 days back (beyond its domain's common move,
 * when it was judged against one); for a steady decline, the days of its listed run together
 * against the same days a week before, whose variation is 1/n of a day's. Undefined without
 * the clicks, or for no drop.
 */
export function measureOf(
  pair: Pick<ClassifiedPair, 'entry' | 'figures' | 'commonShare' | 'steady' | 'run'>,
  variation: Pick<Variation, 'extra' | 'days'> | undefined,
): string | undefined {
  const own = 2 * (variation?.extra ?? 0);
  if (pair.steady && pair.run !== undefined && pair.run.days > 1) {
    return runMeasure(pair.run, own, variation);
  }
  const clicks = pair.figures?.clicks ?? entryClicks(pair);
  if (clicks === undefined) return undefined;
  const share = pair.commonShare ?? 1;
  // Chance at the pair's normal level: its comparison day, and what its domain's move left.
  const expected = clicks.d7 * share;
  const log = Math.log((expected + 0.5) / (clicks.yesterday + 0.5));
  if (!(log > 0) || !(clicks.d7 > 0)) return undefined;
  const chance = 1 / (clicks.d7 + 0.5) + 1 / (expected + 0.5);
  const { clause, sd } = variationClause(own, chance, clicks.d7, variation, 1);
  const drop =
    share < 1
      ? `beyond its domain's common drop of ${Math.round((1 - share) * 100)}%, this drop is`
      : 'this drop is';
  return `${clause}; ${drop} ${timesInWords(log / sd)}`;
}

function runMeasure(
  run: ListedRun,
  own: number,
  variation: Pick<Variation, 'extra' | 'days'> | undefined,
): string | undefined {
  const log = Math.log((run.d7 + 0.5) / (run.clicks + 0.5));
  if (!(log > 0)) return undefined;
  const chance = 2 / (run.d7 + 0.5);
  const { clause, sd } = variationClause(
    own / run.days,
    chance,
    run.d7 / run.days,
    variation,
    run.days,
  );
  return `${clause}; these ${run.days} days are ${Math.round(runDropPercent(run))}% under the same days a week before, ${timesInWords(log / sd)}`;
}

function entryClicks(
  pair: Pick<ClassifiedPair, 'entry'>,
): { yesterday: number; d7: number } | undefined {
  const entry = pair.entry;
  return entry === undefined
    ? undefined
    : { yesterday: entry.yesterday_total_clicks, d7: entry.seven_days_ago_total_clicks };
}

export function evidenceOf(
  pair: Pick<
    ClassifiedPair,
    'significance' | 'dropPercent' | 'run' | 'steady' | 'entry' | 'figures' | 'commonShare'
  >,
  variation?: Pick<Variation, 'extra' | 'days' | 'chance' | 'judged'>,
): PairEvidence {
  const z = round1(pair.significance);
  const reason = runReason(pair);
  const measure = measureOf(pair, variation);
  const extras = { ...(reason === undefined ? {} : { reason }), ...(measure ? { measure } : {}) };
  const lead = [reason, measure].filter((s): s is string => s !== undefined);
  const opening = lead.map((s) => `${capitalise(s)}. `).join('');
  if (pair.steady && pair.run !== undefined) {
    // Alerted on the run's days together: say so, and what yesterday alone would have said.
    const together = round1(runSignificance(pair.run, variation ?? 0));
    const strength = `${strengthOf(together)} over the ${pair.run.days} days`;
    const line = `${opening}${capitalise(strength)} (z ${together.toFixed(1)}; yesterday alone ${z.toFixed(1)}).`;
    return { z, strength, ...extras, line };
  }
  const strength = strengthOf(pair.significance);
  const line = `${opening}${capitalise(strength)} (z ${z.toFixed(1)}).`;
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
