import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { parseConfig } from '../src/config/load.js';
import type { DeliverJobData } from '../src/jobs/job-data.js';
import { MAIL_QUEUE } from '../src/jobs/names.js';
import { createRuntime, type Runtime } from '../src/jobs/runtime.js';
import { runTrafficCheck, type CheckOutcome } from '../src/jobs/traffic-check.js';
import { silentLogger } from '../src/log.js';
import { RedisStore } from '../src/store/redis-store.js';
import {
  allocated,
  collectGarbage,
  commandCalls,
  commandsBetween,
  median,
  timed,
  total,
  usedMemory,
} from './measure.js';
import { startSandboxProcess } from './sandbox-process.js';

/**
 * P1, P2, P4 and P6 on one network of N declining pairs, run in this process against the
 * sandbox in a process of its own (as the partner's API is: its serving work is on neither side
 * of the ratio) over loopback, and a private redis-server:
 *
 * - baseline: undici request of isptrends + body.text() + JSON.parse, nothing else;
 * - first day: `runTrafficCheck` on a fresh Redis prefix (no history: every pair is new, the
 *   e-mail lists them all), with the real RedisStore and the real BullMQ mail queue. A fresh
 *   prefix per repetition keeps the work real (no "already done", no outbox dedupe);
 * - steady state: the next as-of date on the same prefix (every pair active, still declining:
 *   ongoing, no e-mail).
 *
 * The two are timed alternately with the baseline (baseline, first day, baseline, steady state,
 * repeated), and the figure is the ratio of medians; the range is that of the repetitions' own
 * ratios (each run over the baseline timed just before it). Commands (P2), memory (P4) and
 * allocation (P6) come from separate repetitions, so their probes do not touch the timed ones.
 */

