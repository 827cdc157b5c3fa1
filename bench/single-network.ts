import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { parseConfig } from '../src/config/load.js';
import type { DeliverJobData } from '../src/jobs/job-data.js';
import { MAIL_QUEUE } from '../src/jobs/names.js';
import { createRuntime } from '../src/jobs/runtime.js';
import { runTrafficCheck } from '../src/jobs/traffic-check.js';
import { silentLogger } from '../src/log.js';
import { RedisStore } from '../src/store/redis-store.js';
import { commandCalls, commandsBetween, median, span, timed, total } from './measure.js';
import { startSandboxProcess } from './sandbox-process.js';

/**
 * P1, P2 and P4 on one network of N declining pairs: `runTrafficCheck` in this process, with the
 * real RedisStore and BullMQ mail queue on a private redis-server, against the sandbox in a
 * process of its own (as the partner's API is: its serving work is on neither side of the
 * ratio), over loopback.
 *
 * - baseline: an undici request of isptrends + body.text() + JSON.parse, nothing else;
 * - first day: a check on a fresh Redis prefix (no history: every pair is new and e-mailed);
 * - steady state: the next as-of date on the same prefix (every pair ongoing and none e-mailed
 *   again; an e-mail about the network's drop as a whole may go out).
 *
 * Baseline and check alternate (baseline, first day, baseline, steady state), after a few
 * untimed rounds; each figure is the ratio of the medians, its range that of each check over
 * the baseline timed just before it. The commands (P2) and the network's Redis bytes (P4) are
 * counted in one more first day and steady state, untimed.
 */
export interface SingleNetworkResult {
  pairs: number;
  repetitions: number;
  fetchParseMs: number;
  firstDayMs: number;
  steadyMs: number;
  firstDayRatio: number;
  steadyRatio: number;
  range: { firstDayRatio: [number, number]; steadyRatio: [number, number] };
  /** Commands of the store (load + commit, including those its Lua script runs). */
  storeCommands: { firstDay: number; steady: number };
  /** Commands of the hand-off to delivery (BullMQ addBulk of the mail jobs). */
  mailQueueCommands: { firstDay: number; steady: number };
  /** MEMORY USAGE of the network's hash after the first day, per active pair. */
  bytesPerPair: number;
}

const FIRST_DAY = '2026-11-21';
const NEXT_DAY = '2026-11-22';
const NETWORK = 'bench-1';
/** Untimed rounds (baseline and check, both days) before the timed ones. */
const WARM_UP_ROUNDS = 3;

export async function measureSingleNetwork(
  redis: Redis,
  redisUrl: string,
  pairs: number,
  repetitions: number,
): Promise<SingleNetworkResult> {
  const sandbox = await startSandboxProcess({
    networks: 1,
    pairsPerNetwork: pairs,
    startDay: FIRST_DAY,
  });
  const key = sandbox.keys.find((k) => k.network === NETWORK && k.portal === 'network')!.key;
  const config = parseConfig(
    {
      redis: { url: redisUrl, prefix: 'bench-p1' },
      networks: [
        {
          id: NETWORK,
          baseUrl: sandbox.baseUrl,
          apiKeyEnv: 'BENCH_KEY',
          recipients: ['ops@bench.example'],
        },
      ],
    },
    { env: { BENCH_KEY: key } },
  );
  const agent = new Agent();
  const queues: Queue[] = [];
  const rt = createRuntime({
    config,
    store: new RedisStore(redis, 'unused'),
    mailQueue: new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix: 'unused' }),
    logger: silentLogger,
  });
  queues.push(rt.mailQueue);

  let prefixes = 0;
  /** A fresh store and mail queue; the queue made ready untimed, as a worker's long-lived one. */
  const freshPrefix = async (): Promise<void> => {
    prefixes += 1;
    const prefix = `bench-p1-${pairs}-${prefixes}`;
    rt.store = new RedisStore(redis, prefix);
    rt.mailQueue = new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix });
    queues.push(rt.mailQueue);
    await rt.mailQueue.waitUntilReady();
  };
  const check = async (asOf: string): Promise<void> => {
    const outcome = await runTrafficCheck(rt, { networkId: NETWORK, asOf });
    if (outcome.status !== 'done' || outcome.outcome !== 'ok')
      throw new Error(`bench check of ${asOf} was ${outcome.status}/${outcome.outcome}`);
  };
  const fetchAndParse = async (): Promise<number> => {
    const response = await request(`${sandbox.baseUrl}/networks/traffic/isptrends`, {
      dispatcher: agent,
      headers: { 'x-service-api-key': key, accept: 'application/json' },
    });
    return (JSON.parse(await response.body.text()) as { entries: unknown[] }).entries.length;
  };

  try {
    const baseline: number[] = [];
    const firstDay: number[] = [];
    const steady: number[] = [];
    for (let round = 0; round < WARM_UP_ROUNDS + repetitions; round += 1) {
      const timedRound = round >= WARM_UP_ROUNDS;
      await freshPrefix();
      for (const day of [FIRST_DAY, NEXT_DAY]) {
        await sandbox.setDay(day);
        const fetched = await timed(fetchAndParse);
        if (fetched.value !== pairs) throw new Error(`the sandbox listed ${fetched.value} pairs`);
        const run = await timed(() => check(day));
        if (!timedRound) continue;
        baseline.push(fetched.ms);
        (day === FIRST_DAY ? firstDay : steady).push(run.ms);
      }
    }

    // P2 and P4: one more first day and steady state, counted instead of timed.
    await freshPrefix();
    const mailCommands: number[] = [];
    const addBulk = rt.mailQueue.addBulk.bind(rt.mailQueue);
    rt.mailQueue.addBulk = async (jobs) => {
      const before = await commandCalls(redis);
      const added = await addBulk(jobs);
      mailCommands.push(total(commandsBetween(before, await commandCalls(redis))));
      return added;
    };
    const counted = async (asOf: string) => {
      await sandbox.setDay(asOf);
      mailCommands.length = 0;
      const before = await commandCalls(redis);
      await check(asOf);
      const all = total(commandsBetween(before, await commandCalls(redis)));
      const mail = mailCommands.reduce((sum, n) => sum + n, 0);
      return { store: all - mail, mail };
    };
    const firstCount = await counted(FIRST_DAY);
    const keyBytes = Number(
      await redis.call('MEMORY', 'USAGE', rt.store.keys.network(NETWORK), 'SAMPLES', '0'),
    );
    const steadyCount = await counted(NEXT_DAY);

    const fetchParseMs = median(baseline);
    const ratios = (runs: number[], offset: number) =>
      runs.map((ms, i) => ms / baseline[2 * i + offset]!);
    return {
      pairs,
      repetitions,
      fetchParseMs,
      firstDayMs: median(firstDay),
      steadyMs: median(steady),
      firstDayRatio: median(firstDay) / fetchParseMs,
      steadyRatio: median(steady) / fetchParseMs,
      range: { firstDayRatio: span(ratios(firstDay, 0)), steadyRatio: span(ratios(steady, 1)) },
      storeCommands: { firstDay: firstCount.store, steady: steadyCount.store },
      mailQueueCommands: { firstDay: firstCount.mail, steady: steadyCount.mail },
      bytesPerPair: keyBytes / pairs,
    };
  } finally {
    await rt.close();
    await Promise.all(queues.map((q) => q.close()));
    await agent.close();
    await sandbox.close();
  }
}
