import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import {
  collectPages,
  collectPagesUpTo,
  walkPages,
  type Page,
  type PageRequest,
} from '../../src/api/paging.js';
import { pagingSchema } from '../../src/api/schemas.js';
import { z } from 'zod';
import { TEST_HTTP, startTestSandbox, type TestSandbox } from '../harness/sandbox.js';

/** A list of `total` numbered items served `pageSize` at a time, as an API would. */
function fakeEndpoint(
  total: number,
  options: { cap?: number; reportTotal?: number; endless?: boolean } = {},
) {
  const calls: PageRequest[] = [];
  const fetchPage = async (request: PageRequest): Promise<Page<number>> => {
    calls.push(request);
    const size = Math.min(request.pageSize, options.cap ?? 2_000);
    const start = (request.page - 1) * size;
    const items = options.endless
      ? Array.from({ length: size }, (_, i) => start + i)
      : Array.from({ length: Math.max(0, Math.min(size, total - start)) }, (_, i) => start + i);
    return {
      items,
      paging: { page: request.page, page_size: size, total_count: options.reportTotal ?? total },
    };
  };
  return { calls, fetchPage };
}

describe('walkPages', () => {
  it.each([
    // total, pageSize, pages fetched
    [0, 50, 1],
    [1, 50, 1],
    [50, 50, 1],
    [51, 50, 2],
    [120, 50, 3],
    [120, 5_000, 1],
  ])('%i items at page size %i: %i page(s), all items once', async (total, pageSize, pages) => {
    const endpoint = fakeEndpoint(total);
    const items = await collectPages(endpoint.fetchPage, { pageSize });
    expect(items).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(endpoint.calls).toHaveLength(pages);
    expect(endpoint.calls[0]).toEqual({ page: 1, pageSize: Math.min(pageSize, 2_000) });
  });

  it('defaults to pages of 50, starting at 1', async () => {
    const endpoint = fakeEndpoint(75);
    await collectPages(endpoint.fetchPage);
    expect(endpoint.calls).toEqual([
      { page: 1, pageSize: 50 },
      { page: 2, pageSize: 50 },
    ]);
  });

  it('respects an endpoint cap smaller than 2,000', async () => {
    const endpoint = fakeEndpoint(450, { cap: 200 });
    const items = await collectPages(endpoint.fetchPage, { pageSize: 1_000, maxPageSize: 200 });
    expect(items).toHaveLength(450);
    expect(endpoint.calls.map((c) => c.pageSize)).toEqual([200, 200, 200]);
  });

  it('stops at an empty page even when total_count promises more', async () => {
    const endpoint = fakeEndpoint(60, { reportTotal: 1_000 });
    expect(await collectPages(endpoint.fetchPage)).toHaveLength(60);
    expect(endpoint.calls).toHaveLength(2);
  });

  it('stops at total_count even when pages keep coming', async () => {
    const endpoint = fakeEndpoint(0, { endless: true, reportTotal: 100 });
    expect(await collectPages(endpoint.fetchPage)).toHaveLength(100);
  });

  it('refuses to walk past maxPages', async () => {
    const endpoint = fakeEndpoint(0, { endless: true, reportTotal: 10_000_000 });
    const walk = collectPages(endpoint.fetchPage, {
      maxPages: 5,
      endpoint: 'POST /partners/connections/table',
    });
    await expect(walk).rejects.toMatchObject({ code: 'THM_API_INVALID_RESPONSE' });
    expect(endpoint.calls).toHaveLength(5);
  });

  it('yields page by page', async () => {
    const sizes: number[] = [];
    for await (const items of walkPages(fakeEndpoint(120).fetchPage)) sizes.push(items.length);
    expect(sizes).toEqual([50, 50, 20]);
  });
});

describe('paging against the sandbox (marketplace connections, capped at 200 per page)', () => {
  let sbx: TestSandbox;
  let client: ApiClient;
  const pageSchema = z.looseObject({
    connections: z.array(z.looseObject({ status: z.string() })),
    paging: pagingSchema,
  });

  beforeAll(async () => {
    sbx = await startTestSandbox();
    client = createApiClient({
      baseUrl: sbx.baseUrl,
      apiKey: sbx.apiKey('acme', 'marketplace'),
      networkId: 'acme',
      http: TEST_HTTP,
    });
  });
  afterAll(async () => {
    await client.close();
    await sbx.close();
  });

  const search = (status?: string) => async (request: PageRequest) => {
    const body = await client.request('POST', '/partners/connections/table', {
      query: { page: request.page, page_size: request.pageSize },
      body: { filters: status ? { status } : {} },
      schema: pageSchema,
      idempotent: true,
    });
    return { items: body.connections, paging: body.paging };
  };

  it('collects every connection once, 50 per page', async () => {
    const before = sbx.sandbox.requests();
    const all = await collectPages(search());
    expect(all).toHaveLength(120);
    expect(sbx.sandbox.requests() - before).toBe(3);
  });

  it('a page size over the endpoint cap is served at the cap and still collects everything', async () => {
    const before = sbx.sandbox.requests();
    expect(await collectPages(search(), { pageSize: 2_000 })).toHaveLength(120);
    expect(sbx.sandbox.requests() - before).toBe(1);
  });

  it('filters by status', async () => {
    const pending = await collectPages(search('pending'), { pageSize: 5 });
    expect(pending).toHaveLength(12);
    expect(new Set(pending.map((c) => c.status))).toEqual(new Set(['pending']));
  });
});

describe('collectPagesUpTo: stops at a row cap', () => {
  const endpoint =
    (total: number) =>
    async ({ page, pageSize }: PageRequest) => {
      const start = (page - 1) * pageSize;
      const items = Array.from(
        { length: Math.max(0, Math.min(pageSize, total - start)) },
        (_, i) => start + i,
      );
      return { items, paging: { page, page_size: pageSize, total_count: total } };
    };

  it.each([
    // total, cap, pageSize -> items, capped, pages
    [120, 100, 50, 100, true, 2],
    [100, 100, 50, 100, false, 2],
    [99, 100, 50, 99, false, 2],
    [1_000, 100, 30, 100, true, 4],
    [0, 100, 50, 0, false, 1],
  ])(
    'total %i, cap %i, pages of %i: %i items, capped %s, %i pages',
    async (total, cap, pageSize, count, capped, pages) => {
      const result = await collectPagesUpTo(endpoint(total), cap, { pageSize });
      expect(result.items).toHaveLength(count);
      expect(result.items.at(-1)).toBe(count > 0 ? count - 1 : undefined);
      expect(result).toMatchObject({ capped, pages, totalCount: total });
    },
  );
});
