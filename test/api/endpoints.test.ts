import { describe, expect, it } from 'vitest';
import { KNOWN_ENDPOINTS, findEndpoint } from '../../src/api/endpoints.js';
import { collectPagesUpTo, type PageRequest } from '../../src/api/paging.js';
import {
  advertiserUserProblems,
  tieredCommissionProblems,
  RequestValidationError,
} from '../../src/api/resources/index.js';

describe('findEndpoint: the spec summary table by method and path', () => {
  it.each([
    ['GET', '/networks/traffic/access', '/networks/traffic/access'],
    ['GET', '/networks/traffic/isptrends/', '/networks/traffic/isptrends'],
    ['POST', '/partners/connections/table', '/partners/connections/table'],
    ['POST', '/networks/advertisers/42/users', '/networks/advertisers/{advertiserId}/users'],
    ['POST', '/networks/tieredcommissions', '/networks/tieredcommissions'],
    ['POST', '/networks/billings/affiliates/summary', '/networks/billings/affiliates/summary'],
    ['GET', '/networks/creatives/7', '/networks/creatives/{creativeId}'],
    ['POST', '/networks/reporting/entity/table', '/networks/reporting/entity/table'],
  ])('%s %s', (method, path, expected) => {
    expect(findEndpoint(method, path)?.path).toBe(expected);
  });

  it.each([
    ['GET', '/networks/creatives/abc'],
    ['POST', '/networks/creatives/7'],
    ['GET', '/networks'],
    ['POST', '/networks/advertisers/1/users/2'],
  ])('%s %s is not a known endpoint', (method, path) => {
    expect(findEndpoint(method, path)).toBeUndefined();
  });

  it('covers the eight endpoints of the summary table; creates are not retried', () => {
    expect(KNOWN_ENDPOINTS).toHaveLength(8);
    const creates = KNOWN_ENDPOINTS.filter((e) => !e.idempotent).map((e) => e.path);
    expect(creates.sort()).toEqual([
      '/networks/advertisers/{advertiserId}/users',
      '/networks/tieredcommissions',
    ]);
  });
});

describe('rule functions: every problem, named', () => {
  it('lists each broken rule of one body', () => {
    const problems = advertiserUserProblems({
      email: 'nope',
      language_id: 3,
      set_password_manually: true,
    });
    expect(problems.map((p) => p.field).sort()).toEqual([
      'email',
      'initial_password',
      'language_id',
    ]);
    const error = new RequestValidationError('advertiser user', problems);
    expect(error.message).toMatch(/\(and 2 more problem\(s\)\)$/);
  });

  it('exact in payout_action: refused by default, accepted when storing it as unknown', () => {
    const body = {
      conversion_goal: 1,
      is_payout_enabled: true,
      payout_action: 'exact',
      payout_value: 1,
    };
    expect(tieredCommissionProblems(body).map((p) => p.field)).toEqual(['payout_action']);
    expect(
      tieredCommissionProblems(body, { exactInPayoutOrRevenueAction: 'store-unknown' }),
    ).toEqual([]);
  });

  it('a disabled part needs neither action nor value', () => {
    expect(tieredCommissionProblems({ event_goal: 2, is_payout_enabled: false })).toEqual([]);
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
