import { hash32 } from './random.js';
import { errorAnswer, isAnswer, json, pagingEnvelope, readPaging, type Answer } from './answers.js';
import type { SandboxNetwork } from './scenario.js';

/**
 * Marketplace connections of the sandbox (POST /partners/connections/table and GET
 * /partners/connections): the scenario's `connections` count per network, every tenth deleted,
 * every fifth other pending, the rest active. Paged by the query's page/page_size (defaults 1
 * and 50); page_size is capped at 200 (the API allows endpoints a cap below 2,000) and the cap
 * is reported in paging.page_size. Unknown filters.status: 400.
 */

export const CONNECTIONS_MAX_PAGE_SIZE = 200;

/** The four payment providers of relationship.payments (the spec does not name them). */
export const PAYMENT_PROVIDERS = ['paypal', 'payoneer', 'tipalti', 'wise'] as const;
const SOCIAL_PLATFORMS = ['facebook', 'instagram', 'linkedin', 'twitter', 'youtube', 'tiktok'];

export function connectionsPage(
  network: SandboxNetwork,
  partnerId: number,
  url: URL,
  body: unknown,
  seed: number,
): Answer {
  const params = readPaging(
    url.searchParams.get('page') ?? undefined,
    url.searchParams.get('page_size') ?? undefined,
    CONNECTIONS_MAX_PAGE_SIZE,
  );
  if (isAnswer(params)) return params;
  const status = (body as { filters?: { status?: unknown } } | undefined)?.filters?.status;
  if (status !== undefined && status !== 'active' && status !== 'pending' && status !== 'deleted') {
    return errorAnswer(400, 'filters.status must be one of active, pending, deleted');
  }
  const all: Record<string, unknown>[] = [];
  for (let i = 1; i <= network.connections; i += 1) {
    const state = i % 10 === 0 ? 'deleted' : i % 5 === 0 ? 'pending' : 'active';
    if (status !== undefined && state !== status) continue;
    all.push(connection(network, partnerId, seed, i, state));
  }
  const start = (params.page - 1) * params.pageSize;
  return json(200, {
    connections: all.slice(start, start + params.pageSize),
    paging: pagingEnvelope(params, all.length),
  });
}

function connection(
  network: SandboxNetwork,
  partnerId: number,
  seed: number,
  i: number,
  status: string,
): Record<string, unknown> {
  const networkId = 5_000 + i;
  const created = 1_767_225_600 + i * 3_600;
  const payments: Record<string, { enabled: boolean }> = {
    service_pay: { enabled: i % 3 === 0 },
    trusted_payouts: { enabled: i % 4 === 0 },
    managed_payments: { enabled: i % 2 === 0 },
  };
  PAYMENT_PROVIDERS.forEach((name, k) => (payments[name] = { enabled: (i + k) % 3 !== 0 }));
  const contactUrls = Object.fromEntries(
    SOCIAL_PLATFORMS.map((p) => [
      `${p}_contact_url`,
      i % 2 === 0 ? `https://${p}.example/adv${i}` : '',
    ]),
  );
  return {
    partner_id: partnerId,
    network_id: networkId,
    network_affiliate_id: 7_000 + i,
    network_affiliate_user_id: 9_000 + i,
    status,
    time_created: created,
    // The connection's own key is a secret in the real API too: fake, but shaped like one.
    api_key: `sbx_conn_${hash32(`${seed}:${network.id}:${i}`).toString(16).padStart(8, '0')}`,
    relationship: {
      network: {
        network_id: networkId,
        name: `Advertiser Network ${i}`,
        logo_image_url: '',
        signup_url: `https://signup.adv${i}.example`,
        login_url: `https://login.adv${i}.example`,
        timezone_id: 80,
      },
      service_pay: { is_service_pay_enabled: payments.service_pay!.enabled },
      payments,
      demand_partner: {
        service_demand_partner_id: 3_000 + i,
        company_name: `Advertiser ${i} Inc.`,
        status: 'active',
        website_url: `https://adv${i}.example`,
        public_description: `Advertiser ${i}: consumer offers in the US and Canada.`,
        logo_url: '',
        link: `https://adv${i}.example/partners`,
        custom_link_label: 'Apply',
        network_id: networkId,
        logo_asset_id: 0,
        default_network_offer_id: 100 + (i % 40),
        is_internal: false,
        is_contact_info_public: i % 2 === 0,
        ...contactUrls,
        time_created: created,
        time_saved: created + 60,
        relationship: {
          contact: {
            first_name: 'Alex',
            last_name: `Partner${i}`,
            phone_number: `+1-555-01${String(i % 100).padStart(2, '0')}`,
            email: `partners@adv${i}.example`,
          },
          vertical_ids: [1 + (i % 7)],
          channel_ids: [1, 2],
          geo_vertical_ids: [],
          payout_type_ids: [1],
          partner_country_ids: [840, 124],
          partner_categories: [{ category_id: 1 + (i % 5), type: 'vertical' }],
        },
      },
    },
  };
}
