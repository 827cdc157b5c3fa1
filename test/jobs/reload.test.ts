import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_QUEUE } from '../../src/jobs/names.js';
import { runThmAsync } from '../harness/cli.js';
import { freePort, waitFor } from '../harness/ports.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { spawnWorkerProcess } from '../harness/worker-process.js';

const KEY = 'sk_reload_test_0123456789abcdef';
const NEW_KEY = 'sk_reload_rotated_fedcba9876543210';

/**
 * Config reload in a real `thm worker` process: SIGHUP and POST /-/reload, schedulers
 * reconciled, a bad config refused and shown until a good one loads; /-/healthy and /-/ready;
 * an unhandled rejection logged as one JSON line with a non-zero exit.
 */
describe('thm worker: config reload (the real daemon process)', () => {
  let redis: TestRedis;
  let port: number;
  let file: string;
  let keyFile: string;
  let env: NodeJS.ProcessEnv;
  let queue: Queue;
  const prefix = 'rl';
  const children: ChildProcess[] = [];

  const network = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    baseUrl: `https://api.${id}.example/v1`,
    apiKeyEnv: `${id.toUpperCase()}_API_KEY`,
    recipients: [`ops@${id}.example`],
    ...extra,
  });
  /** acme reads its key from a file, so that a reload can rotate it. */
  const acme = (extra: Record<string, unknown> = {}) => {
    const { apiKeyEnv: _env, ...rest } = network('acme', extra);
    return { ...rest, apiKeyFile: keyFile };
  };
  const writeConfig = (networks: unknown[], extra: Record<string, unknown> = {}) =>
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: redis.url, prefix },
        mail: { outboxDir: path.join(path.dirname(file), 'outbox') },
        monitoring: { port, host: '127.0.0.1' },
        networks,
        ...extra,
      }),
    );
  const schedulers = async () =>
    Object.fromEntries(
      (await queue.getJobSchedulers(0, 100, true)).map((s) => [s.key, `${s.pattern} ${s.tz}`]),
    );
  const http = async (route: string, method = 'GET') => {
    const res = await fetch(`http://127.0.0.1:${port}${route}`, { method });
    return { status: res.status, body: await res.text() };
  };

  beforeAll(async () => {
    redis = await startRedis();
    port = await freePort();
    file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-reload-')), 'thm.json');
    keyFile = path.join(path.dirname(file), 'acme.key');
    env = { THM_CONFIG: file, ACME_API_KEY: KEY, GLOBEX_API_KEY: KEY, LOG_LEVEL: 'info' };
    queue = new Queue(CHECKS_QUEUE, { connection: redis.client(), prefix });
    // One test stops Redis on purpose.
    queue.on('error', () => undefined);
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await queue.close();
    await redis.shutdown();
  });

  const spawnWorker = (nodeArgs: string[] = []) => spawnWorkerProcess(env, children, nodeArgs);
  const logLines = (text: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown> & { msg: string });

  it('SIGHUP and POST /-/reload: schedulers follow, a bad config is refused and shown until a good one loads', async () => {
    writeFileSync(keyFile, KEY);
    writeConfig([acme({ trafficCheck: { cron: '0 7 * * *' } })]);
    const w = spawnWorker();
    await waitFor(() => w.stderr().includes('worker started') || undefined, { timeoutMs: 20_000 });
    await waitFor(() => w.stderr().includes('monitoring server listening') || undefined, {
      timeoutMs: 20_000,
    });
    expect(await http('/-/healthy')).toEqual({ status: 200, body: 'OK\n' });
    expect((await http('/-/ready')).status).toBe(200);
    expect(await schedulers()).toEqual({
      'traffic-check:acme': '0 7 * * * UTC',
      'invoice-snapshot:acme': '0 8 * * * UTC',
    });

    // SIGHUP: a network added, a cron and zone changed, a key rotated (its file rewritten).
    writeFileSync(keyFile, NEW_KEY);
    writeConfig([
      acme({ trafficCheck: { cron: '0 6 * * *' }, timezone: 'Europe/Berlin' }),
      network('globex', { invoices: { enabled: false } }),
    ]);
    w.child.kill('SIGHUP');
    const reloaded = await waitFor(
      () => logLines(w.stderr()).find((l) => l.msg === 'config reloaded'),
      { timeoutMs: 20_000 },
    );
    expect(reloaded).toMatchObject({
      trigger: 'SIGHUP',
      added: ['globex'],
      removed: [],
      // The rewritten key file is no change of the config: every run reads it again
      // (test/jobs/key-file.test.ts).
      changed: [{ network: 'acme', fields: ['timezone', 'trafficCheck.cron'] }],
    });
    expect(await schedulers()).toEqual({
      'traffic-check:acme': '0 6 * * * Europe/Berlin',
      'invoice-snapshot:acme': '0 8 * * * Europe/Berlin',
      'traffic-check:globex': '0 7 * * * UTC',
    });

    // A bad config over HTTP: refused, one line naming the field, the running config stays.
    writeConfig([acme({ alerts: { minBaselineClicks: 'fifty' } }), network('globex')]);
    const refused = await http('/-/reload', 'POST');
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      ok: false,
      error: {
        code: 'THM_CONFIG',
        message: 'networks[0].alerts.minBaselineClicks: expected a number, got text',
      },
    });
    await waitFor(
      () => logLines(w.stderr()).some((l) => l.msg.startsWith('config reload failed')) || undefined,
      { timeoutMs: 10_000 },
    );
    const failedLines = logLines(w.stderr()).filter((l) =>
      l.msg.startsWith('config reload failed'),
    );
    expect(failedLines.map((l) => l.msg)).toEqual([
      'config reload failed: networks[0].alerts.minBaselineClicks: expected a number, got text',
    ]);
    const health = await http('/healthz');
    expect(JSON.parse(health.body)).toMatchObject({
      config:
        'config reload failed: networks[0].alerts.minBaselineClicks: expected a number, got text',
    });
    expect(health.status).toBe(200);
    // `thm status` reads Redis through a config of its own (this one's file is broken now).
    const statusFile = path.join(path.dirname(file), 'status.json');
    writeFileSync(
      statusFile,
      JSON.stringify({ redis: { url: redis.url, prefix }, networks: [network('globex')] }),
    );
    const status = await runThmAsync(['status', '--check'], {
      env: { ...env, THM_CONFIG: statusFile },
    });
    expect(status.stdout).toMatch(
      /config reload failed on [^:]+-\d+ at .*: networks\[0\]\.alerts\.minBaselineClicks: expected a number, got text/,
    );
    expect(status.code).toBe(1);
    const json = await runThmAsync(['status', '--check', '--json'], {
      env: { ...env, THM_CONFIG: statusFile },
    });
    const failures = (JSON.parse(json.stdout) as { configReloadFailures: unknown[] })
      .configReloadFailures;
    expect(failures).toEqual([
      {
        instance: expect.stringMatching(/-\d+$/) as string,
        message: expect.stringContaining('minBaselineClicks') as string,
        // ISO 8601, as every time in --json.
        failedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
      },
    ]);
    expect(await schedulers()).toHaveProperty(['traffic-check:globex']);
    expect((await http('/-/reload', 'GET')).status).toBe(405);

    // A network added whose key variable the worker was not started with: no reload brings
    // it, and the refusal says so, with the file option instead.
    writeConfig([acme({ trafficCheck: { cron: '0 6 * * *' } }), network('initech')]);
    const unset = await http('/-/reload', 'POST');
    expect(unset.status).toBe(400);
    expect(JSON.parse(unset.body)).toEqual({
      ok: false,
      error: {
        code: 'THM_CONFIG',
        message:
          "networks[1].apiKeyEnv: environment variable INITECH_API_KEY is not set or empty in the worker's environment, which is the one it started with: only a restart brings new environment variables (or use apiKeyFile, read when it is needed)",
      },
    });
    expect(await schedulers()).not.toHaveProperty(['traffic-check:initech']);

    // A good one again: globex removed, the failure cleared everywhere.
    writeConfig([acme({ trafficCheck: { cron: '0 6 * * *' }, timezone: 'Europe/Berlin' })]);
    const ok = await http('/-/reload', 'POST');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, changes: { removed: ['globex'] } });
    expect(await schedulers()).toEqual({
      'traffic-check:acme': '0 6 * * * Europe/Berlin',
      'invoice-snapshot:acme': '0 8 * * * Europe/Berlin',
    });
    expect(JSON.parse((await http('/healthz')).body)).not.toHaveProperty('config');
    const after = await runThmAsync(['status'], { env });
    expect(after.stdout).toMatch(/healthy/);
    expect(after.stdout).not.toMatch(/config reload failed/);

    expect(w.stderr()).not.toContain(KEY);
    expect(w.stderr()).not.toContain(NEW_KEY);
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
  }, 180_000);

  // Preloaded into the real binary: a failure no code of ours catches, once the worker runs.
  it.each([
    [
      'an unhandled rejection',
      "setTimeout(() => Promise.reject(new Error('boom from a test')), 4000)",
      'unhandled rejection: boom from a test',
    ],
    [
      'an uncaught exception',
      "setTimeout(() => { throw new TypeError('thrown in a timer') }, 4000)",
      'uncaught exception: thrown in a timer',
    ],
  ])(
    '%s: one JSON line, exit non-zero',
    async (_what, code, msg) => {
      writeConfig([network('acme')], { monitoring: {} });
      const w = spawnWorker(['--import', `data:text/javascript,${code}`]);
      const exit = await w.exited;
      expect(exit).not.toBe(0);
      expect(exit).not.toBeNull();
      const fatal = logLines(w.stderr()).filter((l) => l.level === 60);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]).toMatchObject({ msg });
      expect(w.stderr()).not.toMatch(/^\s+at /m);
    },
    60_000,
  );

  it('signals while the worker starts (Redis not there yet): SIGHUP reloads once it has started, SIGTERM exits 0 within 10 s', async () => {
    writeFileSync(keyFile, KEY);
    writeConfig([acme()]);
    await redis.stop();
    try {
      const w = spawnWorker();
      await waitFor(() => w.stderr().includes('redis connection problem') || undefined, {
        timeoutMs: 20_000,
      });
      writeConfig([acme(), network('globex')]);
      w.child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(w.child.exitCode).toBeNull();
      expect(w.child.signalCode).toBeNull();
      await redis.start();
      const reloaded = await waitFor(
        () => logLines(w.stderr()).find((l) => l.msg === 'config reloaded'),
        { timeoutMs: 30_000 },
      );
      expect(reloaded).toMatchObject({ trigger: 'SIGHUP', added: ['globex'] });
      w.child.kill('SIGTERM');
      expect(await w.exited).toBe(0);

      // Never started: SIGTERM still ends it, after the bound, not only a second signal.
      await redis.stop();
      const never = spawnWorker();
      await waitFor(() => never.stderr().includes('redis connection problem') || undefined, {
        timeoutMs: 20_000,
      });
      const signalled = Date.now();
      never.child.kill('SIGTERM');
      expect(await never.exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(20_000);
      expect(never.stderr()).toContain('the worker had not started within 10 s of the signal');
    } finally {
      await redis.start();
    }
  }, 120_000);
});
