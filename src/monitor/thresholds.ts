import type { AlertSettings } from './alert-settings.js';
import {
  dropZ,
  POISSON_ONLY,
  significanceOf,
  type ClickCounts,
  type DropNoise,
  type SignificanceRule,
} from './significance.js';
import type { IspTrend, Severity } from './types.js';

/**
 * The alert thresholds' meaning (docs/design.md, "The lifecycle of a run"), in one place. The glossary in
 * types.ts names the words; this computes them.
 */

/**
 * `-yesterday_seven_days_ago_total_clicks_trend` (7 days back is the same weekday). The API
 * divides by the comparison day, so the trend can be missing, null or not finite; then it is
 * computed from the click totals, and a zero baseline gives 0 (nothing to lose, not a drop).
 */
export function dropPercentOf(entry: IspTrend): number {
  const trend = entry.yesterday_seven_days_ago_total_clicks_trend;
  if (typeof trend === 'number' && Number.isFinite(trend)) return -trend;
  return dropPercentFromTotals(entry.seven_days_ago_total_clicks, entry.yesterday_total_clicks);
}

export function dropPercentFromTotals(baseline: number, yesterday: number): number {
  return baseline > 0 ? ((baseline - yesterday) / baseline) * 100 : 0;
}

export type Thresholds = Pick<
  AlertSettings,
  'minBaselineClicks' | 'minDropPercent' | 'minSignificance' | 'criticalDropPercent'
>;

export function isAlertable(
  baseline: number,
  dropPercent: number,
  significance: number,
  settings: Thresholds,
): boolean {
  return (
    baseline >= settings.minBaselineClicks &&
    isSustained(baseline, dropPercent, significance, settings)
  );
}

/**
 * Alertable but for minBaselineClicks: what keeps an ACTIVE pair alertable. The floor decides
 * which pairs are worth a first e-mail; a pair already reported whose comparison day happens to
 * dip under it is still the same decline, not a quiet run (else it clears and comes back "new").
 */
export function isSustained(
  baseline: number,
  dropPercent: number,
  significance: number,
  settings: Thresholds,
): boolean {
  return (
    baseline > 0 &&
    dropPercent >= settings.minDropPercent &&
    (settings.minSignificance <= 0 || significance >= settings.minSignificance)
  );
}

export function severityOf(dropPercent: number, settings: Thresholds): Severity {
  return dropPercent >= settings.criticalDropPercent ? 'critical' : 'warning';
}

/**
 * Active pairs counted by the severity of their last drops, in percent (`thm status`, the
 * metrics: store/network-state.ts, NetworkOverview.activeDrops).
 */
export function countBySeverity(
  dropPercents: readonly number[],
  settings: Thresholds,
): Record<Severity, number> {
  const counts: Record<Severity, number> = { warning: 0, critical: 0 };
  for (let i = 0; i < dropPercents.length; i++) {
    counts[severityOf(dropPercents[i]!, settings)] += 1;
  }
  return counts;
}

/**
 * A rise from warning to critical is e-mailed ("worse") only when yesterday lies below the
 * critical level of BOTH weeks back by this many standard deviations of noise: a pair that
 * halves on weekends is measured just under 50% one day and just over it the next, and the
 * second is not news. docs/alert-quality.md has the measurement.
 */
export const CRITICAL_MARGIN_Z = 1.5;

/**
 * Critical beyond day-to-day noise (CRITICAL_MARGIN_Z): what makes an active pair `worse`.
 * With minSignificance 0 (the noise test off) or criticalDropPercent 100 (no room for a
 * margin) the severity alone decides, as before.
 */
export function isClearlyCritical(
  counts: ClickCounts,
  settings: Pick<Thresholds, 'criticalDropPercent' | 'minSignificance'>,
  noise: DropNoise = POISSON_ONLY,
): boolean {
  const margin = criticalMarginZ(counts, settings, noise, 'below');
  return margin === undefined || margin >= CRITICAL_MARGIN_Z;
}

/**
 * How far yesterday lies below (or above) the critical level of both weeks back as the common
 * move left them, in standard deviations: the smaller of the two weeks. Undefined with
 * minSignificance 0 or criticalDropPercent 100 (no noise test, no room for a margin).
 */
