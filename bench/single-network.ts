import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { parseConfig } from '../src/config/load.js';
import type { DeliverJobData } from '../src/jobs/job-data.js';
import { MAIL_QUEUE } from '../src/jobs/names.js';
import { createRuntime } from '../src/jobs/runtime.js';
import { runTrafficCheck, type CheckOutcome } from '../src/jobs/traffic-check.js';
import { silentLogger } from '../src/log.js';
import { builtinScenario, startSandbox } from '../src/sandbox/index.js';
import { RedisStore } from '../src/store/redis-store.js';
import { commandCalls, commandsBetween, median, timed, total, usedMemory } from './measure.js';

/**
 * P1, P2 and P4 on one network of N declining pairs, in this process, against the sandbox over
 * loopback and a private redis-server:
 *
 * - baseline: undici request of isptrends + body.text() + JSON.parse, nothing else;
 * - first day: `runTrafficCheck` on a fresh Redis prefix (no history: every pair is new, the
 *   e-mail lists them all), with the real RedisStore and the real BullMQ mail queue. A fresh
 *   prefix per repetition keeps the work real (no "already done", no outbox dedupe);
 * - steady state: the next as-of date on the same prefix (every pair active, still declining:
 *   ongoing, no e-mail).
 *
 * The two are timed alternately with the baseline, each step after a full GC, and the figure is
 * the ratio of medians. Commands (P2) and memory (P4) come from separate repetitions, so the
 * INFO probes do not touch the timed ones.
 */

export interface SingleNetworkResult {
  pairs: number;
  repetitions: number;
  fetchParseMs: number;
  firstDayMs: number;
  steadyMs: number;
  firstDayRatio: number;
  steadyRatio: number;
  /**
   * The same ratios in CPU time of this process (the sandbox's serving included on both sides,
   * Redis's work excluded): less sensitive to other load on a shared machine.
   */
  cpu: { fetchParseMs: number; firstDayMs: number; steadyMs: number; firstDayRatio: number };
  /** Commands of the store (load + commit, including those its Lua script runs). */
  storeCommands: { firstDay: number; steady: number };
  /** Commands of the hand-off to delivery (BullMQ addBulk of the mail jobs). */
  mailQueueCommands: { firstDay: number; steady: number };
  commandsByName: { firstDay: Record<string, number>; steady: Record<string, number> };
  /** MEMORY USAGE of the network's store key(s) / active pairs. */
  bytesPerPair: number;
  /** INFO used_memory growth over the first-day commit / pairs (includes outbox and mail job). */
  usedMemoryPerPair: number;
  outcome: Pick<CheckOutcome, 'counts' | 'pairsListed' | 'emailDecided'>;
}

const FIRST_DAY = '2026-11-21';
const NEXT_DAY = '2026-11-22';
const NETWORK = 'bench-1';

