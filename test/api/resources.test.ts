import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import {
  allConnections,
  createAdvertiserUser,
  createTieredCommission,
  entityReport,
  entityReportPage,
  getCreative,
  RequestValidationError,
  searchConnections,
  type AdvertiserUserRequest,
  type TieredCommissionRequest,
} from '../../src/api/resources/index.js';
import {
  advertiserUserSchema,
  connectionsPageSchema,
  tieredCommissionSchema,
} from '../../src/api/schemas.js';
import { Secret } from '../../src/config/secret.js';
import type { Portal } from '../../src/sandbox/index.js';
import { TEST_HTTP, startTestSandbox, type TestSandbox } from '../harness/sandbox.js';
import { apiFailure } from '../harness/api.js';

/**
 * Every rule of the spec's endpoints through the typed client against the sandbox, both sides:
 * accepted bodies are created and read back; refused ones are refused by the client before
 * anything is sent, AND by the sandbox itself when the same body is sent raw (the client
 * bypassed). Demo scenario: acme (network_id 1001, 120 marketplace connections), globex (1002).
 */

let sbx: TestSandbox;
const clients: ApiClient[] = [];

function client(portal: Portal = 'network', network = 'acme'): ApiClient {
  const c = createApiClient({
    baseUrl: sbx.baseUrl,
    apiKey: sbx.apiKey(network, portal),
    networkId: network,
    http: TEST_HTTP,
    retry: { baseDelayMs: 10, maxDelayMs: 20 },
  });
  clients.push(c);
  return c;
}

/** A request straight to the sandbox, no client in between. */
async function raw(
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const key = options.key === undefined ? sbx.key('acme') : options.key;
  if (key !== null) headers['x-service-api-key'] = key;
  const response = await fetch(sbx.baseUrl + path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function refused(promise: Promise<unknown>): Promise<RequestValidationError> {
  const before = sbx.sandbox.requests();
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).code).toBe('THM_API_REQUEST_INVALID');
    // Refused before sending: the sandbox heard nothing.
    expect(sbx.sandbox.requests()).toBe(before);
    return error as RequestValidationError;
  }
  throw new Error('expected the client to refuse the request');
}

let emailCounter = 0;
const freshEmail = () => `user${(emailCounter += 1)}.${Date.now()}@adv.example`;

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sbx.close();
});