function criticalMarginZ(
  counts: ClickCounts,
  settings: Pick<Thresholds, 'criticalDropPercent' | 'minSignificance'>,
  noise: DropNoise,
  side: 'below' | 'above',
): number | undefined {
  const keep = 1 - settings.criticalDropPercent / 100;
  if (settings.minSignificance <= 0 || keep <= 0) return undefined;
  // Each week's critical level is keep of the day as the move left it.
  const week = (day: number, share: number): number =>
    side === 'below'
      ? dropZ(day, keep * share, counts.yesterday, noise.extra)
      : dropZ(counts.yesterday, 1 / (keep * share), day, noise.extra);
  return Math.min(week(counts.d7, noise.share7), week(counts.d14, noise.share14));
}

/**
 * Clearly above the critical level of both weeks back as the common move left them
 * (CRITICAL_MARGIN_Z): what the pair lost beyond its domain's or the network's move today is a
 * warning, however deep the day reads as listed. An ISP down 30% on a holiday that took a
 * third of the whole network reads 53%; told critical that day, its deeper drop a few days
 * later could not be told "worse". A pair whose own part could still be critical is told as
 * listed: a step drop told a warning so read critical the day after, a second start e-mail.
 * False with minSignificance 0 or criticalDropPercent 100 (the severity alone decides).
 */
export function isClearlyUnderCritical(
  counts: ClickCounts,
  settings: Pick<Thresholds, 'criticalDropPercent' | 'minSignificance'>,
  noise: DropNoise,
): boolean {
  const margin = criticalMarginZ(counts, settings, noise, 'above');
  return margin !== undefined && margin >= CRITICAL_MARGIN_Z;
}

/**
 * The severity of a listed pair's drop: by its drop in percent (severityOf), but a warning
 * when it is judged against its domain's or the network's common move today (`noise.share7`
 * under 1) and what it lost beyond that is clearly a warning (isClearlyUnderCritical).
 */
export function severityAgainst(
  counts: ClickCounts,
  dropPercent: number,
  settings: Thresholds,
  noise: DropNoise,
): Severity {
  const severity = severityOf(dropPercent, settings);
  return severity === 'critical' &&
    noise.share7 < 1 &&
    isClearlyUnderCritical(counts, settings, noise)
    ? 'warning'
    : severity;
}

/** A listed pair's numbers as the lifecycle sees them. */
export interface PairMeasure {
  baseline: number;
  yesterday: number;
  /** Clicks 14 and 30 days back. */
  d14: number;
  d30: number;
  dropPercent: number;
  significance: number;
  alertable: boolean;
  /** Alertable for a pair that is already active (isSustained). */
  sustained: boolean;
  severity: Severity;
}

/** A measure to fill in with {@link measureEntryInto}. */
export function emptyMeasure(): PairMeasure {
  return {
    baseline: 0,
    d14: 0,
    d30: 0,
    yesterday: 0,
    dropPercent: 0,
    significance: 0,
    alertable: false,
    sustained: false,
    severity: 'warning',
  };
}

/** The clicks the significance rule reads, refilled per entry (a rule reads, never keeps them). */
const ruleInput = { yesterday: 0, d7: 0, d14: 0 };

/**
 * How one entry measures against the thresholds, written into an object the caller reuses
 * (emptyMeasure). `noise`: the network's learned variation and the common move of the pair's
 * domain today. `rule` is for the simulation's comparison of rules only; the monitor uses the
 * default.
 */
export function measureEntryInto(
  out: PairMeasure,
  entry: IspTrend,
  settings: Thresholds,
  noise: DropNoise = POISSON_ONLY,
  rule: SignificanceRule = significanceOf,
): PairMeasure {
  const baseline = entry.seven_days_ago_total_clicks;
  const yesterday = entry.yesterday_total_clicks;
  const dropPercent = dropPercentOf(entry);
  const d14 = entry.fourteen_days_ago_total_clicks;
  ruleInput.yesterday = yesterday;
  ruleInput.d7 = baseline;
  ruleInput.d14 = d14;
  const significance = rule(ruleInput, noise);
  out.baseline = baseline;
  out.d14 = d14;
  out.d30 = entry.thirty_days_ago_total_clicks;
  out.yesterday = yesterday;
  out.dropPercent = dropPercent;
  out.significance = significance;
  out.alertable = isAlertable(baseline, dropPercent, significance, settings);
  out.sustained = isSustained(baseline, dropPercent, significance, settings);
  out.severity = severityAgainst(ruleInput, dropPercent, settings, noise);
  return out;
}
