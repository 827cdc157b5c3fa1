import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync } from '../harness/cli.js';
import { startTestSandbox, type TestSandbox } from '../harness/sandbox.js';

/**
 * `thm config check --online`: every network's access call with its own key, against the
 * sandbox API: a premium network, one without premium, a key of another portal (403 Out of
 * realm), a key the API does not know (401), an API that is not there.
 */
describe('thm config check --online (the real binary, the sandbox API)', () => {
  let sbx: TestSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sbx = await startTestSandbox();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-online-')), 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        api: { connectTimeoutMs: 1_000, requestTimeoutMs: 5_000 },
        networks: [
          sbx.rawNetwork('acme'),
          sbx.rawNetwork('globex'),
          sbx.rawNetwork('portal', { apiKeyEnv: 'ADVERTISER_KEY' }),
          sbx.rawNetwork('revoked', { apiKeyEnv: 'REVOKED_KEY' }),
          sbx.rawNetwork('gone', { baseUrl: 'http://127.0.0.1:1/v1' }),
        ],
      }),
    );
    env = {
      ...sbx.env,
      THM_SANDBOX_KEY_GONE: 'any-key',
      ADVERTISER_KEY: sbx.key('acme', 'advertiser'),
      REVOKED_KEY: 'sk_not_a_key_the_api_knows',
      THM_CONFIG: file,
    };
  });
  afterAll(() => sbx?.close());

  it('one table: reachable, realm, premium per network; exit 1 when any fails', async () => {
    const r = await runThmAsync(['config', 'check', '--online'], { env });
    expect(r.code).toBe(1);
    const table = r.stdout
      .split('\n')
      .filter((line) => line.startsWith('# '))
      .slice(1)
      .map((line) => line.slice(2).split(/ {2,}/));
    expect(table[0]).toEqual(["online: GET /networks/traffic/access with each network's key"]);
    expect(table.slice(1, 2)).toEqual([['NETWORK', 'REACHABLE', 'REALM', 'PREMIUM', 'PROBLEM']]);
    const rows = Object.fromEntries(table.slice(3).map((row) => [row[0], row.slice(1)]));
    expect(rows.acme).toEqual(['yes', 'network', 'yes']);
    expect(rows.globex).toEqual(['yes', 'network', 'no']);
    expect(rows.portal?.slice(0, 3)).toEqual(['yes', 'other portal', '?']);
    expect(rows.portal?.[3]).toMatch(/Out of realm/);
    expect(rows.revoked?.slice(0, 3)).toEqual(['yes', 'key refused', '?']);
    expect(rows.revoked?.[3]).toMatch(/401/);
    expect(rows.gone?.slice(0, 3)).toEqual(['no', '?', '?']);
    expect(rows.gone?.[3]).toMatch(/ECONNREFUSED|refused/);
    expect(r.stderr).toContain('thm: 3 of 5 networks failed the online check');
    // No key on either stream.
    for (const key of [sbx.key('acme'), sbx.key('globex'), env.ADVERTISER_KEY!, env.REVOKED_KEY!])
      expect(r.stdout + r.stderr).not.toContain(key);
  }, 60_000);

  it('--json: the same per network, ok false; all good is exit 0', async () => {
    const r = await runThmAsync(['config', 'check', '--online', '--json'], { env });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { ok: boolean; online: Array<Record<string, unknown>> };
    expect(doc.ok).toBe(false);
    expect(doc.online.map(({ error: _e, ...rest }) => rest)).toEqual([
      { network: 'acme', reachable: true, realm: 'network', premium: true, ok: true },
      { network: 'globex', reachable: true, realm: 'network', premium: false, ok: true },
      { network: 'portal', reachable: true, realm: 'other portal', ok: false },
      { network: 'revoked', reachable: true, realm: 'key refused', ok: false },
      { network: 'gone', reachable: false, realm: 'unknown', ok: false },
    ]);
    const good = path.join(mkdtempSync(path.join(tmpdir(), 'thm-online-')), 'thm.json');
    writeFileSync(
      good,
      JSON.stringify({ networks: [sbx.rawNetwork('acme'), sbx.rawNetwork('globex')] }),
    );
    const ok = await runThmAsync(['config', 'check', '--online'], {
      env: { ...env, THM_CONFIG: good },
    });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
  }, 60_000);
});