describe('advertiser users: POST /networks/advertisers/{advertiserId}/users', () => {
  const refusedBodies: Array<[string, Record<string, unknown>, string]> = [
    ['email missing (the login; rule 1 needs one)', { first_name: 'A' }, 'email'],
    ['email not an address', { email: 'not-an-address' }, 'email'],
    [
      'set_password_manually without initial_password (rule 2)',
      { set_password_manually: true },
      'initial_password',
    ],
    [
      'initial_password of 11 characters (rule 2)',
      { set_password_manually: true, initial_password: '12345678901' },
      'initial_password',
    ],
    [
      'a platform without identifier (rule 5)',
      { instant_messaging_id: 3 },
      'instant_messaging_identifier',
    ],
    [
      'a platform with a blank identifier (rule 5)',
      { instant_messaging_id: 5, instant_messaging_identifier: '  ' },
      'instant_messaging_identifier',
    ],
    ['instant_messaging_id 6', { instant_messaging_id: 6 }, 'instant_messaging_id'],
    ['instant_messaging_id -1', { instant_messaging_id: -1 }, 'instant_messaging_id'],
    ['language_id 2 (only 1)', { language_id: 2 }, 'language_id'],
    ['account_status not an allowed state', { account_status: 'banned' }, 'account_status'],
    ['currency_id not an ISO code', { currency_id: 'dollars' }, 'currency_id'],
    ['an unknown field', { emial: 'x@y.example' }, 'emial'],
  ];

  it.each(refusedBodies)(
    'refuses %s: client names the field, sandbox 422',
    async (_, extra, field) => {
      const body = { email: freshEmail(), ...extra } as AdvertiserUserRequest;
      if (!('email' in extra) && field === 'email') delete (body as { email?: string }).email;
      const error = await refused(createAdvertiserUser(client(), 1, body));
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`^advertiser user: ${field}: `));

      const answer = await raw('POST', '/networks/advertisers/1/users', { body });
      expect(answer.status).toBe(422);
      expect(String(answer.body.error)).toMatch(new RegExp(`^${field}: `));
    },
  );

  it('creates a user with a manual password of exactly 12 characters; request-only fields are not returned', async () => {
    const email = freshEmail();
    const user = await createAdvertiserUser(client(), 3, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email,
      title: 'Buyer',
      work_phone: '+1 555 0100',
      cell_phone: '+1 555 0101',
      instant_messaging_id: 1,
      instant_messaging_identifier: 'ada.skype',
      language_id: 1,
      timezone_id: 80,
      currency_id: 'EUR',
      account_status: 'inactive',
      set_password_manually: true,
      initial_password: '123456789012',
    });
    expect(advertiserUserSchema.safeParse(user).success).toBe(true);
    expect(user).toMatchObject({
      network_id: 1001,
      network_advertiser_id: 3,
      email,
      instant_messaging_id: 1,
      instant_messaging_identifier: 'ada.skype',
      currency_id: 'EUR',
      account_status: 'inactive',
      relationship: {},
    });
    expect(user).not.toHaveProperty('initial_password');
    expect(user).not.toHaveProperty('set_password_manually');
    expect(user.time_created).toBeGreaterThan(1_700_000_000);
  });

  it('accepts every platform 1..5 with an identifier, and 0 (none) without one', async () => {
    for (const im of [0, 1, 2, 3, 4, 5]) {
      const body: AdvertiserUserRequest = { email: freshEmail(), instant_messaging_id: im };
      if (im > 0) body.instant_messaging_identifier = `handle-${im}`;
      const user = await createAdvertiserUser(client(), 1, body);
      expect(user.instant_messaging_id).toBe(im);
    }
  });

  it('accepts each account status', async () => {
    for (const status of ['active', 'inactive', 'suspended'] as const) {
      const user = await createAdvertiserUser(client(), 1, {
        email: freshEmail(),
        account_status: status,
      });
      expect(user.account_status).toBe(status);
    }
  });

  it('e-mail must be unique among all advertiser users (any network, any case): 409', async () => {
    const email = freshEmail();
    await createAdvertiserUser(client(), 1, { email });
    const again = await apiFailure(
      createAdvertiserUser(client('network', 'globex'), 2, { email: email.toUpperCase() }),
    );
    expect(again).toMatchObject({ code: 'THM_API_HTTP', status: 409 });
    expect(again.remoteMessage).toMatch(/^email: /);
  });

  it('e-mails sent: reset unless the password is set manually, activation on request, welcome unless notification=false', async () => {
    const seen = (email: string) =>
      sbx.sandbox
        .notifications()
        .filter((n) => n.email === email)
        .map((n) => n.kind)
        .sort();
    const a = freshEmail();
    await createAdvertiserUser(client(), 1, { email: a });
    expect(seen(a)).toEqual(['password-reset', 'welcome']);

    const b = freshEmail();
    await createAdvertiserUser(
      client(),
      1,
      {
        email: b,
        send_activation_email: true,
        set_password_manually: true,
        initial_password: 'correct horse battery',
      },
      { sendWelcome: false },
    );
    expect(seen(b)).toEqual(['activation']);

    const c = freshEmail();
    await createAdvertiserUser(client(), 1, { email: c }, { sendWelcome: true });
    expect(seen(c)).toEqual(['password-reset', 'welcome']);
  });

  it('relationship query parameters fill the relationship object', async () => {
    const user = await createAdvertiserUser(
      client(),
      1,
      { email: freshEmail() },
      { relationships: ['logins', 'api'] },
    );
    expect(Object.keys(user.relationship).sort()).toEqual(['api', 'logins']);
  });

  it('an unknown advertiser is 404; a non-positive advertiserId is refused before sending', async () => {
    const error = await apiFailure(createAdvertiserUser(client(), 99, { email: freshEmail() }));
    expect(error).toMatchObject({ status: 404, remoteMessage: 'Advertiser not found' });
    const bad = await refused(createAdvertiserUser(client(), 0, { email: freshEmail() }));
    expect(bad.field).toBe('advertiserId');
  });

  it('a create is not retried on a transient failure (it could create twice)', async () => {
    sbx.sandbox.injectFault({ network: 'acme', endpoint: 'advertiser-users', status: 503 });
    const before = sbx.sandbox.requests();
    const error = await apiFailure(createAdvertiserUser(client(), 1, { email: freshEmail() }));
    expect(error.code).toBe('THM_API_TRANSIENT');
    expect(sbx.sandbox.requests() - before).toBe(1);
  });
});