export async function measureSingleNetwork(
  redis: Redis,
  redisUrl: string,
  pairs: number,
  repetitions: number,
): Promise<SingleNetworkResult> {
  const sandbox = await startSandbox({
    scenario: builtinScenario('bench', {
      networks: 1,
      pairsPerNetwork: pairs,
      startDay: FIRST_DAY,
    }),
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
  let prefixCount = 0;
  const rt = createRuntime({
    config,
    store: new RedisStore(redis, 'unused'),
    mailQueue: new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix: 'unused' }),
    logger: silentLogger,
  });
  const queues: Queue[] = [rt.mailQueue];

  /**
   * A fresh, empty store and mail queue under a prefix of their own. The queue is made ready
   * before any timing: a worker's mail queue is long-lived, its set-up is not a run's cost.
   */
  const freshPrefix = async (): Promise<void> => {
    prefixCount += 1;
    const prefix = `bench-p1-${pairs}-${prefixCount}`;
    rt.store = new RedisStore(redis, prefix);
    rt.mailQueue = new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix });
    queues.push(rt.mailQueue);
    await rt.mailQueue.waitUntilReady();
  };
  const check = async (asOf: string) => {
    sandbox.setDay(asOf);
    const outcome = await runTrafficCheck(rt, { networkId: NETWORK, asOf });
    if (outcome.status !== 'done' || outcome.outcome !== 'ok')
      throw new Error(`bench run of ${asOf} was ${outcome.status}/${outcome.outcome}`);
    return outcome;
  };
  const fetchAndParse = async (asOf: string): Promise<number> => {
    sandbox.setDay(asOf);
    const response = await request(`${sandbox.baseUrl}/networks/traffic/isptrends`, {
      dispatcher: agent,
      headers: { 'x-service-api-key': key, accept: 'application/json' },
    });
    const parsed = JSON.parse(await response.body.text()) as { entries: unknown[] };
    return parsed.entries.length;
  };

  try {
    // Warm-up: the sandbox generates and caches both days' bodies, connections open, V8 and
    // the Lua scripts warm. Not timed.
    for (const day of [FIRST_DAY, NEXT_DAY]) {
      if ((await fetchAndParse(day)) !== pairs) throw new Error(`sandbox did not list ${pairs}`);
    }
    await freshPrefix();
    await check(FIRST_DAY);
    await check(NEXT_DAY);

    const baseline: number[] = [];
    const firstDay: number[] = [];
    const steady: number[] = [];
    const cpuBaseline: number[] = [];
    const cpuFirstDay: number[] = [];
    const cpuSteady: number[] = [];
    let outcome: CheckOutcome | undefined;
    for (let i = 0; i < repetitions; i += 1) {
      await freshPrefix();
      for (const day of [FIRST_DAY, NEXT_DAY]) {
        const fetched = await timed(() => fetchAndParse(day));
        baseline.push(fetched.ms);
        cpuBaseline.push(fetched.cpuMs);
        const run = await timed(() => check(day));
        (day === FIRST_DAY ? firstDay : steady).push(run.ms);
        (day === FIRST_DAY ? cpuFirstDay : cpuSteady).push(run.cpuMs);
        if (day === FIRST_DAY) outcome = run.value;
      }
    }

    // P2 and P4: one more first day and steady state, counted instead of timed.
    await freshPrefix();
    const mailCommands: Record<string, number>[] = [];
    const addBulk = rt.mailQueue.addBulk.bind(rt.mailQueue);
    rt.mailQueue.addBulk = async (jobs) => {
      const before = await commandCalls(redis);
      const added = await addBulk(jobs);
      mailCommands.push(commandsBetween(before, await commandCalls(redis)));
      return added;
    };
    const counted = async (asOf: string) => {
      mailCommands.length = 0;
      const before = await commandCalls(redis);
      await check(asOf);
      const all = commandsBetween(before, await commandCalls(redis));
      const mail = mailCommands.reduce((sum, c) => sum + total(c), 0);
      return { all, store: total(all) - mail, mail };
    };
    const memoryBefore = await usedMemory(redis);
    const firstCount = await counted(FIRST_DAY);
    const memoryAfter = await usedMemory(redis);
    const networkKey = rt.store.keys.network(NETWORK);
    const keyBytes = Number(await redis.call('MEMORY', 'USAGE', networkKey, 'SAMPLES', '0'));
    const steadyCount = await counted(NEXT_DAY);

    const fetchParseMs = median(baseline);
    return {
      pairs,
      repetitions,
      fetchParseMs,
      firstDayMs: median(firstDay),
      steadyMs: median(steady),
      firstDayRatio: median(firstDay) / fetchParseMs,
      steadyRatio: median(steady) / fetchParseMs,
      cpu: {
        fetchParseMs: median(cpuBaseline),
        firstDayMs: median(cpuFirstDay),
        steadyMs: median(cpuSteady),
        firstDayRatio: median(cpuFirstDay) / median(cpuBaseline),
      },
      storeCommands: { firstDay: firstCount.store, steady: steadyCount.store },
      mailQueueCommands: { firstDay: firstCount.mail, steady: steadyCount.mail },
      commandsByName: { firstDay: firstCount.all, steady: steadyCount.all },
      bytesPerPair: keyBytes / pairs,
      usedMemoryPerPair: (memoryAfter - memoryBefore) / pairs,
      outcome: {
        counts: outcome?.counts,
        pairsListed: outcome?.pairsListed,
        emailDecided: outcome?.emailDecided ?? false,
      },
    };
  } finally {
    await rt.close();
    await Promise.all(queues.map((q) => q.close()));
    await agent.close();
    await sandbox.close();
  }
}