export interface SingleNetworkResult {
  pairs: number;
  repetitions: number;
  fetchParseMs: number;
  firstDayMs: number;
  steadyMs: number;
  firstDayRatio: number;
  steadyRatio: number;
  /** [min, max] of the repetitions' own ratios (run / the baseline timed just before it). */
  range: { firstDayRatio: [number, number]; steadyRatio: [number, number] };
  /** Every timed repetition, ms, in order. */
  runsMs: { fetchParse: number[]; receive: number[]; firstDay: number[]; steady: number[] };
  /**
   * The body received the way the check receives it (CheckRig.receive), timed in a round of its
   * own after the checks; and the check over it: the monitor's work beyond receiving, without
   * the gain of its own parse (src/api/json-body.ts) over body.text() and JSON.parse.
   */
  receiveMs: number;
  overReceive: { firstDay: number; steady: number };
  /** P6, when measured at this size: see AllocationResult. */
  allocation?: AllocationResult;
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

/**
 * P6: V8 heap bytes allocated (garbage included, bench/measure.ts `allocated`) by one
 * traffic-check and by the baseline fetch + JSON.parse of the same body, medians over `runs`,
 * alternated; `range` is that of each run's ratio to the baseline measured just before it.
 */
export interface AllocationResult {
  runs: number;
  fetchParse: { heapMb: number };
  firstDay: { heapMb: number; gcs: number };
  steady: { heapMb: number; gcs: number };
  ratio: { firstDay: number; steady: number };
  range: { firstDay: [number, number]; steady: [number, number] };
}

export const FIRST_DAY = '2026-11-21';
export const NEXT_DAY = '2026-11-22';
const NETWORK = 'bench-1';
/** Untimed rounds (baseline and check, both days) before the timed ones, at every size. */
export const WARM_UP_ROUNDS = 8;
/**
 * Untimed checks in this process before its first timed one (counted over the sizes, so only the
 * first size, 1,000 pairs, runs more than WARM_UP_ROUNDS for it). The check's code is compiled
 * as it runs: at 1,000 pairs its first days read 2.20, 1.95, then 1.76 x the baseline in rounds
 * of 30 checks from the process's start, and 1.62 - 1.84 x from the 90th check on (the
 * baseline's undici and JSON.parse are warm sooner). A worker runs hundreds of checks a day;
 * its steady state is the compiled one (docs/performance.md, "How npm run bench measures").
 */
export const WARM_UP_CHECKS = 120;
/** Checks run in this process, timed or not. */
let checksRun = 0;

/**
 * One network of `pairs` declining pairs, as P1 measures it: the sandbox in a process of its
 * own, the runtime on `redis`, a fresh store and mail queue per repetition, the check and the
 * baseline fetch + JSON.parse. bench/profile-check.ts profiles the same set-up.
 */
export interface CheckRig {
  rt: Runtime;
  /**
   * A fresh, empty store and mail queue under a prefix of their own. The queue is made ready
   * before any timing: a worker's mail queue is long-lived, its set-up is not a run's cost.
   */
  freshPrefix(): Promise<void>;
  /** The sandbox's as-of date (only when it changes). */
  setDay(asOf: string): Promise<void>;
  /** One traffic-check of that date; anything but done/ok throws. */
  check(asOf: string): Promise<CheckOutcome>;
  /** The baseline: undici request of isptrends + body.text() + JSON.parse; the entries. */
  fetchAndParse(asOf: string): Promise<number>;
  /**
   * The same body received as the check receives it: the monitor's own API client (reused
   * buffer, `parseJsonBody`), without validation; the entries.
   */
  receive(asOf: string): Promise<number>;
  close(): Promise<void>;
}

export async function startCheckRig(
  redis: Redis,
  redisUrl: string,
  pairs: number,
  prefix: string,
): Promise<CheckRig> {
  const sandbox = await startSandboxProcess({
    networks: 1,
    pairsPerNetwork: pairs,
    startDay: FIRST_DAY,
  });
  const key = sandbox.keys.find((k) => k.network === NETWORK && k.portal === 'network')!.key;
  const config = parseConfig(
    {
      redis: { url: redisUrl, prefix },
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

  const freshPrefix = async (): Promise<void> => {
    prefixCount += 1;
    const fresh = `${prefix}-${pairs}-${prefixCount}`;
    rt.store = new RedisStore(redis, fresh);
    rt.mailQueue = new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix: fresh });
    queues.push(rt.mailQueue);
    await rt.mailQueue.waitUntilReady();
  };
  let day = '';
  const setDay = async (asOf: string) => {
    if (asOf === day) return;
    await sandbox.setDay(asOf);
    day = asOf;
  };
  const check = async (asOf: string) => {
    await setDay(asOf);
    const outcome = await runTrafficCheck(rt, { networkId: NETWORK, asOf });
    checksRun += 1;
    if (outcome.status !== 'done' || outcome.outcome !== 'ok')
      throw new Error(`bench run of ${asOf} was ${outcome.status}/${outcome.outcome}`);
    return outcome;
  };
  const fetchAndParse = async (asOf: string): Promise<number> => {
    await setDay(asOf);
    const response = await request(`${sandbox.baseUrl}/networks/traffic/isptrends`, {
      dispatcher: agent,
      headers: { 'x-service-api-key': key, accept: 'application/json' },
    });
    const parsed = JSON.parse(await response.body.text()) as { entries: unknown[] };
    return parsed.entries.length;
  };
  const receive = async (asOf: string): Promise<number> => {
    await setDay(asOf);
    const client = rt.apiClient(rt.network(NETWORK));
    const parsed = await client.request('GET', '/networks/traffic/isptrends', {
      parse: (value) => value as { entries: unknown[] },
    });
    return parsed.entries.length;
  };

  return {
    rt,
    freshPrefix,
    setDay,
    check,
    fetchAndParse,
    receive,
    async close() {
      await rt.close();
      await Promise.all(queues.map((q) => q.close()));
      await agent.close();
      await sandbox.close();
    },
  };
}

export async function measureSingleNetwork(
  redis: Redis,
  redisUrl: string,
  pairs: number,
  repetitions: number,
  allocationRuns = 0,
): Promise<SingleNetworkResult> {
  const rig = await startCheckRig(redis, redisUrl, pairs, 'bench-p1');
  const { rt, freshPrefix, setDay, check, fetchAndParse, receive } = rig;

  /** P6: allocation of the baseline and of the check, alternated, `runs` times. */
  const measureAllocation = async (runs: number): Promise<AllocationResult> => {
    const mb = (bytes: number) => bytes / 2 ** 20;
    const base: number[] = [];
    const first: Array<{ heap: number; gcs: number }> = [];
    const next: Array<{ heap: number; gcs: number }> = [];
    for (let i = 0; i < runs; i += 1) {
      await freshPrefix();
      for (const asOf of [FIRST_DAY, NEXT_DAY]) {
        await setDay(asOf);
        collectGarbage();
        base.push((await allocated(() => fetchAndParse(asOf))).heapBytes);
        collectGarbage();
        const run = await allocated(() => check(asOf));
        (asOf === FIRST_DAY ? first : next).push({ heap: run.heapBytes, gcs: run.gcs });
      }
    }
    const baseHeap = median(base);
    const ratios = (list: Array<{ heap: number }>, offset: number) =>
      list.map((a, i) => a.heap / base[2 * i + offset]!);
    const span = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];
    const of = (list: Array<{ heap: number; gcs: number }>) => ({
      heapMb: mb(median(list.map((a) => a.heap))),
      gcs: median(list.map((a) => a.gcs)),
    });
    return {
      runs,
      fetchParse: { heapMb: mb(baseHeap) },
      firstDay: of(first),
      steady: of(next),
      ratio: {
        firstDay: median(first.map((a) => a.heap)) / baseHeap,
        steady: median(next.map((a) => a.heap)) / baseHeap,
      },
      range: { firstDay: span(ratios(first, 0)), steady: span(ratios(next, 1)) },
    };
  };