describe('tiered commissions: POST /networks/tieredcommissions', () => {
  const valid: TieredCommissionRequest = {
    name: 'Q4 volume bonus',
    notes: 'for the top partners',
    status: 'active',
    start_date: '2026-12-01',
    end_date: '2026-12-31',
    period: 'monthly',
    network_affiliate_ids: [7001, 7002],
    network_offer_ids: [101],
    conversion_goal: 100,
    is_payout_enabled: true,
    payout_action: 'increase',
    payout_value: 10,
  };

  const refusedBodies: Array<[string, Record<string, unknown>, string]> = [
    ['no goal above 0 (rule 1)', { conversion_goal: 0 }, 'conversion_goal'],
    ['payout enabled without action (rule 2)', { payout_action: undefined }, 'payout_action'],
    ['payout enabled without value (rule 2)', { payout_value: undefined }, 'payout_value'],
    ['payout_value 0 while enabled (rule 2)', { payout_value: 0 }, 'payout_value'],
    [
      'revenue enabled with value -1 (rule 3)',
      { is_revenue_enabled: true, revenue_action: 'decrease', revenue_value: -1 },
      'revenue_value',
    ],
    [
      'revenue enabled without action (rule 3)',
      { is_revenue_enabled: true, revenue_value: 5 },
      'revenue_action',
    ],
    [
      'retroactive payout enabled without action (rule 4)',
      { is_retroactive_payout_enabled: true, retroactive_payout_value: 5 },
      'retroactive_payout_action',
    ],
    [
      'retroactive payout value 0 (rule 4)',
      {
        is_retroactive_payout_enabled: true,
        retroactive_payout_action: 'exact',
        retroactive_payout_value: 0,
      },
      'retroactive_payout_value',
    ],
    [
      'retroactive revenue enabled without value (rule 4)',
      { is_retroactive_revenue_enabled: true, retroactive_revenue_action: 'increase' },
      'retroactive_revenue_value',
    ],
    ['conversion_max equal to its goal (rule 5)', { conversion_max: 100 }, 'conversion_max'],
    ['event_max below its goal (rule 5)', { event_goal: 10, event_max: 5 }, 'event_max'],
    ['payout_max below its goal (rule 5)', { payout_goal: 50, payout_max: 49.5 }, 'payout_max'],
    [
      'sale_amount_max below its goal (rule 5)',
      { sale_amount_goal: 1000, sale_amount_max: 10 },
      'sale_amount_max',
    ],
    ['revenue_max below its goal (rule 5)', { revenue_goal: 20, revenue_max: 1 }, 'revenue_max'],
    ['relationship not empty (rule 6)', { relationship: { offer: 1 } }, 'relationship'],
    ['status not active/inactive', { status: 'paused' }, 'status'],
    ['period not allowed', { period: 'yearly' }, 'period'],
    ['payout_action not allowed', { payout_action: 'double' }, 'payout_action'],
    [
      'retroactive action not allowed',
      {
        is_retroactive_revenue_enabled: true,
        retroactive_revenue_action: 'unknown',
        retroactive_revenue_value: 1,
      },
      'retroactive_revenue_action',
    ],
    ['start_date not a date', { start_date: '2026-13-01' }, 'start_date'],
    ['end_date not YYYY-MM-DD', { end_date: '31/12/2026' }, 'end_date'],
    ['an unknown field', { payout_vaule: 3 }, 'payout_vaule'],
  ];

  it.each(refusedBodies)(
    'refuses %s: client names the field, sandbox 422',
    async (_, extra, field) => {
      const body = { ...valid, ...extra, relationship: extra.relationship ?? {} };
      for (const [k, v] of Object.entries(extra))
        if (v === undefined) delete (body as Record<string, unknown>)[k];
      const error = await refused(
        createTieredCommission(client(), body as TieredCommissionRequest),
      );
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`^tiered commission: ${field}: `));

      const answer = await raw('POST', '/networks/tieredcommissions', { body });
      expect(answer.status).toBe(422);
      expect(String(answer.body.error)).toMatch(new RegExp(`^${field}: `));
    },
  );

  it('creates one: every stored and computed field, relationship {} added by the client', async () => {
    const first = await createTieredCommission(client(), valid);
    const second = await createTieredCommission(client(), valid);
    expect(tieredCommissionSchema.safeParse(first).success).toBe(true);
    expect(second.network_tiered_commission_id).toBe(first.network_tiered_commission_id + 1);
    expect(first).toMatchObject({
      network_id: 1001,
      name: 'Q4 volume bonus',
      status: 'active',
      period: 'monthly',
      start_date: '2026-12-01',
      payout_action: 'increase',
      payout_value: 10,
      revenue_action: 'unknown',
      network_advertiser_ids: null,
      relationship: {},
      is_retroactive_payout_enabled: false,
      retroactive_payout_type: 'blank',
      retroactive_revenue_type: 'blank',
      payout_max: 0,
      event_goal: 0,
    });
    expect(first.time_saved).toBeGreaterThanOrEqual(first.time_created);
  });

  it('any one of the five goals above 0 is enough (rule 1)', async () => {
    for (const goal of [
      'payout_goal',
      'revenue_goal',
      'sale_amount_goal',
      'conversion_goal',
      'event_goal',
    ]) {
      const body = { ...valid, conversion_goal: 0, [goal]: 0.5 };
      const created = await createTieredCommission(client(), body);
      expect(created[goal as 'event_goal']).toBe(0.5);
    }
  });

  it('a maximum of 0 means none; a set one above its goal is accepted (rule 5)', async () => {
    const created = await createTieredCommission(client(), {
      ...valid,
      conversion_max: 0,
      payout_goal: 50,
      payout_max: 50.01,
      event_max: 3,
    });
    expect(created).toMatchObject({ conversion_max: 0, payout_max: 50.01, event_max: 3 });
  });

  it('exact is accepted and kept in the retroactive actions (rule 7)', async () => {
    const created = await createTieredCommission(client(), {
      ...valid,
      is_retroactive_payout_enabled: true,
      retroactive_payout_action: 'exact',
      retroactive_payout_value: 2.5,
      is_retroactive_revenue_enabled: true,
      retroactive_revenue_action: 'increase',
      retroactive_revenue_value: 4,
    });
    expect(created).toMatchObject({
      retroactive_payout_action: 'exact',
      retroactive_payout_type: 'cpa',
      retroactive_payout_percentage: 0,
      retroactive_revenue_action: 'increase',
      retroactive_revenue_type: 'rpa',
      retroactive_revenue_percentage: 4,
    });
  });

  it('exact in payout_action / revenue_action: the client refuses it; the API stores it as unknown (rule 7)', async () => {
    for (const field of ['payout_action', 'revenue_action'] as const) {
      const body = {
        ...valid,
        is_revenue_enabled: true,
        revenue_action: 'increase' as const,
        revenue_value: 3,
        [field]: 'exact' as const,
        relationship: {},
      };
      const error = await refused(createTieredCommission(client(), body));
      expect(error.field).toBe(field);
      expect(error.message).toContain('would store it as "unknown"');

      const answer = await raw('POST', '/networks/tieredcommissions', { body });
      expect(answer.status).toBe(200);
      expect(answer.body[field]).toBe('unknown');
    }
  });

  it('the sandbox also takes a body without relationship (treated as {})', async () => {
    const body: Record<string, unknown> = { ...valid };
    delete body.relationship;
    const answer = await raw('POST', '/networks/tieredcommissions', { body });
    expect(answer.status).toBe(200);
    expect(answer.body.relationship).toEqual({});
  });
});

