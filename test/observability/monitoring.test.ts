import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../../src/jobs/worker.js';
import { silentLogger } from '../../src/log.js';
import { RedisStore } from '../../src/store/redis-store.js';
import type { HealthReport } from '../../src/observability/health.js';
import { waitFor } from '../harness/ports.js';
import { completed, startJobStack, type JobStack } from '../jobs/stack.js';
import { valueOf } from './scrape.js';

/**
 * The monitoring server of a real worker: sandbox API over HTTP, a private Redis, SMTP.
 * Figures are scraped after real runs; the health check is driven into its failure modes by
 * pausing the workers and stopping Redis.
 */
const AUTH = 'ops:correct horse battery';
const CANARY_MS = 200;
/**
 * The Redis fault tests wait up to 10-20 s for the outage to show and 30 s for the worker to be
 * healthy again (a busy machine slows Redis's restart and the reconnects): their own budget
 * is the sum, so a slow recovery fails on the wait that names it, not on vitest's timeout.
 */
const OUTAGE_TEST_MS = 60_000;

async function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await request(url, { method: method as 'GET', headers });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}
const basic = (credentials: string) => ({
  authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
});

describe('monitoring server of the worker', () => {
  let stack: JobStack;
  let worker: RunningWorker;
  let base: string;

  beforeAll(async () => {
    stack = await startJobStack(['acme', 'globex'], { monitoring: { dashboardAuth: AUTH } });
    worker = await stack.startWorker({ monitoring: { port: 0, canaryIntervalMs: CANARY_MS } });
    base = worker.monitoring!.server.url;
    // The Redis outage below is on purpose: the stack's own clients need not print it.
    stack.queue.on('error', () => undefined);
    stack.events.on('error', () => undefined);
  });
  afterAll(() => stack.close());

  const scrape = async () => {
    const res = await get(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body;
  };
  const health = async () => {
    const res = await get(`${base}/healthz`);
    return { status: res.status, report: JSON.parse(res.body) as HealthReport };
  };

  it('/metrics: the figures move with a real traffic-check, its API calls and its e-mail', async () => {
    const before = await scrape();
    // Every network's runs are counted from 0 at the start, not from the first one.
    expect(valueOf(before, 'thm_job_runs_total')).toBe(0);
    expect(
      valueOf(before, 'thm_job_runs_total', {
        kind: 'traffic-check',
        network: 'globex',
        outcome: 'failed',
      }),
    ).toBe(0);
    // And each network's last success has its series from the start: the worker's start for
    // one that has none, so that an alert on its age fires when no run comes.
    const startedAt = valueOf(before, 'thm_last_successful_traffic_check_timestamp_seconds', {
      network: 'acme',
    });
    expect(startedAt).toBeGreaterThan(Date.now() / 1000 - 120);
    expect(valueOf(before, 'thm_traffic_check_overdue_after_seconds', { network: 'acme' })).toBe(
      86_400 + 120 * 60,
    );
    expect(valueOf(before, 'thm_process_cpu_seconds_total')).toBeGreaterThanOrEqual(0);
    expect(valueOf(before, 'thm_redis_up')).toBe(1);

    stack.sbx.sandbox.setDay('2026-11-15');
    stack.sbx.sandbox.injectFault({
      network: 'acme',
      endpoint: 'isptrends',
      status: 503,
      times: 1,
    });
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-15'));
    expect(outcome.counts).toMatchObject({ new: 2 });
    await stack.smtp.waitForMessages(1);

    // Figures read from Redis are cached a few seconds: wait for a read taken after delivery.
    const text = await waitFor(
      async () => {
        const t = await scrape();
        const fresh = valueOf(t, 'thm_active_pairs', { network: 'acme' }) === 2;
        return fresh &&
          valueOf(t, 'thm_notifications_total', { state: 'sent' }) === 1 &&
          valueOf(t, 'thm_outbox_pending') === 0
          ? t
          : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250, what: 'sent notification in /metrics' },
    );
    const acme = { network: 'acme' };
    expect(
      valueOf(text, 'thm_job_runs_total', { kind: 'traffic-check', ...acme, outcome: 'ok' }),
    ).toBe(1);
    expect(valueOf(text, 'thm_job_duration_seconds_count', { kind: 'traffic-check' })).toBe(1);
    expect(
      valueOf(text, 'thm_api_requests_total', { ...acme, endpoint: 'access', status: '200' }),
    ).toBe(1);
    expect(
      valueOf(text, 'thm_api_requests_total', { ...acme, endpoint: 'isptrends', status: '503' }),
    ).toBe(1);
    expect(
      valueOf(text, 'thm_api_requests_total', { ...acme, endpoint: 'isptrends', status: '200' }),
    ).toBe(1);
    expect(valueOf(text, 'thm_api_retries_total', { ...acme, endpoint: 'isptrends' })).toBe(1);
    expect(
      valueOf(text, 'thm_api_request_duration_seconds_count', { ...acme, endpoint: 'isptrends' }),
    ).toBe(2);
    expect(
      valueOf(text, 'thm_notifications_total', { ...acme, kind: 'alert', state: 'decided' }),
    ).toBe(1);
    expect(
      valueOf(text, 'thm_notifications_total', { ...acme, kind: 'alert', state: 'sent' }),
    ).toBe(1);
    // The two new pairs are active; globex has not run and has none.
    expect(valueOf(text, 'thm_active_pairs', acme)).toBe(2);
    expect(valueOf(text, 'thm_active_pairs', { network: 'globex' })).toBe(0);
    const last = valueOf(text, 'thm_last_successful_traffic_check_timestamp_seconds', acme);
    expect(last).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(last).toBeLessThanOrEqual(Date.now() / 1000);
    expect(
      valueOf(text, 'thm_last_successful_traffic_check_timestamp_seconds', { network: 'globex' }),
    ).toBe(startedAt);
    expect(valueOf(text, 'thm_queue_jobs', { queue: 'checks', state: 'completed' })).toBe(1);
    expect(valueOf(text, 'thm_queue_jobs', { queue: 'mail', state: 'waiting' })).toBe(0);
    // Bounded labels: no ISP name or domain URL of the demo story in any series.
    const labels = text
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n');
    for (const pair of worker.runtime.config.networks) expect(labels).not.toContain(pair.baseUrl);
    expect(labels).not.toMatch(/isp=|domain=/);
    expect(text).not.toContain(stack.sbx.key('acme'));
  });

  it('/metrics: a run that fails for good and an unknown job are counted as failed', async () => {
    stack.sbx.sandbox.injectFault({
      network: 'globex',
      endpoint: 'access',
      status: 401,
      body: '{"error":"No Authentication Method Found"}',
      times: 1,
    });
    const failed = await stack.run('traffic-check', 'globex', '2026-11-15');
    expect(failed.state).toBe('failed');
    const text = await scrape();
    expect(
      valueOf(text, 'thm_job_runs_total', {
        kind: 'traffic-check',
        network: 'globex',
        outcome: 'failed',
      }),
    ).toBe(1);
    expect(
      valueOf(text, 'thm_api_requests_total', {
        network: 'globex',
        endpoint: 'access',
        status: '401',
      }),
    ).toBe(1);
    expect(valueOf(text, 'thm_api_retries_total', { network: 'globex' })).toBeUndefined();
    // The failure opened a problem episode: its e-mail is decided like any other.
    expect(
      valueOf(text, 'thm_notifications_total', {
        network: 'globex',
        kind: 'problem',
        state: 'decided',
      }),
    ).toBe(1);
  });

  it('/metrics: the last successful traffic-check is reported however long ago it was', async () => {
    // globex succeeded 40 days ago and has only failed since (the failure above).
    const store = new RedisStore(stack.redis.client(), stack.config.redis.prefix);
    const { rev } = await store.loadNetworkState('globex', {
      asOf: '2026-10-06',
      kind: 'traffic-check',
      now: Date.now(),
    });
    const finishedAt = Date.now() - 40 * 86_400_000;
    const committed = await store.commitRun({
      networkId: 'globex',
      expectedRev: rev,
      run: {
        networkId: 'globex',
        kind: 'traffic-check',
        asOf: '2026-10-06',
        outcome: 'ok',
        startedAt: finishedAt - 1_000,
        finishedAt,
        notificationIds: [],
        runs: 1,
      },
      notifications: [],
    });
    expect(committed.committed).toBe(true);
    // Scrapes share a snapshot of Redis for up to 5 s.
    const last = await waitFor(
      async () => {
        const value = valueOf(
          await scrape(),
          'thm_last_successful_traffic_check_timestamp_seconds',
          { network: 'globex' },
        );
        return value !== undefined && value < Date.now() / 1000 - 30 * 86_400 ? value : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 250, what: "globex's last success in /metrics" },
    );
    expect(last).toBe(Math.round(finishedAt / 1000));
  });

  it('/healthz: healthy once a canary went through the worker', async () => {
    const { status, report } = await waitFor(
      async () => {
        const h = await health();
        return h.report.canary.lastProcessedAt ? h : undefined;
      },
      { what: 'a processed canary' },
    );
    expect(status).toBe(200);
    expect(report).toMatchObject({ ok: true, problems: [] });
  });

  it('/healthz: unhealthy while the checks worker is paused, healthy after resume', async () => {
    await worker.checksWorker.pause(true);
    const paused = await health();
    expect(paused.status).toBe(503);
    expect(paused.report.ok).toBe(false);
    expect(paused.report.problems).toContain('worker checks: paused');
    worker.checksWorker.resume();
    expect(await health()).toMatchObject({ status: 200, report: { ok: true } });
  });

  it('/healthz: unhealthy when canaries stop going through (worker stuck), healthy again after', async () => {
    const canary = worker.monitoring!.health.canaryWorker;
    await canary.pause(true);
    const stuck = await waitFor(
      async () => {
        const h = await health();
        return h.status === 503 ? h : undefined;
      },
      { what: '503 from a stuck canary' },
    );
    expect(stuck.report.problems).toEqual([
      expect.stringMatching(/^canary: last processed \d+ s ago \(worker stuck or paused\?\)$/),
    ]);
    canary.resume();
    await waitFor(async () => (await health()).status === 200 || undefined, {
      what: 'healthy after resume',
    });
  });

  it('/queues: refuses without or with wrong credentials, serves the escaped page with them', async () => {
    // A job that fails with its (hostile) name in the reason.
    const hostile = await stack.queue.add(
      '<script>alert(1)</script>',
      { networkId: 'acme' },
      { attempts: 1 },
    );
    await waitFor(async () => ((await hostile.getState()) === 'failed' ? true : undefined));

    const none = await get(`${base}/queues`);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm="thm monitoring"/);
    expect(none.body).not.toContain('queue checks');
    for (const wrong of ['ops:wrong', 'nobody:correct horse battery', 'ops', '']) {
      const res = await get(`${base}/queues`, basic(wrong));
      expect(res.status, wrong).toBe(401);
    }
    expect((await get(`${base}/queues`, { authorization: 'Bearer x' })).status).toBe(401);

    const page = await get(`${base}/queues`, basic(AUTH));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('queue checks');
    expect(page.body).toContain('queue mail');
    expect(page.body).toContain('unknown job kind');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).not.toContain('<script>');
    expect(page.body).not.toContain(stack.sbx.key('globex'));
  });

  it('answers 404 elsewhere and 405 to other methods', async () => {
    expect((await get(`${base}/nope`)).status).toBe(404);
    expect((await get(`${base}/metrics`, {}, 'POST')).status).toBe(405);
  });

  it('/queues is 404 without monitoring.dashboardAuth', async () => {
    const config = {
      ...stack.config,
      monitoring: { host: '127.0.0.1' },
    };
    const other = await startWorker(config, silentLogger, {
      schedulers: false,
      monitoring: { port: 0, canaryIntervalMs: CANARY_MS },
    });
    const redis = stack.redis.client();
    const pattern = `${stack.config.redis.prefix}:${other.monitoring!.health.canaryQueue.name}:*`;
    await waitFor(async () => ((await redis.keys(pattern)).length > 0 ? true : undefined));
    try {
      const url = other.monitoring!.server.url;
      expect((await get(`${url}/queues`)).status).toBe(404);
      expect((await get(`${url}/queues`, basic(AUTH))).status).toBe(404);
      expect((await get(`${url}/metrics`)).status).toBe(200);
    } finally {
      await other.close();
    }
    // The canary queue of a closed worker leaves nothing behind in Redis.
    expect(await redis.keys(pattern)).toEqual([]);
  });

  it('a port already in use is a one-line config error, and the worker does not stay up', async () => {
    const port = worker.monitoring!.server.port;
    await expect(
      startWorker(stack.config, silentLogger, { schedulers: false, monitoring: { port } }),
    ).rejects.toMatchObject({
      code: 'THM_CONFIG',
      message: `monitoring.port: cannot listen on 127.0.0.1:${port} (EADDRINUSE: another process, another worker on this host?)`,
    });
  });

  it('a second worker on the same port fails on it before it touches Redis or the schedulers', async () => {
    const port = worker.monitoring!.server.port;
    const redis = stack.redis.client();
    const connections = async () =>
      Number(/total_connections_received:(\d+)/.exec(await redis.info('stats'))?.[1]);
    const before = await connections();
    const schedulersBefore = await stack.queue.getJobSchedulers(0, -1);
    // Its config holds one network of two: reconciling would have removed the other's.
    const older = { ...stack.config, networks: stack.config.networks.slice(0, 1) };
    await expect(
      startWorker(older, silentLogger, { schedulers: true, monitoring: { port } }),
    ).rejects.toMatchObject({ code: 'THM_CONFIG' });
    expect(await connections()).toBe(before);
    expect(await stack.queue.getJobSchedulers(0, -1)).toEqual(schedulersBefore);
  });

  it(
    '/healthz: unhealthy while Redis is down, healthy again once it is back; /metrics still answers',
    async () => {
      // What the worker counted before the outage, read from its own memory, not Redis.
      const acmeRuns = { kind: 'traffic-check', network: 'acme' };
      const runsBefore = valueOf(await scrape(), 'thm_job_runs_total', acmeRuns);
      expect(runsBefore).toBeDefined();
      await stack.redis.stop();
      try {
        const down = await waitFor(
          async () => {
            const h = await health();
            return h.status === 503 ? h : undefined;
          },
          { what: '503 with Redis down' },
        );
        expect(down.report.problems.some((p) => p.startsWith('redis: '))).toBe(true);
        const text = await scrape();
        await waitFor(async () => valueOf(await scrape(), 'thm_redis_up') === 0 || undefined, {
          what: 'thm_redis_up 0',
        });
        expect(valueOf(text, 'thm_job_runs_total', acmeRuns)).toBe(runsBefore);
      } finally {
        await stack.redis.start();
      }
      let last: unknown;
      const back = await waitFor(
        async () => {
          const h = await health();
          last = h.report.problems;
          return h.status === 200 ? h : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100, what: 'healthy after Redis restart' },
      ).catch((error: Error) => {
        throw new Error(`${error.message}; /healthz said ${JSON.stringify(last)}`);
      });
      expect(back.report.problems).toEqual([]);
    },
    OUTAGE_TEST_MS,
  );

  it(
    '/healthz with a frozen Redis (SIGSTOP): says "redis: no answer ...", once prefixed',
    async () => {
      const info = await stack.redis.client().info('server');
      const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, 'SIGSTOP');
      try {
        const frozen = await waitFor(
          async () => {
            const h = await health();
            return h.status === 503 && h.report.problems.some((p) => p.includes('no answer'))
              ? h
              : undefined;
          },
          { timeoutMs: 20_000, what: '503 with Redis frozen' },
        );
        expect(frozen.report.problems).toContain('redis: no answer within 2000 ms');
        expect(frozen.report.problems.join('\n')).not.toContain('redis: redis:');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await waitFor(async () => ((await health()).status === 200 ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 100,
        what: 'healthy after Redis thawed',
      });
    },
    OUTAGE_TEST_MS,
  );
});
