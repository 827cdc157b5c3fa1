import { z } from 'zod';
import { Secret } from '../config/secret.js';

/**
 * zod schemas of the partner API's responses (docs/api-notes.md), the one place
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

export const PERIODS = [
  'yesterday',
  'seven_days_ago',
  'fourteen_days_ago',
  'thirty_days_ago',
] as const;
export const COMPARISONS = ['seven', 'fourteen', 'thirty'] as const;

const count = z.number().int().nonnegative();
const integer = z.number().int();
/**
 * Trends are percentages. The robust reading: a trend may be absent, null or not finite (the
 * API divides by a zero comparison day); the monitor then computes it from the click totals.
 */
const trend = z.number().nullish();

/**
 * An isptrends entry as a traffic-check reads it: the pair, the four days' clicks, conversions
 * and revenue, and their trends, each checked. The deltas (yesterday minus each comparison day)
 * follow from the day figures and nothing reads them, and fields the API may add are not read
 * either: both are left out of the parsed entry (a plain, stripping object). A run holds tens of
 * thousands of entries, and zod's work grows with the fields it checks and copies.
 */
export const ispTrendSchema = z.object({
  network_id: integer,
  network_tracking_domain_id: integer,
  isp: z.string(),

  yesterday_total_clicks: count,
  seven_days_ago_total_clicks: count,
  fourteen_days_ago_total_clicks: count,
  thirty_days_ago_total_clicks: count,
  yesterday_seven_days_ago_total_clicks_trend: trend,
  yesterday_fourteen_days_ago_total_clicks_trend: trend,
  yesterday_thirty_days_ago_total_clicks_trend: trend,

  yesterday_conversions: count,
  seven_days_ago_conversions: count,
  fourteen_days_ago_conversions: count,
  thirty_days_ago_conversions: count,
  yesterday_seven_days_ago_conversions_trend: trend,
  yesterday_fourteen_days_ago_conversions_trend: trend,
  yesterday_thirty_days_ago_conversions_trend: trend,

  yesterday_revenue: z.number(),
  seven_days_ago_revenue: z.number(),
  fourteen_days_ago_revenue: z.number(),
  thirty_days_ago_revenue: z.number(),
  yesterday_seven_days_ago_revenue_trend: trend,
  yesterday_fourteen_days_ago_revenue_trend: trend,
  yesterday_thirty_days_ago_revenue_trend: trend,

  relationship: z.object({ url: z.string() }),
});
export type IspTrend = z.infer<typeof ispTrendSchema>;

/** GET /networks/traffic/isptrends (200), as a traffic-check reads it. */
export const ispTrendsResponseSchema = z.looseObject({ entries: z.array(ispTrendSchema) });
export type IspTrendsResponse = z.infer<typeof ispTrendsResponseSchema>;

/**
 * An isptrends entry with every documented field checked, the deltas too, and any other field
 * kept: what `thm api` shows of the API's answer.
 */
export const documentedIspTrendSchema = z.looseObject({
  ...ispTrendSchema.shape,
  yesterday_seven_days_ago_total_clicks_delta: integer,
  yesterday_fourteen_days_ago_total_clicks_delta: integer,
  yesterday_thirty_days_ago_total_clicks_delta: integer,
  yesterday_seven_days_ago_conversions_delta: integer,
  yesterday_fourteen_days_ago_conversions_delta: integer,
  yesterday_thirty_days_ago_conversions_delta: integer,
  yesterday_seven_days_ago_revenue_delta: z.number(),
  yesterday_fourteen_days_ago_revenue_delta: z.number(),
  yesterday_thirty_days_ago_revenue_delta: z.number(),
  relationship: z.looseObject({ url: z.string() }),
});

/** GET /networks/traffic/isptrends (200), every documented field checked (`thm api`). */
export const documentedIspTrendsResponseSchema = z.looseObject({
  entries: z.array(documentedIspTrendSchema),
});

/** POST /networks/billings/affiliates/summary */
export const invoiceSummarySchema = z.looseObject({
  total_count: z.number().int().nonnegative(),
  balance: z.number(),
  billed: z.number(),
  paid: z.number(),
});
export type InvoiceSummary = z.infer<typeof invoiceSummarySchema>;

/**
 * The summary's request body: filters.status is a string (`unpaid` for unpaid invoices; the
 * other values and filters are not shown, so any string and any other field pass).
 */
export const invoiceSummaryRequestSchema = z.looseObject({
  filters: z.looseObject({ status: z.string() }),
});

/** The paging envelope of list and search endpoints. */
export const pagingSchema = z.looseObject({
  page: z.number().int().min(1),
  page_size: z.number().int().min(1),
  total_count: z.number().int().min(0),
});
export type Paging = z.infer<typeof pagingSchema>;

/*
 * The other resources of the API (docs/api-notes.md). Enums are the spec's own
 * lists; where the spec says a value list is "not shown" (demand_partner.status, the offer's
 * offer_status and visibility) any string is accepted.
 */

