import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COUNTED_STATES,
  readJobCounts,
  readSchedulerNextTimes,
} from '../../src/jobs/queue-reads.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

/**
 * `thm status` reads BullMQ's keys itself (src/jobs/queue-reads.ts). These tests put jobs in
 * every state it counts, with a real BullMQ worker, and compare its figures with BullMQ's own:
 * an upgrade that moves a key fails here.
 */
describe('queue reads without BullMQ (real Redis, real BullMQ)', () => {
  let redis: TestRedis;
  let client: Redis;
  const prefix = 'qr-test';
  const queues: Queue[] = [];
  const workers: Worker[] = [];
  let release: () => void = () => {};

  beforeAll(async () => {
    redis = await startRedis();
    client = redis.client();
  });
  afterAll(async () => {
    release();
    await Promise.all(workers.map((w) => w.close(true)));
    await Promise.all(queues.map((q) => q.close()));
    await redis.shutdown();
  });

  function queue(name: string): Queue {
    const q = new Queue(name, { connection: client, prefix });
    queues.push(q);
    return q;
  }

  it('counts every state as BullMQ counts it, for several queues in one read', async () => {
    const busy = queue('busy');
    const idle = queue('idle');
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const taken = new Promise<void>((resolve) => (started = resolve));
    let finished = 0;
    const worker = new Worker(
      'busy',
      async (job: Job) => {
        if (job.name === 'hold') {
          started();
          await held;
        }
        if (job.name === 'fail') throw new Error('no');
      },
      { connection: redis.client(), prefix, concurrency: 1, autorun: false },
    );
    workers.push(worker);
    worker.on('completed', () => (finished += 1));
    worker.on('failed', () => (finished += 1));
    await busy.add('ok', {});
    await busy.add('ok', {});
    await busy.add('fail', {}, { attempts: 1 });
    await busy.add('hold', {});
    void worker.run();
    await taken;
    // Waiting behind the held one, and two delayed.
    await busy.add('later', {});
    await busy.add('later', {});
    await busy.add('later', {}, { delay: 60_000 });
    await busy.add('later', {}, { delay: 120_000 });

    const ours = await readJobCounts(client, prefix, ['busy', 'idle']);
    const bullmq = {
      busy: await busy.getJobCounts(...COUNTED_STATES),
      idle: await idle.getJobCounts(...COUNTED_STATES),
    };
    expect(ours).toEqual(bullmq);
    // The fixture did what it meant to: a figure in each state, so a swapped key would show.
    expect(finished).toBe(3);
    expect(ours.busy).toMatchObject({
      active: 1,
      waiting: 2,
      delayed: 2,
      failed: 1,
      completed: 2,
    });
    expect(Object.values(ours.idle!).every((n) => n === 0)).toBe(true);
  });

  it("counts a paused queue's waiting jobs as BullMQ does", async () => {
    const paused = queue('paused');
    await paused.pause();
    await paused.add('x', {});
    await paused.add('x', {});
    const ours = await readJobCounts(client, prefix, ['paused']);
    expect(ours.paused).toEqual(await paused.getJobCounts(...COUNTED_STATES));
    const counts = ours.paused!;
    expect((counts.waiting ?? 0) + (counts.paused ?? 0)).toBe(2);
  });

  it("reads each job scheduler's next time as BullMQ's getJobScheduler gives it", async () => {
    const scheduled = queue('scheduled');
    await scheduled.upsertJobScheduler('traffic-check:a', { pattern: '0 7 * * *', tz: 'UTC' });
    await scheduled.upsertJobScheduler('traffic-check:b', { every: 3_600_000 });
    const ours = await readSchedulerNextTimes(client, prefix, 'scheduled');
    expect([...ours.keys()].sort()).toEqual(['traffic-check:a', 'traffic-check:b']);
    for (const [id, next] of ours) {
      const theirs = await scheduled.getJobScheduler(id);
      expect(next).toBe(theirs?.next);
    }
    expect(new Date(ours.get('traffic-check:a')!).toISOString()).toMatch(/T07:00:00\.000Z$/);
    expect((await readSchedulerNextTimes(client, prefix, 'none')).size).toBe(0);
  });
});