describe('creatives: GET /networks/creatives/{creativeId}', () => {
  it('an image creative with its offer and resource asset', async () => {
    const creative = await getCreative(client(), 1);
    expect(creative).toMatchObject({
      network_offer_creative_id: 1,
      network_id: 1001,
      creative_type: 'image',
      creative_status: 'active',
      width: 300,
      relationship: {
        offer: { network_offer_id: creative.network_offer_id, network_id: 1001 },
        resource_asset: { content_type: 'image/png', image_width: 300 },
      },
    });
    expect(creative.html_code).toBeUndefined();
  });

  it('html, email and link creatives carry html_code; a text creative has no asset', async () => {
    for (const id of [2, 3, 4]) {
      const creative = await getCreative(client(), id);
      expect(creative.html_code).toMatch(/<a href=/);
      expect(creative.relationship.resource_asset).toBeUndefined();
    }
    const text = await getCreative(client(), 5);
    expect(text.creative_type).toBe('text');
    expect(text.html_code).toBeUndefined();
  });

  it('each network reads its own creatives', async () => {
    expect((await getCreative(client('network', 'globex'), 1)).network_id).toBe(1002);
  });

  it('an unknown id is 404 Creative not found; a bad id is refused before sending', async () => {
    const error = await apiFailure(getCreative(client(), 999));
    expect(error).toMatchObject({
      code: 'THM_API_HTTP',
      status: 404,
      remoteMessage: 'Creative not found',
    });
    expect((await raw('GET', '/networks/creatives/abc')).status).toBe(404);
    expect((await refused(getCreative(client(), 1.5))).field).toBe('creativeId');
  });
});

