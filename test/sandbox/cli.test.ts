import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { Secret } from '../../src/config/secret.js';
import { TEST_HTTP } from '../harness/sandbox.js';

/** `thm sandbox` as its own process: the real binary over dist/ (built by the global setup). */
const BIN = path.resolve(__dirname, '../../bin/thm.js');

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
});

function startCli(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, 'sandbox', ...args], {
    env: { ...process.env, LOG_LEVEL: 'info' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const r = { child, stdout: () => out, stderr: () => err, exit };
  running.push(r);
  return r;
}

async function readyLine(r: Running): Promise<{
  baseUrl: string;
  keys: Array<{ network: string; portal: string; premium: boolean; key: string }>;
}> {
  const deadline = Date.now() + 15_000;
  while (!r.stdout().includes('\n')) {
    if (r.child.exitCode !== null)
      throw new Error(`thm sandbox exited ${r.child.exitCode}: ${r.stderr()}`);
    if (Date.now() > deadline) throw new Error(`no ready line; stderr: ${r.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return JSON.parse(r.stdout().split('\n')[0]!);
}

describe('thm sandbox', () => {
  it('prints one JSON ready line, serves the API, and exits 0 on SIGTERM', async () => {
    const r = startCli(['--port', '0']);
    const ready = await readyLine(r);
    expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(ready.keys).toContainEqual({
      network: 'acme',
      portal: 'network',
      premium: true,
      key: expect.stringMatching(/^sbx_acme_network_/),
    });
    expect(ready.keys).toContainEqual(
      expect.objectContaining({ network: 'globex', portal: 'network', premium: false }),
    );

    const acme = ready.keys.find((k) => k.network === 'acme' && k.portal === 'network')!;
    const client = createApiClient({
      baseUrl: ready.baseUrl,
      apiKey: new Secret(acme.key),
      networkId: 'acme',
      http: TEST_HTTP,
    });
    try {
      expect(await client.getTrafficAccess()).toMatchObject({ has_premium: true });
      await fetch(ready.baseUrl.replace('/v1', '/__sandbox/day'), {
        method: 'POST',
        body: JSON.stringify({ date: '2026-11-17' }),
      });
      const { entries } = await client.getIspTrends();
      expect(entries.filter((e) => e.network_tracking_domain_id === 102)).toHaveLength(10);
    } finally {
      await client.close();
    }

    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
    // Exactly one line on stdout; logs went to stderr.
    expect(r.stdout().trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr()).toContain('sandbox listening');
    expect(r.stderr()).not.toContain(acme.key);
  });

  it('exits 0 on SIGINT too, and takes a scenario file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-sbx-cli-'));
    const file = path.join(dir, 'one.json');
    writeFileSync(
      file,
      JSON.stringify({ networks: [{ id: 'solo', premium: true, portals: ['network'] }] }),
    );
    const r = startCli(['--port', '0', '--scenario', file]);
    const ready = await readyLine(r);
    expect(ready.keys).toEqual([
      {
        network: 'solo',
        portal: 'network',
        premium: true,
        key: expect.stringMatching(/^sbx_solo_network_[0-9a-f]{12}$/),
      },
    ]);
    r.child.kill('SIGINT');
    expect(await r.exit).toBe(0);
  });

  it('a bad scenario file or port is a one-line usage error, exit 2', async () => {
    const bad = startCli(['--scenario', '/nonexistent/scenario.yaml']);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr().trim().split('\n')).toHaveLength(1);
    expect(bad.stderr()).toContain(
      'scenario file /nonexistent/scenario.yaml: not found or unreadable',
    );
    const port = startCli(['--port', 'eighty']);
    expect(await port.exit).toBe(2);
    expect(port.stdout()).toBe('');
  });
});
