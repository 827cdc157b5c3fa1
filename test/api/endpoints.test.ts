import { describe, expect, it } from 'vitest';
import { KNOWN_ENDPOINTS, findEndpoint, pathParams } from '../../src/api/endpoints.js';
import {
  advertiserUserProblems,
  tieredCommissionProblems,
  RequestValidationError,
} from '../../src/api/resources/index.js';
import { parseIspTrendsResponse } from '../../src/api/validate.js';
import { sampleTrendsEntry } from '../harness/api.js';

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

  it('has request rules where the spec states some (thm api checks them before sending)', () => {
    const withRules = KNOWN_ENDPOINTS.filter((e) => e.request).map((e) => e.path);
    expect(withRules.sort()).toEqual([
      '/networks/advertisers/{advertiserId}/users',
      '/networks/billings/affiliates/summary',
      '/networks/creatives/{creativeId}',
      '/networks/reporting/entity/table',
      '/networks/tieredcommissions',
      '/partners/connections/table',
    ]);
    const creative = findEndpoint('GET', '/networks/creatives/0')!;
    expect(pathParams(creative, '/networks/creatives/0/')).toEqual(['0']);
    const check = (e: typeof creative, path: string, body?: unknown) =>
      e.request!.problems({
        params: pathParams(e, path),
        query: new URL(path, 'http://x').searchParams,
        body,
      });
    expect(check(creative, '/networks/creatives/0')).toEqual([
      { field: 'creativeId', problem: 'must be a positive integer' },
    ]);
    expect(check(creative, '/networks/creatives/7')).toEqual([]);
    const search = findEndpoint('POST', '/partners/connections/table')!;
    expect(
      check(search, '/partners/connections/table?page=2&page_size=x', {
        filters: { status: 'gone', other: 1 },
      }).map((p) => p.field),
    ).toEqual(['page_size', 'filters.status']);
    expect(check(search, '/partners/connections/table')).toEqual([]);
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

describe('the isptrends endpoint of thm api', () => {
  const entry = sampleTrendsEntry;

  it('checks every documented field and prints the answer whole, unlike a run', () => {
    const trends = findEndpoint('GET', '/networks/traffic/isptrends')!;
    const body = { entries: [{ ...entry(), new_field: 'x' }], extra: 1 };
    expect(trends.parse(body)).toEqual(body);
    const { entries } = parseIspTrendsResponse(body);
    expect(entries[0]).not.toHaveProperty('yesterday_seven_days_ago_total_clicks_delta');
    const badDelta = { entries: [{ ...entry(), yesterday_seven_days_ago_revenue_delta: 'x' }] };
    expect(() => trends.parse(badDelta)).toThrow(
      'entries[0].yesterday_seven_days_ago_revenue_delta: expected number, received string',
    );
    expect(() => parseIspTrendsResponse(badDelta)).not.toThrow();
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
