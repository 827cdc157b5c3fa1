import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedIspTrendSchema, ispTrendSchema, type IspTrend } from '../../src/api/schemas.js';
import {
  builtinScenario,
  demoDays,
  loadScenarioFile,
  parseScenario,
  startSandbox,
  type Sandbox,
} from '../../src/sandbox/index.js';

/** A response body as the tests read it: arbitrary JSON, inspected field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Plain HTTP against the sandbox (no client code involved). */
async function call(
  sandbox: Sandbox,
  pathname: string,
  options: { key?: string; method?: string; body?: unknown } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(sandbox.baseUrl + pathname, {
    method: options.method ?? 'GET',
    headers: {
      ...(options.key ? { 'x-service-api-key': options.key } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, body, headers: response.headers };
}

async function control(sandbox: Sandbox, method: string, pathname: string, body?: unknown) {
  const response = await fetch(sandbox.controlUrl + pathname, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const keyOf = (sandbox: Sandbox, network: string, portal = 'network') =>
  sandbox.keys.find((k) => k.network === network && k.portal === portal)!.key;

/** The monitor's alertable rule with the default thresholds (src/config/schema.ts). */
function alertable(entry: IspTrend): boolean {
  const baseline = entry.seven_days_ago_total_clicks;
  const drop = -(entry.yesterday_seven_days_ago_total_clicks_trend ?? 0);
  return (
    baseline >= 50 &&
    drop >= 20 &&
    (baseline - entry.yesterday_total_clicks) / Math.sqrt(baseline) >= 3
  );
}
const severity = (entry: IspTrend) =>
  -(entry.yesterday_seven_days_ago_total_clicks_trend ?? 0) >= 50 ? 'c' : 'w';

describe('the demo scenario', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ scenario: builtinScenario('demo') });
  });
  afterAll(() => sandbox.close());

  it('starts on the first demo day and has keys for both networks and all portals', () => {
    expect(demoDays()).toEqual([
      '2026-11-14',
      '2026-11-15',
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
    ]);
    expect(sandbox.day()).toBe('2026-11-14');
    expect(sandbox.keys).toHaveLength(8);
    expect(sandbox.keys.find((k) => k.network === 'acme' && k.portal === 'network')).toMatchObject({
      premium: true,
    });
    expect(
      sandbox.keys.find((k) => k.network === 'globex' && k.portal === 'network'),
    ).toMatchObject({ premium: false });
    for (const k of sandbox.keys)
      expect(k.key).toMatch(new RegExp(`^sbx_${k.network}_${k.portal}_[0-9a-f]{12}$`));
  });

  it('tells its story: the alertable pairs of each day, and nothing from noise', async () => {
    const blocked =
      'Comcast,AT&T,Verizon,Charter Spectrum,Cox Communications,T-Mobile,CenturyLink,Frontier,Optimum,Windstream'
        .split(',')
        .map((isp) => `102/${isp}:c`);
    const story: Record<string, string[]> = {
      '2026-11-14': [],
      '2026-11-15': ['101/Comcast:w', '103/Verizon:w'],
      '2026-11-16': ['101/Comcast:c', '103/Verizon:w'],
      '2026-11-17': ['101/Comcast:c', '103/Verizon:w', ...blocked],
      '2026-11-18': ['101/Comcast:c', ...blocked],
      '2026-11-19': ['101/Comcast:c', '104/T-Mobile:w', ...blocked],
      '2026-11-20': ['104/T-Mobile:w', ...blocked],
      '2026-11-21': ['104/T-Mobile:c', ...blocked],
    };
    const key = keyOf(sandbox, 'acme');
    let noiseListed = 0;
    for (const day of demoDays()) {
      sandbox.setDay(day);
      const { status, body } = await call(sandbox, '/networks/traffic/isptrends', { key });
      expect(status).toBe(200);
      const entries = body.entries as IspTrend[];
      const got = entries
        .filter(alertable)
        .map((e) => `${e.network_tracking_domain_id}/${e.isp}:${severity(e)}`);
      expect(got.sort(), day).toEqual([...story[day]!].sort());
      noiseListed += entries.filter((e) => !alertable(e)).length;
    }
    // The API lists noise pairs too (yesterday below the three comparison days by chance).
    expect(noiseListed).toBeGreaterThan(20);
  });

  it('computes every field of an entry consistently, as the API does', async () => {
    sandbox.setDay('2026-11-18');
    const { body } = await call(sandbox, '/networks/traffic/isptrends', {
      key: keyOf(sandbox, 'acme'),
    });
    const urls: Record<number, string> = {
      101: 'https://trk.acme-offers.com',
      102: 'https://go.acmeclicks.net',
      103: 'https://links.acme-deals.io',
      104: 'https://t.acmepromo.com',
    };
    for (const raw of body.entries) {
      const entry = documentedIspTrendSchema.parse(raw);
      expect(entry.network_id).toBe(1001);
      expect(entry.relationship.url).toBe(urls[entry.network_tracking_domain_id]);
      for (const [token, period] of [
        ['seven', 'seven_days_ago'],
        ['fourteen', 'fourteen_days_ago'],
        ['thirty', 'thirty_days_ago'],
      ] as const) {
        const y = entry.yesterday_total_clicks;
        const then = entry[`${period}_total_clicks`];
        expect(y).toBeLessThan(then);
        expect(entry[`yesterday_${token}_days_ago_total_clicks_delta`]).toBe(y - then);
        expect(entry[`yesterday_${token}_days_ago_total_clicks_trend`]).toBeCloseTo(
          ((y - then) / then) * 100,
          2,
        );
        const conv = entry[`${period}_conversions`];
        expect(entry[`yesterday_${token}_days_ago_conversions_delta`]).toBe(
          entry.yesterday_conversions - conv,
        );
        expect(entry[`yesterday_${token}_days_ago_revenue_delta`]).toBeCloseTo(
          entry.yesterday_revenue - entry[`${period}_revenue`],
          1,
        );
      }
      expect(entry.yesterday_conversions).toBeLessThanOrEqual(entry.yesterday_total_clicks);
    }
  });

  it('answers the same on the same day, whatever came in between', async () => {
    const key = keyOf(sandbox, 'acme');
    sandbox.setDay('2026-11-16');
    const first = await call(sandbox, '/networks/traffic/isptrends', { key });
    sandbox.setDay('2026-11-20');
    await call(sandbox, '/networks/traffic/isptrends', { key });
    sandbox.setDay('2026-11-16');
    expect((await call(sandbox, '/networks/traffic/isptrends', { key })).body).toEqual(first.body);
  });

  it('serves invoice summaries per status and day', async () => {
    const key = keyOf(sandbox, 'globex');
    sandbox.setDay('2026-11-14');
    const unpaid = await call(sandbox, '/networks/billings/affiliates/summary', {
      key,
      method: 'POST',
      body: { filters: { status: 'unpaid' } },
    });
    const paid = await call(sandbox, '/networks/billings/affiliates/summary', {
      key,
      method: 'POST',
      body: { filters: { status: 'paid' } },
    });
    expect(unpaid.status).toBe(200);
    expect(Object.keys(unpaid.body).sort()).toEqual(['balance', 'billed', 'paid', 'total_count']);
    expect(paid.body).not.toEqual(unpaid.body);
    const bad = await call(sandbox, '/networks/billings/affiliates/summary', {
      key,
      method: 'POST',
      body: { filters: {} },
    });
    expect(bad).toMatchObject({ status: 400, body: { error: 'filters.status must be a string' } });
  });

  it('answers the premium error to a network without premium, and data once it has it', async () => {
    const key = keyOf(sandbox, 'globex');
    expect(await call(sandbox, '/networks/traffic/isptrends', { key })).toMatchObject({
      status: 403,
      body: { error: 'Traffic Health Premium package is required' },
    });
    expect((await call(sandbox, '/networks/traffic/access', { key })).body).toMatchObject({
      has_premium: false,
      premium_monitored_domain_quota: 0,
    });
    sandbox.setPremium('globex', true);
    expect((await call(sandbox, '/networks/traffic/isptrends', { key })).status).toBe(200);
    expect((await call(sandbox, '/networks/traffic/access', { key })).body.has_premium).toBe(true);
    sandbox.setPremium('globex', false);
    expect(() => sandbox.setPremium('nobody', true)).toThrow('unknown network "nobody"');
  });
});