describe('marketplace connections: POST /partners/connections/table (paging in the query)', () => {
  it('defaults to page 1 of 50; later pages; the full envelope', async () => {
    const first = await searchConnections(client('marketplace'));
    expect(first.paging).toEqual({ page: 1, page_size: 50, total_count: 120 });
    expect(first.connections).toHaveLength(50);
    const third = await searchConnections(client('marketplace'), { page: 3 });
    expect(third.connections).toHaveLength(20);
    expect(third.connections[0]?.network_affiliate_id).toBe(7_101);
  });

  it('every connection is fully shaped: network, service_pay, seven payment keys, demand partner', async () => {
    const { connections } = await searchConnections(client('marketplace'), { pageSize: 2 });
    const c = connections[0]!;
    expect(Object.keys(c.relationship.payments)).toHaveLength(7);
    expect(c.relationship.payments.trusted_payouts).toHaveProperty('enabled');
    expect(c.relationship.demand_partner.relationship.partner_country_ids).toEqual([840, 124]);
    expect(
      Object.keys(c.relationship.demand_partner).filter((k) => k.endsWith('_contact_url')),
    ).toHaveLength(6);
  });

  it("each connection's api_key is a Secret: it never prints", async () => {
    const { connections } = await searchConnections(client('marketplace'), { pageSize: 1 });
    const c = connections[0]!;
    expect(c.api_key).toBeInstanceOf(Secret);
    expect(c.api_key.reveal()).toMatch(/^sbx_conn_/);
    expect(JSON.stringify(c)).not.toContain(c.api_key.reveal());
  });

  it('filters by status; allConnections walks every page once', async () => {
    const pending = await searchConnections(client('marketplace'), {
      status: 'pending',
      pageSize: 100,
    });
    expect(pending.paging.total_count).toBe(12);
    expect(new Set(pending.connections.map((c) => c.status))).toEqual(new Set(['pending']));
    const before = sbx.sandbox.requests();
    const all = await allConnections(client('marketplace'), {}, { pageSize: 50 });
    expect(sbx.sandbox.requests() - before).toBe(3);
    expect(new Set(all.map((c) => c.network_affiliate_id)).size).toBe(120);
    const deleted = await allConnections(client('marketplace'), { status: 'deleted' });
    expect(deleted).toHaveLength(12);
  });

  it('a page size over the endpoint cap (200) is served at the cap', async () => {
    const page = await searchConnections(client('marketplace'), { pageSize: 2_000 });
    expect(page.paging.page_size).toBe(200);
    expect(page.connections).toHaveLength(120);
  });

  it('refuses a bad status or page before sending; the sandbox refuses them too', async () => {
    const badStatus = await refused(
      searchConnections(client('marketplace'), { status: 'paused' as 'active' }),
    );
    expect(badStatus.field).toBe('status');
    expect((await refused(searchConnections(client('marketplace'), { page: 0 }))).field).toBe(
      'page',
    );
    const key = sbx.key('acme', 'marketplace');
    expect(
      await raw('POST', '/partners/connections/table', { key, body: { filters: { status: 'x' } } }),
    ).toMatchObject({ status: 400 });
    expect(
      (await raw('POST', '/partners/connections/table?page=0', { key, body: {} })).status,
    ).toBe(400);
  });

  it('a search is retried on a transient failure', async () => {
    sbx.sandbox.injectFault({ network: 'acme', endpoint: 'connections', status: 503 });
    const page = await searchConnections(client('marketplace'), { pageSize: 1 });
    expect(connectionsPageSchema.safeParse({ ...page, connections: [] }).success).toBe(true);
  });
});