  try {
    // Warm-up: the sandbox generates and caches both days' bodies, connections open, V8 and
    // the Lua scripts warm, and the heap grown to the size's working set, as in a worker that
    // has run for a while: in a fresh process the first rounds at a new size ran up to 3 x
    // slower on both sides (fresh pages faulted in), and settled after 5 - 8; at the first
    // size, until WARM_UP_CHECKS checks have run (the check's code compiled). Not timed.
    for (const day of [FIRST_DAY, NEXT_DAY]) {
      if ((await fetchAndParse(day)) !== pairs) throw new Error(`sandbox did not list ${pairs}`);
      await receive(day);
    }
    for (let i = 0; i < WARM_UP_ROUNDS || checksRun < WARM_UP_CHECKS; i += 1) {
      await freshPrefix();
      for (const day of [FIRST_DAY, NEXT_DAY]) {
        await fetchAndParse(day);
        await check(day);
      }
    }

    const baseline: number[] = [];
    const received: number[] = [];
    const firstDay: number[] = [];
    const steady: number[] = [];
    const cpuBaseline: number[] = [];
    const cpuFirstDay: number[] = [];
    const cpuSteady: number[] = [];
    let outcome: CheckOutcome | undefined;
    for (let i = 0; i < repetitions; i += 1) {
      await freshPrefix();
      for (const day of [FIRST_DAY, NEXT_DAY]) {
        await setDay(day);
        const fetched = await timed(() => fetchAndParse(day));
        baseline.push(fetched.ms);
        cpuBaseline.push(fetched.cpuMs);
        const run = await timed(() => check(day));
        (day === FIRST_DAY ? firstDay : steady).push(run.ms);
        (day === FIRST_DAY ? cpuFirstDay : cpuSteady).push(run.cpuMs);
        if (day === FIRST_DAY) outcome = run.value;
      }
    }

    // The monitor's own receive, timed apart so that its garbage lands on none of the above
    // (the check follows the baseline, as it always did).
    for (let i = 0; i < repetitions; i += 1) {
      for (const day of [FIRST_DAY, NEXT_DAY]) {
        await setDay(day);
        received.push((await timed(() => receive(day))).ms);
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

    const allocation = allocationRuns > 0 ? await measureAllocation(allocationRuns) : undefined;

    const fetchParseMs = median(baseline);
    const ratios = (runs: number[], offset: number) =>
      runs.map((ms, i) => ms / baseline[2 * i + offset]!);
    const span = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];
    return {
      pairs,
      repetitions,
      fetchParseMs,
      firstDayMs: median(firstDay),
      steadyMs: median(steady),
      firstDayRatio: median(firstDay) / fetchParseMs,
      steadyRatio: median(steady) / fetchParseMs,
      range: { firstDayRatio: span(ratios(firstDay, 0)), steadyRatio: span(ratios(steady, 1)) },
      runsMs: { fetchParse: baseline, receive: received, firstDay, steady },
      receiveMs: median(received),
      overReceive: {
        firstDay: median(firstDay) / median(received),
        steady: median(steady) / median(received),
      },
      allocation,
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
    await rig.close();
  }
}