describe('portals and realms', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ scenario: builtinScenario('demo') });
  });
  afterAll(() => sandbox.close());

  const endpoints = [
    ['network', '/networks'],
    ['affiliate', '/affiliates/affiliate'],
    ['advertiser', '/advertisers/advertiser'],
    ['marketplace', '/partners/connections'],
  ] as const;

  it.each(endpoints)(
    '%s portal endpoint %s: own key 200, other portals 403, no key 401',
    async (portal, pathname) => {
      for (const [otherPortal] of endpoints) {
        const { status, body } = await call(sandbox, pathname, {
          key: keyOf(sandbox, 'acme', otherPortal),
        });
        if (otherPortal === portal) expect(status).toBe(200);
        else expect({ status, body }).toEqual({ status: 403, body: { error: 'Out of realm' } });
      }
      expect(await call(sandbox, pathname)).toMatchObject({
        status: 401,
        body: { error: 'No Authentication Method Found' },
      });
      expect(await call(sandbox, pathname, { key: 'sbx_unknown_key_000' })).toMatchObject({
        status: 401,
      });
    },
  );

  it('an unknown prefix or path is 404, a wrong method 405', async () => {
    expect((await call(sandbox, '/elsewhere', { key: keyOf(sandbox, 'acme') })).status).toBe(404);
    expect((await call(sandbox, '/networks/unknown', { key: keyOf(sandbox, 'acme') })).status).toBe(
      404,
    );
    expect(
      (
        await call(sandbox, '/networks/traffic/access', {
          key: keyOf(sandbox, 'acme'),
          method: 'POST',
          body: {},
        })
      ).status,
    ).toBe(405);
  });

  it('counts API requests', async () => {
    const before = sandbox.requests();
    await call(sandbox, '/networks');
    await call(sandbox, '/networks', { key: keyOf(sandbox, 'acme') });
    expect(sandbox.requests() - before).toBe(2);
  });
});