describe('entity report: POST /networks/reporting/entity/table (paging in the body)', () => {
  const body = {
    from: '2026-11-01',
    to: '2026-11-07',
    timezone_id: 80,
    currency_id: 'USD',
    columns: [{ column: 'offer' }, { column: 'country' }],
  };

  it('defaults to page 1 of 50; a page size over 2,000 is served at 2,000', async () => {
    const page = await entityReportPage(client(), body);
    expect(page.paging).toEqual({ page: 1, page_size: 50, total_count: 1_000 });
    expect(page.table).toHaveLength(50);
    const big = await entityReportPage(client(), {
      ...body,
      columns: [{ column: 'affiliate' }, { column: 'date' }],
      page_size: 5_000,
    });
    expect(big.paging).toEqual({ page: 1, page_size: 2_000, total_count: 2_100 });
    expect(big.table).toHaveLength(2_000);
  });

  it('walks every page: all rows once, deterministic', async () => {
    const before = sbx.sandbox.requests();
    const report = await entityReport(client(), body, { pageSize: 300 });
    expect(sbx.sandbox.requests() - before).toBe(4);
    expect(report).toMatchObject({ totalCount: 1_000, capped: false, pages: 4 });
    expect(report.note).toBeUndefined();
    const keys = report.rows.map((r) => JSON.stringify((r as { columns: unknown }).columns));
    expect(new Set(keys).size).toBe(1_000);
    const again = await entityReport(client(), body);
    expect(again.rows).toEqual(report.rows);
  });

  it('stops at the 10,000-row cap and says so, without asking for pages past it', async () => {
    const capped = { ...body, columns: [{ column: 'affiliate' }, { column: 'offer' }] };
    const before = sbx.sandbox.requests();
    const report = await entityReport(client(), capped);
    expect(sbx.sandbox.requests() - before).toBe(5);
    expect(report.rows).toHaveLength(10_000);
    expect(report).toMatchObject({ totalCount: 12_000, capped: true, pages: 5 });
    expect(report.note).toContain('at most 10,000 rows');
    expect(report.note).toContain('10,000 of 12,000');

    // The sandbox itself: no row past the 10,000th, whatever the paging.
    const across = await entityReportPage(client(), { ...capped, page: 7, page_size: 1_500 });
    expect(across.table).toHaveLength(1_000);
    const past = await entityReportPage(client(), { ...capped, page: 6, page_size: 2_000 });
    expect(past.table).toHaveLength(0);
    expect(past.paging.total_count).toBe(12_000);
  });

  const refusedBodies: Array<[string, Record<string, unknown>, string]> = [
    ['from missing', { from: undefined }, 'from'],
    ['from not a date', { from: '2026-02-30' }, 'from'],
    ['to before from', { to: '2026-10-31' }, 'to'],
    ['no columns', { columns: [] }, 'columns'],
    ['an empty column name', { columns: [{ column: '' }] }, 'columns[0].column'],
    ['page 0', { page: 0 }, 'page'],
    ['page_size 1.5', { page_size: 1.5 }, 'page_size'],
  ];
  it.each(refusedBodies)('refuses %s: client and sandbox', async (_, extra, field) => {
    const sent: Record<string, unknown> = { ...body, ...extra };
    for (const [k, v] of Object.entries(extra)) if (v === undefined) delete sent[k];
    const error = await refused(entityReportPage(client(), sent as typeof body));
    expect(error.field).toBe(field);
    const answer = await raw('POST', '/networks/reporting/entity/table', { body: sent });
    expect(answer.status).toBe(422);
    expect(String(answer.body.error).startsWith(`${field}: `)).toBe(true);
  });

  it('the sandbox names an unknown column', async () => {
    const error = await apiFailure(
      entityReportPage(client(), { ...body, columns: [{ column: 'offer' }, { column: 'planet' }] }),
    );
    expect(error).toMatchObject({ status: 422 });
    expect(error.remoteMessage).toMatch(/^columns\[1\]\.column: unknown column "planet"/);
  });
});

