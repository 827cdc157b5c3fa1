import type { AlertSettings } from '../config/schema.js';
import { significanceOf, type SignificanceRule } from './significance.js';
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

/** A listed pair's numbers as the lifecycle sees them. */
export interface PairMeasure {
  baseline: number;
  yesterday: number;
  /** Clicks 14 days back. */
  d14: number;
  dropPercent: number;
  significance: number;
  alertable: boolean;
  /** Alertable for a pair that is already active (isSustained). */
  sustained: boolean;
  severity: Severity;
}

/** `rule` is for the simulation's comparison of rules only; the monitor uses the default. */
export function measureEntry(
  entry: IspTrend,
  settings: Thresholds,
  rule: SignificanceRule = significanceOf,
): PairMeasure {
  const baseline = entry.seven_days_ago_total_clicks;
  const yesterday = entry.yesterday_total_clicks;
  const dropPercent = dropPercentOf(entry);
  const d14 = entry.fourteen_days_ago_total_clicks;
  const significance = rule({ yesterday, d7: baseline, d14 });
  return {
    baseline,
    d14,
    yesterday,
    dropPercent,
    significance,
    alertable: isAlertable(baseline, dropPercent, significance, settings),
    sustained: isSustained(baseline, dropPercent, significance, settings),
    severity: severityOf(dropPercent, settings),
  };
}
