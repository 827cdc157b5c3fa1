import type { IspTrend, PairFigures, TrendFigures } from './types.js';

/** The API entry's numbers in the shape the e-mail shows (trends: null when not finite). */
export function pairFigures(entry: IspTrend): PairFigures {
  return {
    clicks: {
      yesterday: entry.yesterday_total_clicks,
      d7: entry.seven_days_ago_total_clicks,
      d14: entry.fourteen_days_ago_total_clicks,
      d30: entry.thirty_days_ago_total_clicks,
    },
    clickTrend: trends(
      entry.yesterday_seven_days_ago_total_clicks_trend,
      entry.yesterday_fourteen_days_ago_total_clicks_trend,
      entry.yesterday_thirty_days_ago_total_clicks_trend,
    ),
    conversions: {
      yesterday: entry.yesterday_conversions,
      d7: entry.seven_days_ago_conversions,
      d14: entry.fourteen_days_ago_conversions,
      d30: entry.thirty_days_ago_conversions,
    },
    conversionTrend: trends(
      entry.yesterday_seven_days_ago_conversions_trend,
      entry.yesterday_fourteen_days_ago_conversions_trend,
      entry.yesterday_thirty_days_ago_conversions_trend,
    ),
    revenue: {
      yesterday: entry.yesterday_revenue,
      d7: entry.seven_days_ago_revenue,
      d14: entry.fourteen_days_ago_revenue,
      d30: entry.thirty_days_ago_revenue,
    },
    revenueTrend: trends(
      entry.yesterday_seven_days_ago_revenue_trend,
      entry.yesterday_fourteen_days_ago_revenue_trend,
      entry.yesterday_thirty_days_ago_revenue_trend,
    ),
  };
}

function trends(
  d7: number | null | undefined,
  d14: number | null | undefined,
  d30: number | null | undefined,
): TrendFigures {
  return { d7: finiteOrNull(d7), d14: finiteOrNull(d14), d30: finiteOrNull(d30) };
}

function finiteOrNull(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