describe('realms: each endpoint answers only its own portal key', () => {
  const networkEndpoints: Array<[string, string, unknown]> = [
    ['POST', '/networks/advertisers/1/users', { email: 'realm@adv.example' }],
    ['POST', '/networks/tieredcommissions', { conversion_goal: 1 }],
    ['GET', '/networks/creatives/1', undefined],
    [
      'POST',
      '/networks/reporting/entity/table',
      { from: '2026-11-01', to: '2026-11-01', columns: [{ column: 'offer' }] },
    ],
  ];

  it.each(networkEndpoints)(
    '%s %s: no key 401, other portals 403 Out of realm',
    async (method, path, body) => {
      expect(await raw(method, path, { key: null, body })).toEqual({
        status: 401,
        body: { error: 'No Authentication Method Found' },
      });
      for (const portal of ['affiliate', 'advertiser', 'marketplace'] as const) {
        expect(await raw(method, path, { key: sbx.key('acme', portal), body })).toEqual({
          status: 403,
          body: { error: 'Out of realm' },
        });
      }
    },
  );

  it('through the client: a network key on /partners and a marketplace key on /networks are THM_API_REALM', async () => {
    expect((await apiFailure(searchConnections(client('network')))).code).toBe('THM_API_REALM');
    expect(
      (await apiFailure(createTieredCommission(client('marketplace'), { conversion_goal: 1 })))
        .code,
    ).toBe('THM_API_REALM');
    expect((await apiFailure(getCreative(client('affiliate'), 1))).code).toBe('THM_API_REALM');
  });

  it('an unknown key is THM_API_AUTH', async () => {
    const stranger = createApiClient({
      baseUrl: sbx.baseUrl,
      apiKey: new Secret('sbx_not_a_key_000'),
      networkId: 'acme',
      http: TEST_HTTP,
    });
    clients.push(stranger);
    expect((await apiFailure(getCreative(stranger, 1))).code).toBe('THM_API_AUTH');
  });
});
