import { z } from 'zod';

/**
 * zod schemas of the partner API's responses (seed/partner-network-api.md), the one place
 * where the API's field names are spelt. Types are inferred from them. Extra fields are
 * tolerated (the API may add some); a missing or mistyped required field is an invalid
 * response, reported with the field path and the entry index.
 */

/** GET /networks/traffic/access */
export const trafficAccessSchema = z.looseObject({
  is_enabled: z.boolean(),
  has_premium: z.boolean(),
  has_blacklist_monitoring: z.boolean(),
  has_monitoring_alerts: z.boolean(),
  has_third_party_domain_monitoring: z.boolean(),
  has_external_proxy_domain: z.boolean(),
  has_external_notifications: z.boolean(),
  has_domain_assignment_management: z.boolean(),
  premium_monitored_domain_quota: z.number().int(),
});
export type TrafficAccess = z.infer<typeof trafficAccessSchema>;

export const PERIODS = ['yesterday', 'seven_days_ago', 'fourteen_days_ago', 'thirty_days_ago'] as const;
export const COMPARISONS = ['seven', 'fourteen', 'thirty'] as const;
export type Period = (typeof PERIODS)[number];
export type Comparison = (typeof COMPARISONS)[number];

const count = z.number().int().nonnegative();
const integer = z.number().int();
/**
 * Trends are percentages. The robust reading: a trend may be absent, null or not finite (the
 * API divides by a zero comparison day); the monitor then computes it from the click totals.
 */
const trend = z.number().nullish();

export const ispTrendSchema = z.looseObject({
  network_id: integer,
  network_tracking_domain_id: integer,
  isp: z.string(),

  yesterday_total_clicks: count,
  seven_days_ago_total_clicks: count,
  fourteen_days_ago_total_clicks: count,
  thirty_days_ago_total_clicks: count,
  yesterday_seven_days_ago_total_clicks_delta: integer,
  yesterday_fourteen_days_ago_total_clicks_delta: integer,
  yesterday_thirty_days_ago_total_clicks_delta: integer,
  yesterday_seven_days_ago_total_clicks_trend: trend,
  yesterday_fourteen_days_ago_total_clicks_trend: trend,
  yesterday_thirty_days_ago_total_clicks_trend: trend,

  yesterday_conversions: count,
  seven_days_ago_conversions: count,
  fourteen_days_ago_conversions: count,
  thirty_days_ago_conversions: count,
  yesterday_seven_days_ago_conversions_delta: integer,
  yesterday_fourteen_days_ago_conversions_delta: integer,
  yesterday_thirty_days_ago_conversions_delta: integer,
  yesterday_seven_days_ago_conversions_trend: trend,
  yesterday_fourteen_days_ago_conversions_trend: trend,
  yesterday_thirty_days_ago_conversions_trend: trend,

  yesterday_revenue: z.number(),
  seven_days_ago_revenue: z.number(),
  fourteen_days_ago_revenue: z.number(),
  thirty_days_ago_revenue: z.number(),
  yesterday_seven_days_ago_revenue_delta: z.number(),
  yesterday_fourteen_days_ago_revenue_delta: z.number(),
  yesterday_thirty_days_ago_revenue_delta: z.number(),
  yesterday_seven_days_ago_revenue_trend: trend,
  yesterday_fourteen_days_ago_revenue_trend: trend,
  yesterday_thirty_days_ago_revenue_trend: trend,

  relationship: z.looseObject({ url: z.string() }),
});
export type IspTrend = z.infer<typeof ispTrendSchema>;

/** GET /networks/traffic/isptrends (200) */
export const ispTrendsResponseSchema = z.looseObject({ entries: z.array(ispTrendSchema) });
export type IspTrendsResponse = z.infer<typeof ispTrendsResponseSchema>;

/** POST /networks/billings/affiliates/summary */
export const invoiceSummarySchema = z.looseObject({
  total_count: z.number().int().nonnegative(),
  balance: z.number(),
  billed: z.number(),
  paid: z.number(),
});
export type InvoiceSummary = z.infer<typeof invoiceSummarySchema>;

/** The paging envelope of list and search endpoints. */
export const pagingSchema = z.looseObject({
  page: z.number().int().min(1),
  page_size: z.number().int().min(1),
  total_count: z.number().int().min(0),
});
export type Paging = z.infer<typeof pagingSchema>;
