import { createWriteStream } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { createLogger, silentLogger, type Logger } from '../../src/log.js';
import type { HealthReport } from '../../src/observability/health.js';
import { storeKeys, runField, sentField } from '../../src/store/keys.js';
import { waitFor } from '../harness/ports.js';
import {
  replicasInSync,
  startCluster,
  startSentinels,
  type Node,
  type TestCluster,
  type TestSentinels,
} from '../harness/topologies.js';
import { startTopologyStack, type TopologyStack } from './topology-stack.js';

/**
 * Real failovers with a run in flight: the sandbox holds the run's isptrends answer for a few
 * seconds (its delay fault), the failover happens meanwhile, and the run commits afterwards.
 * For each of CLUSTER FAILOVER, SENTINEL FAILOVER and kill -9 of the Sentinels' master:
 * - the run completes as done, and its date gets exactly one e-mail;
 * - its run record, sent pair events and outbox entries are on the new master;
 * - the next date's run succeeds on the same worker, never restarted;
 * - /healthz flagged Redis while it happened (Sentinel, kill -9; a manual Cluster failover is over
 *   within one poll), and then reports the node the worker writes to:
 *   the new master.
 * The times measured (trigger to new master, trigger to a healthy worker on it) are printed.
 */

const worker = {
  concurrency: 2,
  attempts: 5,
  backoffMs: 200,
  // Longer than a failover: the run keeps its lock, so it is not run a second time.
  lockDurationMs: 30_000,
  stalledIntervalMs: 2_000,
};

/**
 * THM_FAILOVER_LOG=<file>: the worker's log at debug level, the worker's job events and the
 * test's own steps go to that file (to find out why a run does not complete, see
 * docs/design.md "Failovers").
 */
const debugFile = process.env.THM_FAILOVER_LOG;
const log: Logger = debugFile
  ? createLogger({ level: 'debug', destination: createWriteStream(debugFile, { flags: 'a' }) })
  : silentLogger;

/** The scenario's worker (monitoring on, a 1 s canary), its log and job events to the debug log. */
async function startLoggedWorker(stack: TopologyStack): Promise<RunningWorker> {
  const w = await stack.startWorker({ monitoring: { port: 0, canaryIntervalMs: 1_000 } }, log);
  logJobEvents(w);
  return w;
}

/** The worker's job events, in the debug log. */
function logJobEvents(w: RunningWorker): void {
  if (!debugFile) return;
  const events = w.checksWorker as unknown as {
    on(event: string, listener: (...args: unknown[]) => void): void;
  };
  for (const event of ['active', 'completed', 'failed', 'stalled', 'lockRenewalFailed', 'error'])
    events.on(event, (...args: unknown[]) =>
      log.info(
        {
          event,
          args: args.map((a) =>
            a instanceof Error ? a.message : ((a as { id?: string })?.id ?? a),
          ),
        },
        `checks worker: ${event}`,
      ),
    );
}

async function health(w: RunningWorker): Promise<{ status: number; report: HealthReport }> {
  const res = await request(`${w.monitoring!.server.url}/healthz`);
  return { status: res.statusCode, report: (await res.body.json()) as HealthReport };
}

