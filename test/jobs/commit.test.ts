import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { ThmError } from '../../src/errors.js';
import { MAX_CONFLICT_RETRIES } from '../../src/jobs/commit.js';
import type { DeliverJobData } from '../../src/jobs/job-data.js';
import { MAIL_QUEUE } from '../../src/jobs/names.js';
import { createRuntime, type Runtime } from '../../src/jobs/runtime.js';
import { recordTrafficFailure } from '../../src/jobs/traffic-check.js';
import { createLogger } from '../../src/log.js';
import type { ProblemEpisode } from '../../src/monitor/types.js';
import { RedisStore, type CommitResult, type RunEffect } from '../../src/store/redis-store.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { runRecord } from '../store/fixtures.js';

const DAY = '2026-03-01';
const OTHER_DAY = '2026-02-28';
const NOW = Date.UTC(2026, 2, 1, 12);

/**
 * A store that another replica races: before each of the next `conflicts` commits, a real
 * commit of the same network (a run of another date, optionally opening a problem episode)
 * lands first and moves the revision, so the commit under test is refused as a conflict.
 */
class RacedStore extends RedisStore {
  conflicts = 0;
  rivalProblem: ProblemEpisode | undefined;
  commits = 0;

  override async commitRun(effect: RunEffect): Promise<CommitResult> {
    this.commits += 1;
    if (this.conflicts > 0) {
      this.conflicts -= 1;
      const rival = await this.loadNetworkState(effect.networkId, {
        asOf: OTHER_DAY,
        kind: 'traffic-check',
        now: NOW,
      });
      const won = await super.commitRun({
        networkId: effect.networkId,
        expectedRev: rival.rev,
        run: runRecord(OTHER_DAY, { runs: rival.rev + 1 }),
        force: true,
        notifications: [],
        problem: this.rivalProblem,
      });
      if (!won.committed) throw new Error('the rival commit should have won');
    }
    return super.commitRun(effect);
  }
}

let server: TestRedis;
let redis: Redis;
let prefixes = 0;
const queues: Queue[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
});
afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
  redis.disconnect();
  await server.shutdown();
});

function runtime(): { rt: Runtime; store: RacedStore; log: () => string } {
  const prefix = `c${++prefixes}`;
  const config = parseConfig(
    {
      redis: { url: server.url, prefix },
      networks: [
        {
          id: 'acme',
          baseUrl: 'http://127.0.0.1:9',
          apiKeyEnv: 'ACME_KEY',
          recipients: ['ops@acme.example'],
        },
      ],
    },
    { env: { ACME_KEY: 'k-commit-test' } },
  );
  const chunks: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  const store = new RacedStore(redis, prefix);
  const mailQueue = new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix });
  queues.push(mailQueue);
  const rt = createRuntime({
    config,
    store,
    mailQueue,
    logger: createLogger({ destination: stream, level: 'info' }),
    now: () => NOW,
  });
  return { rt, store, log: () => chunks.join('') };
}

const failure = new ThmError('THM_API_AUTH', 'the API key was not accepted');
const request = { networkId: 'acme', asOf: DAY };
const load = (store: RedisStore) =>
  store.loadNetworkState('acme', { asOf: DAY, kind: 'traffic-check', now: NOW });

describe('commitWithRetries, through a traffic-check failure', () => {
  it('loses two commits to another replica, decides again from the new state, then commits', async () => {
    const { rt, store } = runtime();
    store.conflicts = 2;
    // The rival recorded the same kind of failure first: the problem episode is open.
    store.rivalProblem = {
      kind: 'traffic-check',
      openedAt: NOW - 1,
      code: 'THM_API_AUTH',
      message: 'seen by the other replica',
    };
    await recordTrafficFailure(rt, request, failure, NOW - 10);
    expect(store.commits).toBe(3);
    const state = await load(store);
    expect(state.run).toMatchObject({ outcome: 'failed', error: { code: 'THM_API_AUTH' } });
    // Decided from the state the rival left: the episode was open, so no second problem e-mail.
    expect(state.run?.notificationIds).toEqual([]);
    expect(state.problem?.message).toBe('seen by the other replica');
  });

  it('with no rival, opens the episode and enqueues one problem e-mail', async () => {
    const { rt, store } = runtime();
    await recordTrafficFailure(rt, request, failure, NOW - 10);
    const state = await load(store);
    expect(state.problem).toMatchObject({ kind: 'traffic-check', code: 'THM_API_AUTH' });
    expect(state.run?.notificationIds).toHaveLength(1);
    const id = state.run?.notificationIds[0] ?? '';
    expect((await store.getNotification(id))?.notification.kind).toBe('problem');
    expect(await rt.mailQueue.getJobCounts('waiting')).toMatchObject({ waiting: 1 });
  });

  it(`gives up after ${MAX_CONFLICT_RETRIES} lost commits: throws a retryable THM_STORE error and logs it`, async () => {
    const { rt, store, log } = runtime();
    store.conflicts = 1_000;
    const error = await recordTrafficFailure(rt, request, failure, NOW - 10).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ThmError);
    expect(error).toMatchObject({ code: 'THM_STORE', retryable: true });
    expect(store.commits).toBe(MAX_CONFLICT_RETRIES);
    expect((await load(store)).run).toBeUndefined();
    await new Promise((r) => setTimeout(r, 20));
    const line = log()
      .split('\n')
      .find((l) => l.includes('giving up'));
    expect(line).toBeDefined();
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      level: 50,
      network: 'acme',
      kind: 'traffic-check',
      asOf: DAY,
      conflicts: MAX_CONFLICT_RETRIES,
    });
  });
});
