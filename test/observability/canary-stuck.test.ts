import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { startHealthCheck, type HealthCheck } from '../../src/observability/health.js';
import { waitFor } from '../harness/ports.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

/** A health check of its own on `redis`, a canary every 200 ms, with no workers to watch. */
function canaryCheck(
  redis: TestRedis,
  options: { staleAfterMs?: number; now?: () => number } = {},
): Promise<HealthCheck> {
  return startHealthCheck({
    redis: redis.client(),
    prefix: 'thm',
    workers: [],
    queues: [],
    logger: silentLogger,
    intervalMs: 200,
    ...options,
  });
}

async function firstCanary(health: HealthCheck): Promise<void> {
  await waitFor(async () => (await health.check()).canary.lastProcessedAt ?? undefined, {
    what: 'a first canary',
  });
}

/**
 * The canary has one job id, so that at most one waits. A worker that took it and lost Redis
 * before it could finish leaves it active in Redis, and adding the canary again adds nothing
 * until BullMQ gives the job back. That used to wait for BullMQ's defaults (a 30 s lock, then a
 * stalled check every 30 s): a worker whose Redis restarted mid-canary read "canary: last
 * processed ... (worker stuck or paused?)" for up to a minute after Redis was back.
 */
describe('a canary left active by a worker that lost it', () => {
  let redis: TestRedis;
  let health: HealthCheck;

  beforeAll(async () => {
    redis = await startRedis();
    health = await canaryCheck(redis);
  });
  afterAll(async () => {
    await health.close();
    await redis.shutdown();
  });

  it('goes through again within a few intervals of its lock, and the check is healthy', async () => {
    await firstCanary(health);
    await health.canaryWorker.pause();
    // Another worker, locking as the canary's own does, takes the next canary and never
    // finishes it: closed by force, it leaves the job active with its lock, as a worker whose
    // Redis went away mid-job does.
    let taken!: () => void;
    const took = new Promise<void>((resolve) => (taken = resolve));
    const lost = new Worker(
      health.canaryQueue.name,
      async () => {
        taken();
        await new Promise(() => undefined);
      },
      {
        connection: redis.client(),
        prefix: 'thm',
        lockDuration: health.canaryWorker.opts.lockDuration,
      },
    );
    await took;
    await lost.close(true);
    expect(await health.canaryQueue.getActiveCount()).toBe(1);

    const stuckSince = Date.now();
    health.canaryWorker.resume();
    const healthy = await waitFor(
      async () => {
        const report = await health.check();
        return report.ok && Date.parse(report.canary.lastProcessedAt!) > stuckSince
          ? report
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the canary through again' },
    );
    expect(healthy.problems).toEqual([]);
  }, 30_000);
});

/**
 * No canary can go through while Redis is away. After a long outage the last one is as old as
 * the outage, yet the worker is not stuck: the canary is judged from Redis's return, as from the
 * process's start. The outage is real; the time it lasts is a clock the test moves.
 */
describe('the canary after a Redis outage', () => {
  let redis: TestRedis;
  let health: HealthCheck;
  let clock = Date.now();

  beforeAll(async () => {
    redis = await startRedis();
    health = await canaryCheck(redis, { staleAfterMs: 600, now: () => clock });
  });
  afterAll(async () => {
    await health.close();
    await redis.shutdown();
  });

  it('is judged from when Redis came back, and found stale again after that', async () => {
    await firstCanary(health);
    // Held back before the outage (a pause waits for a canary being fetched or processed), so
    // that none goes through when Redis is back.
    await health.canaryWorker.pause();
    await redis.stop();
    clock += 120_000;
    const down = await health.check();
    expect(down.problems.some((p) => p.startsWith('redis: '))).toBe(true);
    expect(down.problems).toContain('canary: last processed 120 s ago (worker stuck or paused?)');

    await redis.start();
    const back = await waitFor(
      async () => {
        const report = await health.check();
        return report.problems.some((p) => p.startsWith('redis: ')) ? undefined : report;
      },
      { timeoutMs: 20_000, what: 'Redis back' },
    );
    expect(back.problems).toEqual([]);
    expect(back.canary.ageSeconds).toBe(120);

    clock += 601;
    expect((await health.check()).problems).toEqual([
      'canary: last processed 121 s ago (worker stuck or paused?)',
    ]);
    health.canaryWorker.resume();
    await waitFor(async () => (await health.check()).ok || undefined, {
      what: 'healthy once the canary goes through',
    });
  }, 30_000);
});
