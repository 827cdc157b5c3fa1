import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import {
  removeAbandonedCanaries,
  startHealthCheck,
  type HealthCheck,
} from '../../src/observability/health.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

/**
 * A worker that crashed leaves its canary queue behind; the next one to start removes it, and
 * nothing else: not a live worker's canary queue, not the real queues.
 */
describe('abandoned canary queues', () => {
  let redis: TestRedis;
  const PREFIX = 'thm[test]'; // glob characters in the prefix must not widen the SCAN

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.shutdown());

  async function queueWithJob(name: string, prefix = PREFIX): Promise<void> {
    const queue = new Queue(name, { connection: redis.client(), prefix });
    await queue.add('canary', {}, { jobId: 'canary' });
    await queue.close();
  }
  const keysOf = (pattern: string) => redis.client().keys(pattern);

  it('removes a canary queue quiet for longer than the limit, keeps the rest', async () => {
    const client = redis.client();
    await queueWithJob('canary-crashed-1');
    // Its last event an hour ago: the process has not sent a canary since.
    await client.del(`${PREFIX}:canary-crashed-1:events`);
    await client.xadd(
      `${PREFIX}:canary-crashed-1:events`,
      `${Date.now() - 3_600_000}-0`,
      'event',
      'added',
    );
    await queueWithJob('canary-alive-2'); // events just now
    await queueWithJob('checks'); // a real queue, quiet or not
    await queueWithJob('canary-other-prefix', 'thmt'); // matched by an unescaped 'thm[test]'

    const removed = await removeAbandonedCanaries(client, PREFIX, { quietForMs: 600_000 });

    expect(removed).toEqual(['canary-crashed-1']);
    expect(await keysOf('thm?test?:canary-crashed-1:*')).toEqual([]);
    expect((await keysOf('thm?test?:canary-alive-2:*')).length).toBeGreaterThan(0);
    expect((await keysOf('thm?test?:checks:*')).length).toBeGreaterThan(0);
    expect((await keysOf('thmt:*')).length).toBeGreaterThan(0);
  });

  it('a starting worker removes them by itself, never its own', async () => {
    const client = redis.client();
    await queueWithJob('canary-crashed-3');
    await client.del(`${PREFIX}:canary-crashed-3:events`);
    let health: HealthCheck | undefined;
    try {
      health = await startHealthCheck({
        redis: client,
        prefix: PREFIX,
        workers: [],
        queues: [],
        logger: silentLogger,
        intervalMs: 100,
      });
      const own = health.canaryQueue.name;
      await expect
        .poll(() => keysOf('thm?test?:canary-crashed-3:*'), { timeout: 5_000 })
        .toEqual([]);
      expect((await keysOf(`thm?test?:${own}:*`)).length).toBeGreaterThan(0);
    } finally {
      await health?.close();
    }
  });
});
