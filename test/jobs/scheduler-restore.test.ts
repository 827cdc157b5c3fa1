import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../harness/ports.js';
import { startJobStack, type JobStack } from './stack.js';

/**
 * A job scheduler lives on through its next job (jobs/schedulers.ts). When that job is lost, as
 * a failover to a replica that missed it loses it, the running worker adds it back at its next
 * sweep, says so once, and leaves schedulers whose next job is there alone.
 */
describe('a running worker and a scheduler whose next job was lost', () => {
  let stack: JobStack;
  const log: string[] = [];

  beforeAll(async () => {
    stack = await startJobStack();
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => log.push(c.toString()));
    await stack.startWorker(
      { schedulers: true, sweepIntervalMs: 200 },
      createLogger({ destination: stream, level: 'info' }),
    );
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('adds it back within a sweep, at the same time, and says so', async () => {
    const schedulers = await stack.queue.getJobSchedulers(0, -1, true);
    const acme = schedulers.find((s) => s.key === 'traffic-check:acme');
    expect(acme?.next).toBeGreaterThan(Date.now());
    const jobId = `repeat:traffic-check:acme:${acme?.next}`;
    expect(await stack.queue.getJobState(jobId)).toBe('delayed');

    // Lost as a failover loses it: the job's keys gone, the scheduler left as it was.
    const redis = stack.redis.client();
    await redis.del(stack.queue.toKey(jobId));
    await redis.zrem(stack.queue.toKey('delayed'), jobId);
    expect(await stack.queue.getJobState(jobId)).toBe('unknown');

    await waitFor(
      async () => ((await stack.queue.getJobState(jobId)) === 'delayed' ? true : undefined),
      {
        timeoutMs: 10_000,
        what: 'the next job added back',
      },
    );
    // The worker says so once the job is back: the line may follow the job by a moment (it is
    // logged after the upsert returns, and the stream hands it on asynchronously).
    const warned = () => log.filter((line) => line.includes('had lost its next job'));
    await waitFor(() => (warned().length > 0 ? true : undefined), {
      timeoutMs: 5_000,
      what: 'the warning',
    });
    const warnings = warned();
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({
      level: 40,
      scheduler: 'traffic-check:acme',
      network: 'acme',
    });
    // Sweeps go on; nothing more is added or said.
    await new Promise((r) => setTimeout(r, 600));
    expect(warned()).toHaveLength(1);
    const delayed = (await stack.queue.getDelayed()).filter(
      (j) => j.name === 'traffic-check' && j.data.networkId === 'acme',
    );
    expect(delayed.map((j) => j.id)).toEqual([jobId]);
  }, 30_000);
});
