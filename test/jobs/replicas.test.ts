import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDate } from '../../src/dates.js';
import { waitFor } from '../harness/ports.js';
import { completed, startJobStack, type JobStack } from './stack.js';

const forAcme = (stack: JobStack) =>
  stack.smtp.messages.filter((m) => m.envelope.to.includes('ops@acme.example'));
const settle = () => new Promise((r) => setTimeout(r, 500));

describe('replicas, outages and triggers', () => {
  let stack: JobStack;
  let heartbeat: Server;
  const pings: string[] = [];

  beforeAll(async () => {
    heartbeat = createServer((req, res) => {
      pings.push(req.url ?? '');
      res.end('OK');
    });
    await new Promise<void>((r) => heartbeat.listen(0, '127.0.0.1', r));
    const address = heartbeat.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    stack = await startJobStack(['acme'], {
      heartbeat: { url: `http://127.0.0.1:${port}/ping/hb-secret-uuid` },
    });
    // Three replicas against one Redis.
    await Promise.all([stack.startWorker(), stack.startWorker(), stack.startWorker()]);
  });
  afterAll(async () => {
    await stack.close();
    await new Promise((r) => heartbeat.close(r));
  });

  it('three workers and five simultaneous triggers: the work is done once, one e-mail', async () => {
    stack.sbx.sandbox.setDay('2026-11-15');
    const requestsBefore = stack.sbx.sandbox.requests();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => stack.run('traffic-check', 'acme', '2026-11-15')),
    );
    const outcomes = results.map(completed);
    // Every trigger sees the same run; one of them did it, the others joined it.
    expect(outcomes.filter((o) => o.status === 'done').length).toBeGreaterThanOrEqual(1);
    expect(outcomes.every((o) => o.counts?.new === 2)).toBe(true);
    // access + isptrends, once.
    expect(stack.sbx.sandbox.requests() - requestsBefore).toBe(2);
    await waitFor(() => forAcme(stack).length >= 1 || undefined);
    await settle();
    expect(forAcme(stack).map((m) => m.parsed.subject)).toEqual([
      '[Traffic Health] Acme Network: 2 new (2026-11-15)',
    ]);
  });

  it('a forced run racing a normal one for the same date: still one e-mail per pair event', async () => {
    stack.sbx.sandbox.setDay('2026-11-16');
    const before = forAcme(stack).length;
    await Promise.all([
      stack.run('traffic-check', 'acme', '2026-11-16'),
      stack.run('traffic-check', 'acme', '2026-11-16', { force: true }),
      stack.run('traffic-check', 'acme', '2026-11-16', { force: true }),
    ]);
    await waitFor(() => forAcme(stack).length > before || undefined);
    await settle();
    expect(
      forAcme(stack)
        .slice(before)
        .map((m) => m.parsed.subject),
    ).toEqual(['[Traffic Health] Acme Network: 1 worse (2026-11-16)']);
  });

  it('Redis stopped and restarted during a run: the run completes after the outage, one e-mail, and later jobs run', async () => {
    stack.sbx.sandbox.setDay('2026-11-17');
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'isptrends', delayMs: 1_200 });
    const before = forAcme(stack).length;
    const running = stack.run('traffic-check', 'acme', '2026-11-17', { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 400));
    await stack.redis.stop();
    await new Promise((r) => setTimeout(r, 1_500));
    await stack.redis.start();
    const outcome = completed(await running);
    // The blocked domain: one domain headline (monitor/common-drops.ts), no pair of its own.
    expect(outcome).toMatchObject({ emailDecided: true, counts: { new: 0 } });
    await waitFor(() => forAcme(stack).length > before || undefined, { timeoutMs: 15_000 });
    await settle();
    expect(
      forAcme(stack)
        .slice(before)
        .map((m) => m.parsed.subject),
    ).toEqual([
      expect.stringMatching(/^\[Traffic Health\] Acme Network: 1 domain down \d+% \(2026-11-17\)$/),
    ]);
    // Proof the workers went on processing: a job enqueued after the outage runs.
    stack.sbx.sandbox.setDay('2026-11-18');
    expect(completed(await stack.run('traffic-check', 'acme', '2026-11-18')).status).toBe('done');
  });

  it('pings the heartbeat on success and /fail on a final failure, never with the URL in a log', async () => {
    expect(pings.filter((p) => p === '/ping/hb-secret-uuid').length).toBeGreaterThanOrEqual(3);
    stack.sbx.sandbox.injectFault({
      network: 'acme',
      endpoint: 'access',
      status: 403,
      body: '{"error":"Out of realm"}',
      times: 1,
    });
    const failed = await stack.run('traffic-check', 'acme', '2026-11-19');
    expect(failed.state).toBe('failed');
    expect(failed.state === 'failed' && failed.error).toMatch(/Out of realm/);
    await waitFor(() => pings.includes('/ping/hb-secret-uuid/fail') || undefined);
  });

  it('pings /start when a run starts, before its success or failure', async () => {
    pings.length = 0;
    stack.sbx.sandbox.setDay('2026-11-20');
    completed(await stack.run('traffic-check', 'acme', '2026-11-20'));
    await waitFor(() => pings.includes('/ping/hb-secret-uuid') || undefined);
    expect(pings).toEqual(['/ping/hb-secret-uuid/start', '/ping/hb-secret-uuid']);
  });

  it('a scheduler fires the run on its own: as-of date is today in the network zone', async () => {
    const today = localDate(Date.now(), 'UTC');
    stack.sbx.sandbox.setDay(today);
    const { reconcileSchedulers } = await import('../../src/jobs/schedulers.js');
    const network = {
      ...stack.config.networks[0]!,
      trafficCheck: { cron: '*/1 * * * * *', graceMinutes: 0 },
      invoices: { ...stack.config.networks[0]!.invoices, enabled: false },
    };
    await reconcileSchedulers({
      queue: stack.queue,
      redis: stack.workers[0]!.redis,
      lockKey: `${stack.config.redis.prefix}:lock:schedulers`,
      networks: [network],
      jobOptions: { attempts: 2, backoffMs: 100 },
      logger: (await import('../../src/log.js')).silentLogger,
    });
    const store = stack.workers[0]!.runtime.store;
    const run = await waitFor(() => store.getRun('acme', 'traffic-check', today), {
      timeoutMs: 10_000,
    });
    expect(run).toMatchObject({ networkId: 'acme', asOf: today, kind: 'traffic-check' });
    expect(['ok', 'premium-inactive']).toContain(run.outcome);
    await stack.queue.removeJobScheduler('traffic-check:acme');
  });
});