export const ACCOUNT_STATUSES = ['active', 'inactive', 'suspended'] as const;
export const TIERED_COMMISSION_STATUSES = ['active', 'inactive'] as const;
export const TIERED_COMMISSION_PERIODS = [
  'daily',
  'weekly',
  'monthly',
  'quarterly',
  'global',
] as const;
/** payout_action and revenue_action in a request. */
export const COMMISSION_ACTIONS = [
  'increase',
  'decrease',
  'flat_increase',
  'flat_decrease',
] as const;
/** retroactive_payout_action and retroactive_revenue_action in a request. */
export const RETROACTIVE_ACTIONS = [...COMMISSION_ACTIONS, 'exact'] as const;
export const RETROACTIVE_PAYOUT_TYPES = [
  'blank',
  'cpc',
  'cpa',
  'cpm',
  'cps',
  'cpa_cps',
  'prv',
  'cpa_sku',
  'cps_sku',
  'cpa_cps_sku',
  'prv_sku',
] as const;
export const RETROACTIVE_REVENUE_TYPES = [
  'blank',
  'rpc',
  'rpa',
  'rpm',
  'rps',
  'rpa_rps',
  'rpa_sku',
  'rps_sku',
  'rpa_rps_sku',
] as const;
export const CREATIVE_TYPES = [
  'image',
  'html',
  'thumbnail',
  'email',
  'archive',
  'video',
  'text',
  'link',
] as const;
export const CREATIVE_STATUSES = ['active', 'paused', 'deleted'] as const;
export const CONNECTION_STATUSES = ['active', 'pending', 'deleted'] as const;

const id = z.number().int();
const ids = z.array(z.number().int());
const timestamp = z.number().int();

/** POST /networks/advertisers/{advertiserId}/users (the request-only fields are not returned). */
export const advertiserUserSchema = z.looseObject({
  network_advertiser_user_id: id,
  network_id: id,
  network_advertiser_id: id,
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  title: z.string(),
  work_phone: z.string(),
  cell_phone: z.string(),
  instant_messaging_id: z.number().int().min(0).max(5),
  instant_messaging_identifier: z.string(),
  language_id: id,
  timezone_id: id,
  currency_id: z.string(),
  account_status: z.enum(ACCOUNT_STATUSES),
  time_created: timestamp,
  time_saved: timestamp,
  /** Contents per requested relationship: not shown in the spec; empty when none requested. */
  relationship: z.record(z.string(), z.unknown()),
});
export type AdvertiserUser = z.infer<typeof advertiserUserSchema>;

/** Stored actions: a request's, plus `unknown` (what an `exact` payout/revenue action becomes). */
const storedAction = z.enum([...RETROACTIVE_ACTIONS, 'unknown']);

/** POST /networks/tieredcommissions: every stored and computed field. */
export const tieredCommissionSchema = z.looseObject({
  network_tiered_commission_id: id,
  network_id: id,
  name: z.string(),
  notes: z.string(),
  status: z.enum(TIERED_COMMISSION_STATUSES),
  start_date: z.string(),
  end_date: z.string(),
  period: z.enum(TIERED_COMMISSION_PERIODS),
  network_offer_payout_revenue_id: id,
  is_apply_all_affiliates: z.boolean(),
  network_affiliate_ids: ids,
  network_offer_ids: ids,
  network_advertiser_ids: ids.nullable(),
  is_payout_enabled: z.boolean(),
  payout_action: storedAction,
  payout_value: z.number(),
  is_revenue_enabled: z.boolean(),
  revenue_action: storedAction,
  revenue_value: z.number(),
  payout_goal: z.number(),
  revenue_goal: z.number(),
  sale_amount_goal: z.number(),
  conversion_goal: z.number(),
  event_goal: z.number(),
  payout_max: z.number(),
  revenue_max: z.number(),
  sale_amount_max: z.number(),
  conversion_max: z.number(),
  event_max: z.number(),
  relationship: z.looseObject({}),
  is_retroactive_payout_enabled: z.boolean(),
  retroactive_payout_action: storedAction,
  retroactive_payout_value: z.number(),
  retroactive_payout_type: z.enum(RETROACTIVE_PAYOUT_TYPES),
  retroactive_payout_percentage: z.number(),
  is_retroactive_revenue_enabled: z.boolean(),
  retroactive_revenue_action: storedAction,
  retroactive_revenue_value: z.number(),
  retroactive_revenue_type: z.enum(RETROACTIVE_REVENUE_TYPES),
  retroactive_revenue_percentage: z.number(),
  time_created: timestamp,
  time_saved: timestamp,
});
export type TieredCommission = z.infer<typeof tieredCommissionSchema>;

/** relationship.offer of a creative. */
export const creativeOfferSchema = z.looseObject({
  network_offer_id: id,
  network_id: id,
  network_advertiser_id: id,
  network_offer_group_id: id,
  name: z.string(),
  offer_status: z.string(),
  visibility: z.string(),
  network_tracking_domain_id: id,
  currency_id: z.string(),
});

