import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advertiserUserSchema,
  connectionsPageSchema,
  creativeSchema,
  entityReportPageSchema,
  tieredCommissionSchema,
} from '../../src/api/schemas.js';
import {
  builtinScenario,
  startSandbox,
  type Portal,
  type Sandbox,
} from '../../src/sandbox/index.js';

/**
 * The sandbox's endpoints beyond the monitor's, spoken to raw (no client): every answer fits
 * its schema, paging defaults and caps, path parameters, methods, faults on the new endpoints.
 */

let sandbox: Sandbox;
const keyOf = (portal: Portal = 'network') =>
  sandbox.keys.find((k) => k.network === 'acme' && k.portal === portal)!.key;

async function call(
  method: string,
  path: string,
  body?: unknown,
  portal: Portal = 'network',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(sandbox.baseUrl + path, {
    method,
    headers: { 'x-service-api-key': keyOf(portal), 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  sandbox = await startSandbox({ scenario: builtinScenario('demo') });
});
afterAll(() => sandbox.close());

const report = { from: '2026-11-01', to: '2026-11-30', columns: [{ column: 'date' }] };

describe('answers fit the schemas', () => {
  it.each([
    ['POST', '/networks/advertisers/12/users', { email: 'fit@adv.example' }, advertiserUserSchema],
    [
      'POST',
      '/networks/tieredcommissions',
      { event_goal: 1, relationship: {} },
      tieredCommissionSchema,
    ],
    ['GET', '/networks/creatives/6', undefined, creativeSchema],
    ['POST', '/networks/reporting/entity/table', report, entityReportPageSchema],
  ] as const)('%s %s', async (method, path, body, schema) => {
    const answer = await call(method, path, body);
    expect(answer.status).toBe(200);
    expect(schema.safeParse(answer.body).success).toBe(true);
  });

  it('every connection of every page fits, with the marketplace key', async () => {
    const answer = await call(
      'POST',
      '/partners/connections/table?page_size=200',
      {},
      'marketplace',
    );
    const parsed = connectionsPageSchema.safeParse(answer.body);
    expect(parsed.success).toBe(true);
    expect(parsed.data?.connections).toHaveLength(120);
  });
});

describe('paging: defaults 1 and 50, caps, bad values', () => {
  it('query paging (connections): defaults, cap 200, bad values 400', async () => {
    const def = await call('GET', '/partners/connections', undefined, 'marketplace');
    expect(def.body.paging).toEqual({ page: 1, page_size: 50, total_count: 120 });
    const capped = await call(
      'POST',
      '/partners/connections/table?page=1&page_size=999',
      {},
      'marketplace',
    );
    expect(capped.body.paging).toMatchObject({ page_size: 200 });
    for (const query of ['page=0', 'page=x', 'page_size=0', 'page_size=2.5']) {
      const bad = await call('POST', `/partners/connections/table?${query}`, {}, 'marketplace');
      expect(bad.status).toBe(400);
    }
  });

  it('body paging (entity report): defaults, cap 2,000; a month by date is 30 rows, in order', async () => {
    const def = await call('POST', '/networks/reporting/entity/table', report);
    expect(def.body.paging).toEqual({ page: 1, page_size: 50, total_count: 30 });
    const table = def.body.table as Array<{ columns: Array<{ id: string }> }>;
    expect(table.map((r) => r.columns[0]!.id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`),
    );
    const capped = await call('POST', '/networks/reporting/entity/table', {
      ...report,
      page_size: 100_000,
    });
    expect(capped.body.paging).toMatchObject({ page_size: 2_000 });
    const second = await call('POST', '/networks/reporting/entity/table', {
      ...report,
      page: 2,
      page_size: 20,
    });
    expect(second.body.table).toHaveLength(10);
  });
});

describe('paths, methods, faults', () => {
  it('path parameters: a non-numeric id is 404; a wrong method on a parameter path is 405', async () => {
    expect(await call('POST', '/networks/advertisers/abc/users', { email: 'x@y.example' })).toEqual(
      {
        status: 404,
        body: { error: 'Advertiser not found' },
      },
    );
    expect((await call('GET', '/networks/advertisers/1/users')).status).toBe(405);
    expect((await call('POST', '/networks/creatives/1', {})).status).toBe(405);
    expect((await call('GET', '/networks/creatives/0')).status).toBe(404);
  });

  it('faults apply to the new endpoints by name', async () => {
    sandbox.injectFault({ network: 'acme', endpoint: 'creatives', status: 503 });
    expect((await call('GET', '/networks/creatives/1')).status).toBe(503);
    expect((await call('GET', '/networks/creatives/1')).status).toBe(200);
    sandbox.injectFault({ network: 'acme', endpoint: 'entity-report', body: 'invalid-schema' });
    const corrupt = await call('POST', '/networks/reporting/entity/table', report);
    expect(entityReportPageSchema.safeParse(corrupt.body).success).toBe(false);
  });
});
