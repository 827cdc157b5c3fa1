import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync, type CliResult } from '../harness/cli.js';
import { startTestSandbox, type TestSandbox } from '../harness/sandbox.js';

/**
 * `thm api` as the real binary against a sandbox started here: a temp config with acme (its
 * network key) and acme-market (acme's marketplace key, for /partners).
 */

let sbx: TestSandbox;
let dir: string;
let env: Record<string, string>;
const outputs: CliResult[] = [];

function writeConfig(name: string, networks: Array<Record<string, unknown>>): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ networks }));
  return file;
}

async function thm(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  const result = await runThmAsync(['api', ...args], { env: { ...env, ...extraEnv } });
  outputs.push(result);
  return result;
}

beforeAll(async () => {
  sbx = await startTestSandbox();
  dir = mkdtempSync(path.join(tmpdir(), 'thm-api-'));
  const config = writeConfig('thm.yaml', [
    sbx.rawNetwork('acme'),
    { ...sbx.rawNetwork('acme'), id: 'acme-market', apiKeyEnv: 'ACME_MARKET_KEY' },
  ]);
  env = {
    THM_CONFIG: config,
    THM_SANDBOX_KEY_ACME: sbx.key('acme'),
    ACME_MARKET_KEY: sbx.key('acme', 'marketplace'),
  };
});
afterAll(async () => {
  await sbx.close();
  // The keys never reach the output of any run.
  for (const { stdout, stderr } of outputs) {
    expect(stdout + stderr).not.toContain(sbx.key('acme'));
    expect(stdout + stderr).not.toContain(sbx.key('acme', 'marketplace'));
  }
});

describe('thm api: calls', () => {
  it('GET /networks/traffic/access prints the validated JSON, pretty', async () => {
    const r = await thm(['GET', '/networks/traffic/access', '--network', 'acme']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ is_enabled: true, has_premium: true });
    expect(r.stdout).toContain('\n  "has_premium": true');
  });

  it('--network defaults to the only configured network', async () => {
    const single = writeConfig('single.yaml', [sbx.rawNetwork('acme')]);
    const r = await thm(['get', '/networks/creatives/2'], { THM_CONFIG: single });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      network_offer_creative_id: 2,
      creative_type: 'html',
      relationship: { offer: { network_id: 1001 } },
    });
  });

  it('POST with --data @file; the API refusal is exit 1, one line naming the field', async () => {
    const file = path.join(dir, 'commission.json');
    writeFileSync(file, JSON.stringify({ conversion_goal: 10, relationship: {} }));
    const ok = await thm([
      'POST',
      '/networks/tieredcommissions',
      '--network',
      'acme',
      '--data',
      `@${file}`,
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ conversion_goal: 10, payout_action: 'unknown' });

    // --no-validate: sent as given, so the API's own answer shows.
    const bad = await thm([
      'POST',
      '/networks/tieredcommissions',
      '--network',
      'acme',
      '--no-validate',
      '--data',
      '{"conversion_goal": 10, "conversion_max": 5}',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/HTTP 422: conversion_max: must be greater than conversion_goal/);
  });

  it('--all-pages follows query paging (connections): every item once, api_key redacted', async () => {
    const r = await thm([
      'POST',
      '/partners/connections/table?page_size=50',
      '--network',
      'acme-market',
      '--data',
      '{"filters":{}}',
      '--all-pages',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      connections: Array<{ api_key: string; network_affiliate_id: number }>;
      total_count: number;
      pages: number;
    };
    expect(doc).toMatchObject({ total_count: 120, pages: 3 });
    expect(new Set(doc.connections.map((c) => c.network_affiliate_id)).size).toBe(120);
    expect(doc.connections[0]?.api_key).toBe('[redacted]');
    expect(r.stdout).not.toContain('sbx_conn_');
  });

  it('--all-pages follows body paging (entity report) and stops at the 10,000-row cap, saying so', async () => {
    const body = {
      from: '2026-11-01',
      to: '2026-11-02',
      columns: [{ column: 'affiliate' }, { column: 'offer' }],
    };
    const r = await thm([
      'POST',
      '/networks/reporting/entity/table',
      '--network',
      'acme',
      '--data',
      JSON.stringify(body),
      '--all-pages',
    ]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { table: unknown[]; total_count: number; capped: boolean };
    expect(doc.table).toHaveLength(10_000);
    expect(doc).toMatchObject({ total_count: 12_000, capped: true });
    expect(r.stderr.trim()).toMatch(/^thm: note: .*at most 10,000 rows.*10,000 of 12,000/);
  });
});

describe("thm api: the spec's request rules, checked before sending", () => {
  /** The requests the sandbox received while `work` ran. */
  async function sentDuring(work: () => Promise<CliResult>) {
    const before = sbx.sandbox.requestLog().length;
    const result = await work();
    return { result, sent: sbx.sandbox.requestLog().slice(before) };
  }
  const post = (path: string, data: unknown, ...more: string[]) =>
    thm(['POST', path, '--network', 'acme', '--data', JSON.stringify(data), ...more]);

  it.each([
    [
      'a tiered commission with no goal',
      '/networks/tieredcommissions',
      { is_payout_enabled: true, payout_action: 'increase', payout_value: 5 },
      /^thm: tiered commission: conversion_goal: at least one goal \(conversion_goal, event_goal, sale_amount_goal, payout_goal, revenue_goal\) must be greater than 0; nothing sent \(--no-validate sends it as given\)\n/,
    ],
    [
      'exact in payout_action',
      '/networks/tieredcommissions',
      { conversion_goal: 5, is_payout_enabled: true, payout_action: 'exact', payout_value: 5 },
      /^thm: tiered commission: payout_action: exact is valid only in the retroactive actions; the API would store it as "unknown"; nothing sent/,
    ],
    [
      'an advertiser user with a short initial_password',
      '/networks/advertisers/1/users',
      { email: 'a@b.example', set_password_manually: true, initial_password: 'short' },
      /^thm: advertiser user: initial_password: must be at least 12 characters; nothing sent/,
    ],
    [
      'an advertiser user with an empty relationship',
      '/networks/advertisers/1/users?relationship=',
      { email: 'a@b.example' },
      /^thm: advertiser user: relationship\[0\]: must not be empty/,
    ],
    [
      'an entity report that ends before it starts',
      '/networks/reporting/entity/table',
      { from: '2026-11-05', to: '2026-11-01', columns: [{ column: 'offer' }] },
      /^thm: entity report: to: must not be before from \(2026-11-05\)/,
    ],
    [
      'an invoice summary without filters.status',
      '/networks/billings/affiliates/summary',
      { filters: {} },
      /^thm: invoice summary: filters.status: expected string, received undefined/,
    ],
  ])('%s: exit 2, the rule named, nothing sent', async (_what, path, data, message) => {
    const { result, sent } = await sentDuring(() => post(path, data));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(sent).toEqual([]);
  });

  it('path and query rules: creativeId 0, page_size 0 (nothing sent)', async () => {
    const creative = await sentDuring(() =>
      thm(['GET', '/networks/creatives/0', '--network', 'acme']),
    );
    expect(creative.result.code).toBe(2);
    expect(creative.result.stderr).toMatch(
      /^thm: creative: creativeId: must be a positive integer/,
    );
    expect(creative.sent).toEqual([]);
    const search = await sentDuring(() =>
      thm(['POST', '/partners/connections/table?page_size=0', '--network', 'acme-market']),
    );
    expect(search.result.code).toBe(2);
    expect(search.result.stderr).toMatch(/^thm: connection search: page_size: must be a positive/);
    expect(search.sent).toEqual([]);
  });

  it('--no-validate sends exact as given, and the API stores it as unknown', async () => {
    const data = {
      conversion_goal: 5,
      is_payout_enabled: true,
      payout_action: 'exact',
      payout_value: 5,
      relationship: {},
    };
    const { result, sent } = await sentDuring(() =>
      post('/networks/tieredcommissions', data, '--no-validate'),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ payout_action: 'unknown' });
    expect(sent).toEqual([
      { method: 'POST', path: '/networks/tieredcommissions', network: 'acme' },
    ]);
  });

  it('--json: the refusal is one JSON document with its code', async () => {
    const r = await post('/networks/tieredcommissions', {}, '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: { code: 'THM_API_REQUEST_INVALID' },
    });
  });
});