describe('faults', () => {
  let sandbox: Sandbox;
  let acme: string;
  let globex: string;
  beforeAll(async () => {
    sandbox = await startSandbox({ scenario: builtinScenario('demo') });
    acme = keyOf(sandbox, 'acme');
    globex = keyOf(sandbox, 'globex');
  });
  afterAll(() => sandbox.close());

  it('apply to their network and endpoint only, `times` times', async () => {
    sandbox.injectFault({ network: 'acme', endpoint: 'access', status: 503, times: 2 });
    expect((await call(sandbox, '/networks/traffic/access', { key: globex })).status).toBe(200);
    expect((await call(sandbox, '/networks', { key: acme })).status).toBe(200);
    expect((await call(sandbox, '/networks/traffic/access', { key: acme })).body).toEqual({
      error: 'Service Unavailable',
    });
    expect((await call(sandbox, '/networks/traffic/access', { key: acme })).status).toBe(503);
    expect((await call(sandbox, '/networks/traffic/access', { key: acme })).status).toBe(200);
  });

  it('429 carries Retry-After; queued faults apply in order; clearFaults drops them', async () => {
    sandbox.injectFault([
      { endpoint: 'summary', status: 429, retryAfter: 30 },
      { endpoint: '*', status: 500 },
    ]);
    const first = await call(sandbox, '/networks/billings/affiliates/summary', {
      key: acme,
      method: 'POST',
      body: { filters: { status: 'unpaid' } },
    });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('30');
    expect((await call(sandbox, '/networks', { key: acme })).status).toBe(500);
    sandbox.injectFault({ status: 502, times: 10 });
    sandbox.clearFaults();
    expect((await call(sandbox, '/networks', { key: acme })).status).toBe(200);
  });

  it('bodies: malformed JSON, a schema violation in the last entry, verbatim text', async () => {
    sandbox.setDay('2026-11-17');
    sandbox.injectFault({ endpoint: 'isptrends', body: 'malformed-json' });
    const malformed = await call(sandbox, '/networks/traffic/isptrends', { key: acme });
    expect(malformed.status).toBe(200);
    expect(typeof malformed.body).toBe('string');
    const good = (await call(sandbox, '/networks/traffic/isptrends', { key: acme })).body;
    sandbox.injectFault({ endpoint: 'isptrends', body: 'invalid-schema' });
    const invalid = (await call(sandbox, '/networks/traffic/isptrends', { key: acme })).body;
    const last = good.entries.length - 1;
    expect(invalid.entries[last].yesterday_total_clicks).toBe(
      String(good.entries[last].yesterday_total_clicks),
    );
    expect(invalid.entries.slice(0, last)).toEqual(good.entries.slice(0, last));
    sandbox.injectFault({ endpoint: 'access', status: 502, body: '<html>bad gateway</html>' });
    expect(await call(sandbox, '/networks/traffic/access', { key: acme })).toMatchObject({
      status: 502,
      body: '<html>bad gateway</html>',
    });
  });

  it('truncated: the connection closes before the declared length', async () => {
    sandbox.injectFault({ endpoint: 'isptrends', body: 'truncated' });
    await expect(call(sandbox, '/networks/traffic/isptrends', { key: acme })).rejects.toThrow();
  });

  it('a delay holds the answer back', async () => {
    sandbox.injectFault({ endpoint: 'access', delayMs: 300 });
    const started = Date.now();
    expect((await call(sandbox, '/networks/traffic/access', { key: acme })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('a hang never answers (the client gives up)', async () => {
    sandbox.injectFault({ endpoint: 'access', hang: true });
    const aborted = fetch(sandbox.baseUrl + '/networks/traffic/access', {
      headers: { 'x-service-api-key': acme },
      signal: AbortSignal.timeout(300),
    });
    await expect(aborted).rejects.toThrow();
  });

  it('an invalid fault is refused', () => {
    expect(() => sandbox.injectFault({ endpoint: 'nowhere' as 'access' })).toThrow();
  });
});

describe('the control surface (for a sandbox in another process)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ scenario: builtinScenario('demo') });
  });
  afterAll(() => sandbox.close());

  it('sets the day, queues and clears faults, switches premium, reports state', async () => {
    expect(await control(sandbox, 'POST', '/day', { date: '2026-11-19' })).toEqual({
      status: 200,
      body: { ok: true, day: '2026-11-19' },
    });
    expect(sandbox.day()).toBe('2026-11-19');
    expect((await control(sandbox, 'POST', '/day', { date: '2026-13-40' })).status).toBe(400);

    expect(
      (
        await control(sandbox, 'POST', '/faults', [
          { endpoint: 'access', status: 503 },
          { status: 500 },
        ])
      ).body,
    ).toEqual({ ok: true, faults: 2 });
    expect((await control(sandbox, 'POST', '/faults', { endpoint: 'nowhere' })).status).toBe(400);
    const state = await control(sandbox, 'GET', '');
    expect(state.body).toMatchObject({ day: '2026-11-19', faults: 2 });
    expect(state.body.keys).toHaveLength(8);
    const key = keyOf(sandbox, 'acme');
    expect((await call(sandbox, '/networks/traffic/access', { key })).status).toBe(503);
    expect((await control(sandbox, 'DELETE', '/faults')).status).toBe(200);
    expect((await call(sandbox, '/networks', { key })).status).toBe(200);

    expect(
      (await control(sandbox, 'POST', '/premium', { network: 'acme', on: false })).status,
    ).toBe(200);
    expect((await call(sandbox, '/networks/traffic/isptrends', { key })).status).toBe(403);
    expect(
      (await control(sandbox, 'POST', '/premium', { network: 'nobody', on: true })).status,
    ).toBe(400);
  });
});

describe('the bench scenario', () => {
  it('serves exactly pairsPerNetwork alertable pairs per network, network ids filled in', async () => {
    const sandbox = await startSandbox({
      scenario: builtinScenario('bench', { networks: 3, pairsPerNetwork: 1_000 }),
    });
    try {
      expect(sandbox.keys.map((k) => `${k.network}/${k.portal}`)).toEqual([
        'bench-1/network',
        'bench-2/network',
        'bench-3/network',
      ]);
      const seen = new Set<number>();
      for (const k of sandbox.keys) {
        const { body } = await call(sandbox, '/networks/traffic/isptrends', { key: k.key });
        const entries = (body.entries as unknown[]).map((e) => ispTrendSchema.parse(e));
        expect(entries).toHaveLength(1_000);
        expect(entries.every(alertable)).toBe(true);
        expect(new Set(entries.map((e) => `${e.network_tracking_domain_id}/${e.isp}`)).size).toBe(
          1_000,
        );
        const ids = new Set(entries.map((e) => e.network_id));
        expect(ids.size).toBe(1);
        seen.add([...ids][0]!);
      }
      expect(seen.size).toBe(3);
      // Both severities occur.
      const { body } = await call(sandbox, '/networks/traffic/isptrends', {
        key: sandbox.keys[0]!.key,
      });
      expect(new Set((body.entries as IspTrend[]).map(severity))).toEqual(new Set(['w', 'c']));
    } finally {
      await sandbox.close();
    }
  });

  it('sends a body asked for again (joined, from its cache) as the same bytes as the first time (as parts)', async () => {
    const sandbox = await startSandbox({
      scenario: builtinScenario('bench', { networks: 2, pairsPerNetwork: 300 }),
    });
    try {
      const raw = async (key: string) => {
        const response = await fetch(`${sandbox.baseUrl}/networks/traffic/isptrends`, {
          headers: { 'x-service-api-key': key },
        });
        const text = await response.text();
        expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
        return text;
      };
      const [first, second] = sandbox.keys.map((k) => k.key);
      const once = await raw(first!);
      expect(await raw(first!)).toBe(once);
      expect(await raw(first!)).toBe(once);
      // Another network of the same size: the same template, its own id.
      const other = await raw(second!);
      expect(other).not.toBe(once);
      expect(JSON.parse(other)).toEqual(
        JSON.parse(
          once.replaceAll(
            /"network_id":\d+/g,
            `"network_id":${(JSON.parse(other) as { entries: IspTrend[] }).entries[0]!.network_id}`,
          ),
        ),
      );
    } finally {
      await sandbox.close();
    }
  });

  it('an empty bench network answers an empty list', async () => {
    const sandbox = await startSandbox({
      scenario: builtinScenario('bench', { networks: 1, pairsPerNetwork: 0 }),
    });
    try {
      expect(
        (await call(sandbox, '/networks/traffic/isptrends', { key: sandbox.keys[0]!.key })).body,
      ).toEqual({ entries: [] });
    } finally {
      await sandbox.close();
    }
  });
});

describe('scenario files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-scenario-'));

  it('loads YAML with shorthand and full entries, fixed keys and summaries', async () => {
    const file = path.join(dir, 'scenario.yaml');
    writeFileSync(
      file,
      [
        'seed: 3',
        'networks:',
        '  - id: initech',
        '    name: Initech',
        '    premium: true',
        '    portals: [network, affiliate]',
        '    keys: { network: initech-fixed-key }',
        '    days:',
        '      2026-11-21:',
        '        entries:',
        '          - { domain: 7, isp: Comcast, clicks: [120, 400, 390, 410] }',
        '          - { network_tracking_domain_id: 8, isp: Odd, anything: goes }',
        '        summaries:',
        '          unpaid: { total_count: 12, balance: 1500, billed: 4000, paid: 2500 }',
      ].join('\n'),
    );
    const scenario = loadScenarioFile(file);
    const sandbox = await startSandbox({ scenario });
    try {
      expect(sandbox.day()).toBe('2026-11-21');
      expect(sandbox.keys.map((k) => k.portal)).toEqual(['network', 'affiliate']);
      const key = keyOf(sandbox, 'initech');
      expect(key).toBe('initech-fixed-key');
      const { body } = await call(sandbox, '/networks/traffic/isptrends', { key });
      expect(body.entries).toHaveLength(2);
      expect(documentedIspTrendSchema.parse(body.entries[0])).toMatchObject({
        network_id: 1001,
        network_tracking_domain_id: 7,
        yesterday_seven_days_ago_total_clicks_delta: -280,
        yesterday_seven_days_ago_total_clicks_trend: -70,
        relationship: { url: 'https://trk7.example.com' },
      });
      expect(body.entries[1]).toEqual({
        network_tracking_domain_id: 8,
        isp: 'Odd',
        anything: 'goes',
      });
      const summary = await call(sandbox, '/networks/billings/affiliates/summary', {
        key,
        method: 'POST',
        body: { filters: { status: 'unpaid' } },
      });
      expect(summary.body).toEqual({ total_count: 12, balance: 1500, billed: 4000, paid: 2500 });
      sandbox.setDay('2026-11-22');
      expect((await call(sandbox, '/networks/traffic/isptrends', { key })).body).toEqual({
        entries: [],
      });
    } finally {
      await sandbox.close();
    }
  });

  it.each([
    [{ networks: [] }, 'networks: Too small'],
    [{ networks: [{ id: 'Bad Id' }] }, 'networks[0].id: must be a slug'],
    [{ networks: [{ id: 'a', days: { '2026-02-30': {} } }] }, 'must be a date YYYY-MM-DD'],
    [
      {
        networks: [
          {
            id: 'a',
            days: { '2026-11-21': { entries: [{ domain: 1, isp: 'x', clicks: [1, 2, '3', 4] }] } },
          },
        ],
      },
      'networks[0].days.2026-11-21.entries[0].clicks[2]: expected number, received string',
    ],
    [{ networks: [{ id: 'a' }, { id: 'a' }] }, 'networks[1].id: duplicate network id "a"'],
    [
      { networks: [{ id: 'a', generator: { type: 'realistic', domains: [], isps: [] } }] },
      'networks[0].generator.domains',
    ],
  ])('a bad scenario is one line naming the field (%j)', (raw, message) => {
    expect(() => parseScenario(raw)).toThrow(message);
  });

  it('an unreadable file or bad YAML is a config error', () => {
    expect(() => loadScenarioFile(path.join(dir, 'missing.yaml'))).toThrow(
      'not found or unreadable',
    );
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'networks: [\n');
    expect(() => loadScenarioFile(bad)).toThrow('not valid YAML');
  });

  it('keys are the same on every start of the same scenario', async () => {
    const a = await startSandbox({ scenario: builtinScenario('demo') });
    const b = await startSandbox({ scenario: builtinScenario('demo') });
    try {
      expect(a.keys).toEqual(b.keys);
      expect(a.baseUrl).not.toBe(b.baseUrl);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