/** Polls /healthz until stopped, keeping every problem it reported and when each node showed. */
function watchHealth(w: RunningWorker): {
  problems: Set<string>;
  firstSeen: Map<string, number>;
  stop: () => void;
} {
  const problems = new Set<string>();
  const firstSeen = new Map<string, number>();
  let stopped = false;
  void (async () => {
    while (!stopped) {
      try {
        const { report } = await health(w);
        for (const p of report.problems) problems.add(p);
        const node = report.redis?.node;
        if (node !== undefined && !firstSeen.has(node)) firstSeen.set(node, Date.now());
      } catch {
        // The check itself timed out: the next one says why.
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
  return { problems, firstSeen, stop: () => (stopped = true) };
}

/** What the debug log needs to tell why the run in flight did not complete. */
async function logStuckRun(s: Scenario, master: Node, label: string): Promise<void> {
  if (!debugFile) return;
  const jobs = await s.stack.queue
    .getJobs(['active', 'wait', 'delayed', 'completed', 'failed', 'prioritized'])
    .catch((error: Error) => `queue unreadable: ${error.message}`);
  const direct = master.client();
  const keys = await direct
    .keys(`${s.prefix}:*`)
    .catch((error: Error) => `master unreadable: ${error.message}`);
  const queueClient = await s.stack.queue.client;
  log.error(
    {
      label,
      master: master.address,
      testQueueConnection: queueClient.status,
      workerConnection: s.worker.redis.status,
      jobs:
        typeof jobs === 'string'
          ? jobs
          : await Promise.all(
              jobs.map(async (j) => ({
                id: j.id,
                state: await j.getState().catch(() => '?'),
                attemptsMade: j.attemptsMade,
                processedOn: j.processedOn,
                finishedOn: j.finishedOn,
                failedReason: j.failedReason,
                stacktrace: j.stacktrace,
              })),
            ),
      keys,
      health: await health(s.worker).catch((error: Error) => error.message),
      emails: s.stack.smtp.messages.map((m) => m.parsed.subject),
    },
    'test: the run in flight did not complete',
  );
}

interface Scenario {
  stack: TopologyStack;
  worker: RunningWorker;
  prefix: string;
  day: string;
  nextDay: string;
  failover: () => Promise<void>;
  /** Resolves with the new master once the topology names one other than `old`. */
  newMaster: (old: Node) => Promise<Node>;
  oldMaster: () => Promise<Node>;
  /** Replicas the new master has once settled (a killed node is not coming back). */
  replicasAfter: number;
  /**
   * Whether the topology is wrong long enough for the /healthz poll (every 150 ms) to see it.
   * A manual CLUSTER FAILOVER of a replica in sync takes about 0.1 s from the trigger to the
   * worker writing to the new master: /healthz may rightly never see a problem.
   */
  problemsLast: boolean;
}

async function runThroughFailover(s: Scenario, label: string) {
  const { stack, prefix, day } = s;
  const alerts = (date: string) =>
    stack.smtp.messages.filter((m) => m.parsed.subject?.includes(`(${date})`)).length;
  stack.sbx.sandbox.setDay(day);
  stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'isptrends', delayMs: 4_000 });
  const before = await s.oldMaster();
  const running = stack.run('acme', day, 120_000);
  await waitFor(async () => ((await stack.queue.getActiveCount()) > 0 ? true : undefined), {
    timeoutMs: 20_000,
    what: 'the run in flight',
  });
  // A replica still syncing has nothing to take over with (Redis loses the writes then, as in
  // production): the failover starts from replicas in sync, as an operator's would.
  await replicasInSync(before, 1);
  const watch = watchHealth(s.worker);
  const triggered = Date.now();
  log.info({ label, old: before.address }, 'test: failover triggered');
  await s.failover();
  const master = await s.newMaster(before);
  const promotedMs = Date.now() - triggered;
  log.info({ label, master: master.address, promotedMs }, 'test: new master named');

  const result = await running.catch(async (error: unknown) => {
    await logStuckRun(s, master, label);
    throw error;
  });
  log.info({ label, result }, 'test: run finished');
  expect(result).toMatchObject({ state: 'completed', value: { status: 'done' } });
  const outcome = result.state === 'completed' ? result.value : undefined;

  // The worker now writes to the new master, and says so.
  const settled = await waitFor(
    async () => {
      const h = await health(s.worker);
      return h.report.redis?.node === master.address && h.report.redis.replicas >= s.replicasAfter
        ? h
        : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: `/healthz on ${master.address}` },
  );
  const healthyMs = Date.now() - triggered;
  watch.stop();
  expect(settled.report.redis).toMatchObject({ node: master.address, role: 'master' });
  // While it happened, /healthz said Redis was not right (a node demoted or short of its
  // replica, a lost connection), not only the canary minutes later: where the topology was
  // wrong for longer than the poll interval.
  if (s.problemsLast)
    expect([...watch.problems].filter((p) => p.startsWith('redis: '))).not.toEqual([]);

  // The run's record, its sent events and its e-mail are on the new master.
  const keys = storeKeys(prefix);
  const direct = master.client();
  expect(await direct.hexists(keys.network('acme'), runField('traffic-check', day))).toBe(1);
  expect(await direct.hexists(keys.network('acme'), sentField(day))).toBe(1);
  expect(outcome?.notificationIds.length).toBeGreaterThan(0);
  for (const id of outcome?.notificationIds ?? [])
    expect(await direct.hexists(keys.outboxBody, id)).toBe(1);

  await waitFor(() => alerts(day) > 0 || undefined, { timeoutMs: 30_000, what: 'the e-mail' });
  // The next run, on the same worker, never restarted.
  stack.sbx.sandbox.setDay(s.nextDay);
  const next = await stack.run('acme', s.nextDay, 60_000);
  expect(next).toMatchObject({ state: 'completed', value: { status: 'done', outcome: 'ok' } });
  expect(stack.workers).toHaveLength(1);
  await new Promise((r) => setTimeout(r, 1_000));
  expect(alerts(day)).toBe(1);

  console.log(
    `${label}: new master ${master.address} named ${promotedMs} ms after the trigger; the worker's /healthz named it after ${(watch.firstSeen.get(master.address) ?? Date.now()) - triggered} ms, with ${s.replicasAfter} replica(s) after ${healthyMs} ms; /healthz said meanwhile: ${JSON.stringify([...watch.problems])}`,
  );
  return { problems: watch.problems, old: before, master };
}

describe('failover with a run in flight: Redis Cluster (3 masters, 3 replicas)', () => {
  let cluster: TestCluster;
  let stack: TopologyStack;
  let w: RunningWorker;
  const prefix = '{thmf}';

  beforeAll(async () => {
    cluster = await startCluster();
    stack = await startTopologyStack({ prefix, cluster: { nodes: cluster.seeds } }, { worker });
    w = await startLoggedWorker(stack);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await cluster?.shutdown();
  });

  it('CLUSTER FAILOVER: one e-mail, the record on the new master, the next run on the same worker', async () => {
    const key = `${prefix}:x`;
    await runThroughFailover(
      {
        stack,
        worker: w,
        prefix,
        day: '2026-11-15',
        nextDay: '2026-11-16',
        oldMaster: () => cluster.masterOf(key),
        failover: async () => {
          await cluster.failover(key);
        },
        newMaster: (old) =>
          waitFor(
            async () => {
              const now = await cluster.masterOf(key).catch(() => undefined);
              return now && now !== old ? now : undefined;
            },
            { timeoutMs: 30_000, intervalMs: 100, what: 'the promoted replica' },
          ),
        replicasAfter: 1,
        problemsLast: false,
      },
      'CLUSTER FAILOVER',
    );
  }, 180_000);
});

describe('failover with a run in flight: Redis Sentinel (master, replica, 3 Sentinels)', () => {
  let sentinels: TestSentinels;
  let stack: TopologyStack;
  let w: RunningWorker;
  const prefix = 'thmf';

  beforeAll(async () => {
    sentinels = await startSentinels();
    stack = await startTopologyStack(
      {
        url: 'redis://127.0.0.1:1',
        prefix,
        sentinel: { name: sentinels.name, nodes: sentinels.sentinelAddresses },
        // A lone master after the kill -9 keeps its writes after this (see store/confirm.ts).
        confirmTimeoutMs: 3_000,
      },
      { worker },
    );
    w = await startLoggedWorker(stack);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await sentinels?.shutdown();
  });

  const newMaster = (old: Node) =>
    waitFor(
      async () => {
        const now = await sentinels.currentMaster().catch(() => undefined);
        return now && now !== old ? now : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'the Sentinels naming a new master' },
    );

  it('SENTINEL FAILOVER: one e-mail, the record on the new master, the next run on the same worker', async () => {
    await runThroughFailover(
      {
        stack,
        worker: w,
        prefix,
        day: '2026-11-15',
        nextDay: '2026-11-16',
        oldMaster: () => sentinels.currentMaster(),
        failover: async () => {
          await sentinels.sentinels[0]!.client().call('SENTINEL', 'FAILOVER', sentinels.name);
        },
        newMaster,
        replicasAfter: 1,
        problemsLast: true,
      },
      'SENTINEL FAILOVER',
    );
  }, 180_000);

  // This case found an ioredis race that ended the worker's connection for good in about 1 of 4
  // loaded runs (docs/design.md, "Failovers"; test/jobs/sentinel-reconnect.test.ts makes it
  // deterministic).
  it('kill -9 of the master: the same, and /healthz said the master was gone', async () => {
    const { problems, old } = await runThroughFailover(
      {
        stack,
        worker: w,
        prefix,
        day: '2026-11-17',
        nextDay: '2026-11-18',
        oldMaster: () => sentinels.currentMaster(),
        failover: async () => (await sentinels.currentMaster()).kill(),
        newMaster,
        replicasAfter: 0,
        problemsLast: true,
      },
      'kill -9 of the master',
    );
    // Seconds without a master (the Sentinels wait down-after-milliseconds): health said so.
    expect([...problems].some((p) => p.includes(old.address))).toBe(true);
    expect(old.running()).toBe(false);
    // And now: the lone master, its replica killed, is short of one (a true statement).
    const after = await health(w);
    expect(after.report.problems).toContain(
      `redis: ${after.report.redis?.node} has 0 of 1 replicas connected: commits are not confirmed (redis.confirmReplicas), each waits redis.confirmTimeoutMs`,
    );
  }, 180_000);
});