describe('thm api: failures', () => {
  it.each([
    [['FETCH', '/networks'], /^thm: method: "FETCH" is not one of GET, POST/],
    [['GET', 'networks'], /^thm: path: "networks" must start with \//],
    [
      ['POST', '/networks/tieredcommissions', '--network', 'acme', '--data', '{bad'],
      /^thm: --data: not valid JSON/,
    ],
    [
      ['POST', '/networks/tieredcommissions', '--network', 'acme', '--data', '@/nonexistent.json'],
      /^thm: --data @\/nonexistent.json: file not found/,
    ],
    [
      ['GET', '/networks', '--network', 'acme', '--data', '{}'],
      /^thm: --data: a GET request has no body/,
    ],
    [['GET', '/networks', '--network', 'nope'], /^thm: --network: no network "nope"/],
    [
      ['GET', '/networks'],
      /^thm: --network: required when 2 networks are configured \(acme, acme-market\)/,
    ],
    [
      ['GET', '/networks/creatives/1', '--network', 'acme', '--all-pages'],
      /^thm: --all-pages: GET \/networks\/creatives\/1 is not a known paged endpoint/,
    ],
  ])('bad input %j: exit 2, one line', async (args, message) => {
    const r = await thm(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('a network key on /partners: exit 1, Out of realm', async () => {
    const r = await thm(['POST', '/partners/connections/table', '--network', 'acme']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/another portal.*HTTP 403: Out of realm/);
  });

  it('a response that breaks its schema is exit 1, the field named', async () => {
    sbx.sandbox.injectFault({ network: 'acme', endpoint: 'access', body: 'invalid-schema' });
    const r = await thm(['GET', '/networks/traffic/access', '--network', 'acme']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid response.*has_premium/);
  });

  it('--json: one JSON document on stdout also on failure', async () => {
    const r = await thm(['GET', '/networks/creatives/999', '--network', 'acme', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: { code: 'THM_API_HTTP', status: 404 },
    });
    expect(r.stderr).toMatch(/Creative not found/);
  });
});