/** relationship.resource_asset of a creative. */
export const resourceAssetSchema = z.looseObject({
  network_asset_id: id,
  content_type: z.string(),
  filename: z.string(),
  url: z.string(),
  file_size: z.number().int(),
  image_width: z.number().int(),
  image_height: z.number().int(),
});

/**
 * GET /networks/creatives/{creativeId}. html_code is present only for html, email and link
 * creatives (spec); resource_asset is read as optional, since a text or link creative has no
 * file behind it.
 */
export const creativeSchema = z.looseObject({
  network_offer_creative_id: id,
  network_id: id,
  network_offer_id: id,
  name: z.string(),
  creative_type: z.enum(CREATIVE_TYPES),
  is_private: z.boolean(),
  creative_status: z.enum(CREATIVE_STATUSES),
  resource_url: z.string(),
  html_code: z.string().optional(),
  width: z.number().int(),
  height: z.number().int(),
  email_from: z.string(),
  email_subject: z.string(),
  email_subject_lines: z.string(),
  email_from_lines: z.string(),
  additional_offer_ids: ids,
  is_apply_specific_affiliates: z.boolean(),
  time_created: timestamp,
  time_saved: timestamp,
  relationship: z.looseObject({
    offer: creativeOfferSchema,
    resource_asset: resourceAssetSchema.optional(),
  }),
});
export type Creative = z.infer<typeof creativeSchema>;

const paymentOption = z.looseObject({ enabled: z.boolean() });

/**
 * relationship.payments: seven keys, each {enabled}. Three are named in the spec; the four named
 * after payment providers are not, so any further key must have the same shape.
 */
export const connectionPaymentsSchema = z
  .looseObject({
    service_pay: paymentOption,
    trusted_payouts: paymentOption,
    managed_payments: paymentOption,
  })
  .catchall(paymentOption);

/** The six `<social_platform>_contact_url` fields: names not shown, so matched by suffix. */
export const CONTACT_URL_SUFFIX = '_contact_url';

export const demandPartnerSchema = z
  .looseObject({
    service_demand_partner_id: id,
    company_name: z.string(),
    status: z.string(),
    website_url: z.string(),
    public_description: z.string(),
    logo_url: z.string(),
    link: z.string(),
    custom_link_label: z.string(),
    network_id: id,
    logo_asset_id: id,
    default_network_offer_id: id,
    is_internal: z.boolean(),
    is_contact_info_public: z.boolean(),
    time_created: timestamp,
    time_saved: timestamp,
    relationship: z.looseObject({
      contact: z.looseObject({
        first_name: z.string(),
        last_name: z.string(),
        phone_number: z.string(),
        email: z.string(),
      }),
      vertical_ids: ids,
      channel_ids: ids,
      geo_vertical_ids: ids,
      payout_type_ids: ids,
      partner_country_ids: ids,
      partner_categories: z.array(z.looseObject({ category_id: id, type: z.string() })),
    }),
  })
  .superRefine((partner, ctx) => {
    for (const [key, value] of Object.entries(partner)) {
      if (key.endsWith(CONTACT_URL_SUFFIX) && typeof value !== 'string') {
        ctx.addIssue({ code: 'custom', path: [key], message: 'expected string' });
      }
    }
  });

/**
 * One marketplace connection (POST /partners/connections/table). Its api_key is the
 * connection's own secret: parsed into a Secret, so it prints as [redacted] anywhere.
 */
export const marketplaceConnectionSchema = z.looseObject({
  partner_id: id,
  network_id: id,
  network_affiliate_id: id,
  network_affiliate_user_id: id,
  status: z.enum(CONNECTION_STATUSES),
  time_created: timestamp,
  api_key: z.string().transform((key) => new Secret(key)),
  relationship: z.looseObject({
    network: z.looseObject({
      network_id: id,
      name: z.string(),
      logo_image_url: z.string(),
      signup_url: z.string(),
      login_url: z.string(),
      timezone_id: id,
    }),
    service_pay: z.looseObject({ is_service_pay_enabled: z.boolean() }),
    payments: connectionPaymentsSchema,
    demand_partner: demandPartnerSchema,
  }),
});
export type MarketplaceConnection = z.infer<typeof marketplaceConnectionSchema>;

/** POST /partners/connections/table */
export const connectionsPageSchema = z.looseObject({
  connections: z.array(marketplaceConnectionSchema),
  paging: pagingSchema,
});
export type ConnectionsPage = z.infer<typeof connectionsPageSchema>;

/** POST /networks/reporting/entity/table. Row shape: not shown, so any object. */
export const entityReportPageSchema = z.looseObject({
  table: z.array(z.looseObject({})),
  paging: pagingSchema,
});
export type EntityReportPage = z.infer<typeof entityReportPageSchema>;
export type EntityReportRow = EntityReportPage['table'][number];
