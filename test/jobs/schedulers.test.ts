import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { CheckJobData } from '../../src/jobs/job-data.js';
import { CHECKS_QUEUE } from '../../src/jobs/names.js';
import {
  desiredSchedulers,
  reconcileSchedulers,
  restoreLostSchedulerJobs,
} from '../../src/jobs/schedulers.js';
import { silentLogger } from '../../src/log.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

function networks(ids: string[], extra: Record<string, unknown> = {}) {
  return parseConfig(
    {
      networks: ids.map((id) => ({
        id,
        baseUrl: 'https://api.example.com/v1',
        apiKeyEnv: 'K',
        recipients: ['ops@example.com'],
        timezone: 'Europe/Berlin',
        ...extra,
      })),
    },
    { env: { K: 'key' } },
  ).networks;
}

describe('reconcileSchedulers (real Redis, real BullMQ)', () => {
  let redis: TestRedis;
  let client: Redis;
  let queue: Queue<CheckJobData>;
  const prefix = 'sched-test';

  beforeAll(async () => {
    redis = await startRedis();
    client = redis.client();
    queue = new Queue<CheckJobData>(CHECKS_QUEUE, { connection: client, prefix });
  });
  afterAll(async () => {
    await queue.close();
    await redis.shutdown();
  });

  const reconcile = (nets: ReturnType<typeof networks>, attempts = 5) =>
    reconcileSchedulers({
      queue,
      redis: client,
      lockKey: `${prefix}:lock`,
      networks: nets,
      jobOptions: { attempts, backoffMs: 1000 },
      logger: silentLogger,
    });

  it('upserts one scheduler per network and kind, with the cron and the zone, and a next run', async () => {
    const nets = networks(['a', 'b']);
    expect(desiredSchedulers(nets).map((d) => d.id)).toEqual([
      'traffic-check:a',
      'invoice-snapshot:a',
      'traffic-check:b',
      'invoice-snapshot:b',
    ]);
    expect(await reconcile(nets)).toEqual({ upserted: 4, unchanged: 0, removed: 0 });
    const schedulers = await queue.getJobSchedulers(0, -1, true);
    expect(schedulers.map((s) => s.key).sort()).toEqual([
      'invoice-snapshot:a',
      'invoice-snapshot:b',
      'traffic-check:a',
      'traffic-check:b',
    ]);
    const tc = schedulers.find((s) => s.key === 'traffic-check:a');
    expect(tc).toMatchObject({ pattern: '0 7 * * *', tz: 'Europe/Berlin', name: 'traffic-check' });
    expect(tc?.template?.data).toEqual({ networkId: 'a', trigger: 'schedule' });
    // The next job waits, delayed until 07:00 Berlin time.
    const delayed = await queue.getDelayed();
    const next = delayed.find((j) => j.name === 'traffic-check' && j.data.networkId === 'a');
    expect(next).toBeDefined();
    const fire = new Date((next?.timestamp ?? 0) + (next?.opts.delay ?? 0));
    expect(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
      }).format(fire),
    ).toBe('07:00');
  });

  it('leaves unchanged ones alone, updates changed ones, removes those of networks gone', async () => {
    expect(await reconcile(networks(['a', 'b']))).toEqual({
      upserted: 0,
      unchanged: 4,
      removed: 0,
    });
    const changed = networks(['a'], {
      trafficCheck: { cron: '15 6 * * *' },
      invoices: { enabled: false },
    });
    expect(await reconcile(changed)).toEqual({ upserted: 1, unchanged: 0, removed: 3 });
    const schedulers = await queue.getJobSchedulers(0, -1, true);
    expect(schedulers.map((s) => [s.key, s.pattern])).toEqual([['traffic-check:a', '15 6 * * *']]);
  });

  it('replicas reconciling at once end with exactly one scheduler each and one next job', async () => {
    const nets = networks(['r1', 'r2', 'r3']);
    await Promise.all([reconcile(nets), reconcile(nets), reconcile(nets)]);
    const schedulers = await queue.getJobSchedulers(0, -1, true);
    expect(schedulers).toHaveLength(6);
    const delayed = await queue.getDelayed();
    for (const id of ['r1', 'r2', 'r3']) {
      expect(
        delayed.filter((j) => j.name === 'traffic-check' && j.data.networkId === id),
      ).toHaveLength(1);
    }
  });

  /** What a failover to a replica that missed it does to a scheduler's next job: it is gone. */
  async function loseNextJob(schedulerId: string): Promise<string> {
    const [scheduler] = (await queue.getJobSchedulers(0, -1, true)).filter(
      (x) => x.key === schedulerId,
    );
    const jobId = `repeat:${schedulerId}:${scheduler?.next}`;
    expect(await queue.getJob(jobId)).toBeDefined();
    await client.del(queue.toKey(jobId));
    await client.zrem(queue.toKey('delayed'), jobId);
    expect(await queue.getJob(jobId)).toBeUndefined();
    return jobId;
  }

  it("adds back a next job that was lost, for the config's schedulers only, once", async () => {
    const nets = networks(['h1', 'h2']);
    await reconcile(nets);
    const restore = (from: ReturnType<typeof networks>) =>
      restoreLostSchedulerJobs({
        queue,
        redis: client,
        networks: from,
        jobOptions: { attempts: 5, backoffMs: 1000 },
        logger: silentLogger,
      });
    expect(await restore(nets)).toEqual([]);
    const lost = await loseNextJob('traffic-check:h1');
    const gone = await loseNextJob('traffic-check:h2');
    // h2 is no longer configured (a reload is about to remove it): its scheduler is not revived.
    expect(await restore(networks(['h1']))).toEqual(['traffic-check:h1']);
    const back = await queue.getJob(lost);
    expect(back?.data).toEqual({ networkId: 'h1', trigger: 'schedule' });
    expect(await queue.getJobState(lost)).toBe('delayed');
    expect(await queue.getJob(gone)).toBeUndefined();
    expect(await restore(networks(['h1']))).toEqual([]);
    // The scheduler itself was left as it was.
    const [h1] = (await queue.getJobSchedulers(0, -1, true)).filter(
      (x) => x.key === 'traffic-check:h1',
    );
    expect(h1).toMatchObject({ pattern: '0 7 * * *', tz: 'Europe/Berlin' });
  });

  it('adds back the successor of a run that started without one (the scheduler names a run that has finished)', async () => {
    const nets = networks(['h3']);
    await reconcile(nets);
    const lost = await loseNextJob('traffic-check:h3');
    // As BullMQ leaves it when adding the successor failed: the scheduler still names the
    // run of the day before, which has finished.
    const ranAt = Number(lost.split(':').pop()) - 86_400_000;
    const ran = `repeat:traffic-check:h3:${ranAt}`;
    await client.zadd(queue.toKey('repeat'), ranAt, 'traffic-check:h3');
    await client.hset(queue.toKey(ran), 'timestamp', ranAt, 'finishedOn', ranAt + 5_000);
    const restored = await restoreLostSchedulerJobs({
      queue,
      redis: client,
      networks: nets,
      jobOptions: { attempts: 5, backoffMs: 1000 },
      logger: silentLogger,
    });
    expect(restored).toEqual(['traffic-check:h3']);
    // The next run is the one the cron names next, as before.
    expect(await queue.getJobState(lost)).toBe('delayed');
  });
});
