import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { createLogger } from '../../src/log.js';
import type { HealthReport } from '../../src/observability/health.js';
import { runThmAsync } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { valueOf } from '../observability/scrape.js';
import { startJobStack, type JobStack } from './stack.js';

/**
 * Redis loses its data under a running worker (a managed Redis restarted without persistence,
 * an operator's FLUSHALL): the worker used to log "redis connection restored" and never
 * schedule anything again, with /healthz green. Now its next sweep puts its config's schedulers
 * back, and until then /healthz and `thm status --check` say they are missing.
 */
// Long enough to look at what an operator sees between the loss and the next sweep.
const SWEEP_MS = 5_000;

describe('FLUSHALL under a running worker', () => {
  let stack: JobStack;
  let worker: RunningWorker;
  let env: NodeJS.ProcessEnv;
  const log: string[] = [];

  beforeAll(async () => {
    stack = await startJobStack(['acme', 'globex']);
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => log.push(c.toString()));
    worker = await stack.startWorker(
      {
        schedulers: true,
        sweepIntervalMs: SWEEP_MS,
        monitoring: { port: 0, canaryIntervalMs: 200 },
      },
      createLogger({ destination: stream, level: 'info' }),
    );
    env = stack.processEnv({
      worker: {},
      networks: stack.config.networks.map((n) => stack.sbx.rawNetwork(n.id, { name: n.name })),
    });
  }, 60_000);
  afterAll(() => stack?.close());

  const schedulerIds = async () =>
    (await stack.queue.getJobSchedulers(0, -1)).map((s) => s.key).sort();
  const metrics = async () =>
    (await request(`${worker.monitoring!.server.url}/metrics`)).body.text();
  const health = async () => {
    const res = await request(`${worker.monitoring!.server.url}/healthz`);
    return { status: res.statusCode, report: (await res.body.json()) as HealthReport };
  };

  it('the schedulers come back within a sweep; until then /healthz is 503 and status --check fails, naming them', async () => {
    const expected = [
      'invoice-snapshot:acme',
      'invoice-snapshot:globex',
      'traffic-check:acme',
      'traffic-check:globex',
    ];
    expect(await schedulerIds()).toEqual(expected);
    await waitFor(async () => ((await health()).status === 200 ? true : undefined));
    // A run before the loss: acme's last success is on record, and on /metrics.
    stack.sbx.sandbox.setDay('2026-11-15');
    expect((await stack.run('traffic-check', 'acme', '2026-11-15')).state).toBe('completed');
    const lastSuccess = await waitFor(async () => {
      const text = await metrics();
      const acme = valueOf(text, 'thm_last_successful_traffic_check_timestamp_seconds', {
        network: 'acme',
      });
      return valueOf(text, 'thm_active_pairs', { network: 'acme' }) === 2 ? acme : undefined;
    });
    const globexWatched = valueOf(
      await metrics(),
      'thm_last_successful_traffic_check_timestamp_seconds',
      { network: 'globex' },
    );

    // Flushed right after a sweep (seen as the worker's advert renewed), so the looks below
    // come before the next one.
    const redis = stack.redis.client();
    const advert = () =>
      redis.hget(`${stack.config.redis.prefix}:store:workers`, worker.schedulerInstance!);
    const before = await advert();
    expect(before).toBeTruthy();
    // (The advert is written first, under the schedulers' lock: the sweep is over once the
    // lock is released.)
    const lock = `${stack.config.redis.prefix}:lock:schedulers`;
    await waitFor(
      async () =>
        (await advert()) !== before && (await redis.exists(lock)) === 0 ? true : undefined,
      { timeoutMs: 2 * SWEEP_MS, intervalMs: 10 },
    );
    await redis.flushall();
    expect(await schedulerIds()).toEqual([]);
    const sick = await health();
    expect(sick.status).toBe(503);
    expect(sick.report.problems).toContain(
      `schedulers: 4 missing (${expected.join(', ')}): a worker holding them adds them back at its next sweep`,
    );
    const status = await runThmAsync(['status', '--check'], { env });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/traffic-check not scheduled/);

    // The next sweep: every scheduler back, each with its next job, said once each.
    await waitFor(async () => ((await schedulerIds()).length === 4 ? true : undefined), {
      timeoutMs: 3 * SWEEP_MS + 5_000,
      what: 'the schedulers added again',
    });
    const schedulers = await stack.queue.getJobSchedulers(0, -1);
    for (const s of schedulers)
      expect(await stack.queue.getJobState(`repeat:${s.key}:${s.next}`)).toBe('delayed');
    await waitFor(() =>
      log.filter((l) => l.includes('was missing')).length === 4 ? true : undefined,
    );
    const warned = log
      .filter((l) => l.includes('was missing'))
      .map((l) => JSON.parse(l) as { level: number; scheduler: string; msg: string });
    expect(warned.map((w) => w.scheduler).sort()).toEqual(expected);
    expect(warned[0]).toMatchObject({ level: 40 });
    expect(warned[0]?.msg).toMatch(
      /was missing \(Redis lost it: a restart without persistence, a FLUSHALL, a failover\?\); added again$/,
    );

    await waitFor(async () => ((await health()).status === 200 ? true : undefined), {
      timeoutMs: 10_000,
      what: '/healthz healthy again',
    });
    const after = await runThmAsync(['status', '--check'], { env });
    expect(after.stdout).not.toMatch(/not scheduled/);
    expect(after.stdout).not.toMatch(/no worker has scheduled it/);
    expect(after.code, after.stdout).toBe(0);

    // /metrics after the loss (a read of Redis taken after the heal): the last successes are
    // still there, as old as they were, not gone (an alert on their age fires when no run
    // comes); every scheduler present again; one worker, one config.
    const after5s = await waitFor(
      async () => {
        const text = await metrics();
        return valueOf(text, 'thm_active_pairs', { network: 'acme' }) === 0 ? text : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250, what: 'a read of Redis after the loss' },
    );
    expect(
      valueOf(after5s, 'thm_last_successful_traffic_check_timestamp_seconds', { network: 'acme' }),
    ).toBe(lastSuccess);
    expect(
      valueOf(after5s, 'thm_last_successful_traffic_check_timestamp_seconds', {
        network: 'globex',
      }),
    ).toBe(globexWatched);
    expect(valueOf(after5s, 'thm_scheduler_present')).toBe(4);
    expect(
      valueOf(after5s, 'thm_scheduler_present', { network: 'acme', kind: 'traffic-check' }),
    ).toBe(1);
    expect(valueOf(after5s, 'thm_workers_live')).toBe(1);
    expect(valueOf(after5s, 'thm_worker_config_variants')).toBe(1);

    // Sweeps go on: nothing more is added or said.
    await new Promise((r) => setTimeout(r, SWEEP_MS + 500));
    expect(log.filter((l) => l.includes('was missing'))).toHaveLength(4);
  }, 60_000);
});
