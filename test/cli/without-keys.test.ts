import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStack } from '../jobs/stack.js';
import { runThmAsync } from '../harness/cli.js';
import { startCliStack } from './cli-stack.js';

/**
 * An operator on the worker's host who cannot read the service's secrets (API keys, channel URLs
 * and signing keys): a systemd service's credentials (/run/credentials/<unit>/, readable by the
 * service alone) and variables of the service's environment that theirs lacks. The commands
 * that never call the API nor post to a channel answer all the same; those that call the API
 * say which key they could not read, in one line.
 */
describe('the CLI without the API keys and channel secrets', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  let keyFile: string;
  let credentials: string;
  const thm = (...args: string[]) => runThmAsync(args, { env });

  beforeAll(async () => {
    const cli = await startCliStack();
    stack = cli.stack;
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-nokeys-'));
    credentials = path.join(dir, 'credentials');
    keyFile = path.join(credentials, 'acme_key');
    const file = path.join(dir, 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: stack.redis.url, prefix: stack.config.redis.prefix },
        networks: [
          {
            ...withoutKey(stack.sbx.rawNetwork('acme', { name: 'Acme Network' })),
            apiKeyFile: keyFile,
            channels: [
              {
                type: 'webhook',
                urlFile: path.join(credentials, 'acme_hook_url'),
                secretFile: path.join(credentials, 'acme_hook_secret'),
              },
            ],
          },
          stack.sbx.rawNetwork('globex', {
            name: 'Globex Partners',
            channels: [{ type: 'slack', urlEnv: 'GLOBEX_SLACK_URL' }],
          }),
        ],
      }),
    );
    // No THM_SANDBOX_KEY_* variables: globex's key and Slack variables are not set here.
    env = { THM_CONFIG: file };
  }, 120_000);
  afterAll(() => stack?.close());

  it('status, history, invoices, silence, notify and replay answer without reading a key', async () => {
    const status = await thm('status', '--json');
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    const doc = JSON.parse(status.stdout) as { networks: Array<{ id: string }> };
    expect(doc.networks.map((n) => n.id)).toEqual(['acme', 'globex']);

    const history = await thm('history', '--network', 'acme', '--json');
    expect(history.code).toBe(0);
    const pairs = (JSON.parse(history.stdout) as { active: unknown[] }).active;
    expect(pairs).toHaveLength(2);

    expect((await thm('invoices', '--network', 'acme')).code).toBe(0);
    expect((await thm('notify', 'failed')).code).toBe(0);
    expect((await thm('replay', '--network', 'acme', '--json')).code).toBe(0);

    const added = await thm(
      'silence',
      'add',
      '--network',
      'globex',
      '--isp',
      'Comcast',
      '--for',
      '1d',
      '--reason',
      'no key needed',
    );
    // (A warning that the silence matches no pair globex has shown, and nothing of keys.)
    expect(added.stderr).not.toMatch(/apiKey/);
    expect(added.code).toBe(0);
    const id = added.stdout.trim();
    expect((await thm('silence', 'list')).stdout).toContain('no key needed');
    expect((await thm('silence', 'remove', id)).code).toBe(0);
  });

  it('thm run hands the check to the worker, which has the keys', async () => {
    stack.sbx.sandbox.setDay('2026-11-17');
    const run = await thm(
      'run',
      'traffic-check',
      '--network',
      'acme',
      '--date',
      '2026-11-17',
      '--wait',
      '--timeout',
      '30',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/acme/);
  });

  it('config check answers, each secret it cannot read a warning; --online refuses them', async () => {
    const check = await thm('config', 'check');
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/: OK \(2 networks, 5 secrets not resolved here, 5 warnings\)$/m);
    const notHere = 'not read here; the worker needs it (--online reads every secret)';
    expect(check.stderr.trim().split('\n')).toEqual([
      `warning: networks[0].apiKeyFile: cannot read ${keyFile} (no such file): ${notHere}`,
      `warning: networks[0].channels[0].urlFile: cannot read ${credentials}/acme_hook_url (no such file): ${notHere}`,
      `warning: networks[0].channels[0].secretFile: cannot read ${credentials}/acme_hook_secret (no such file): ${notHere}`,
      `warning: networks[1].apiKeyEnv: environment variable THM_SANDBOX_KEY_GLOBEX is not set or empty: ${notHere}`,
      `warning: networks[1].channels[0].urlEnv: environment variable GLOBEX_SLACK_URL is not set or empty: ${notHere}`,
    ]);

    const online = await thm('config', 'check', '--online');
    expect(online.code).toBe(2);
    expect(online.stdout).toBe('');
    expect(online.stderr).toContain(
      `networks[0].apiKeyFile: cannot read ${keyFile} (no such file)`,
    );
    expect(online.stderr).toContain(
      'networks[1].apiKeyEnv: environment variable THM_SANDBOX_KEY_GLOBEX is not set or empty',
    );
    expect(online.stderr).toContain(`networks[0].channels[0].urlFile: cannot read ${credentials}/`);
    expect(online.stderr).toContain('networks[1].channels[0].urlEnv: environment variable');
  });

  it('thm api, which calls the API, names the one key it needs', async () => {
    const api = await thm('api', 'GET', '/networks/traffic/access', '--network', 'acme');
    expect(api.code).toBe(2);
    expect(api.stdout).toBe('');
    expect(api.stderr.trim()).toBe(
      `thm: networks[0].apiKeyFile: cannot read ${keyFile} (no such file)`,
    );
    // With its key there, the other network's missing one does not stand in the way.
    const withKey = await runThmAsync(
      ['api', 'GET', '/networks/traffic/access', '--network', 'globex'],
      { env: { ...env, ...stack.sbx.env } },
    );
    expect(withKey.stderr).toBe('');
    expect(withKey.code).toBe(0);
    expect(JSON.parse(withKey.stdout)).toHaveProperty('has_premium');
  });
});

function withoutKey(network: Record<string, unknown>): Record<string, unknown> {
  const { apiKeyEnv: _apiKeyEnv, ...rest } = network;
  return rest;
}
