import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { parseConfig, type Config } from '../../src/config/load.js';
import { asJoined, enqueueManualRun, waitForJob, type WaitResult } from '../../src/jobs/enqueue.js';
import type { CheckJobData } from '../../src/jobs/job-data.js';
import { CHECKS_QUEUE, type CheckKind } from '../../src/jobs/names.js';
import type { CheckOutcome } from '../../src/jobs/traffic-check.js';
import { startWorker, type RunningWorker, type StartWorkerOptions } from '../../src/jobs/worker.js';
import { silentLogger, type Logger } from '../../src/log.js';
import type { Scenario } from '../../src/sandbox/index.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { startTestSandbox, TEST_HTTP, type TestSandbox } from '../harness/sandbox.js';
import { startSmtp, type TestSmtp } from '../harness/smtp.js';

/**
 * The whole stack for job tests, every part real: a private redis-server, the sandbox API over
 * loopback, an SMTP server, and as many in-process workers as a test starts.
 */
export interface JobStack {
  redis: TestRedis;
  smtp: TestSmtp;
  sbx: TestSandbox;
  config: Config;
  queue: Queue<CheckJobData>;
  events: QueueEvents;
  workers: RunningWorker[];
  startWorker(options?: StartWorkerOptions, logger?: Logger): Promise<RunningWorker>;
  run(
    kind: CheckKind,
    networkId: string,
    asOf: string,
    options?: { force?: boolean; timeoutMs?: number },
  ): Promise<WaitResult<CheckOutcome>>;
  /**
   * The environment of a `thm worker` child process on this stack: a config file with the
   * stack's Redis, SMTP server and API settings, `worker` and `networks` as given (the mail
   * deadline short, as the in-process workers'), THM_CONFIG pointing at it.
   */
  processEnv(options: {
    worker: Record<string, unknown>;
    networks: Array<Record<string, unknown>>;
    env?: Record<string, string>;
    logLevel?: string;
  }): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startJobStack(
  networks: string[] = ['acme', 'globex'],
  rest: Record<string, unknown> = {},
  options: {
    smtpAuth?: { user: string; pass: string };
    /** Config entries (networks[]) instead of one per sandbox network in `networks`. */
    rawNetworks?: (sbx: TestSandbox) => Array<Record<string, unknown>>;
    /** The sandbox's scenario; default the demo story. */
    scenario?: Scenario;
    /** More environment for the config (channel URLs and keys), beside the sandbox's keys. */
    env?: Record<string, string>;
  } = {},
): Promise<JobStack> {
  const redis = await startRedis();
  const smtp = await startSmtp(options.smtpAuth ? { auth: options.smtpAuth } : {});
  const sbx = await startTestSandbox(options.scenario);
  const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
  const names: Record<string, string> = { acme: 'Acme Network', globex: 'Globex Partners' };
  const config = parseConfig(
    {
      networks:
        options.rawNetworks?.(sbx) ??
        networks.map((id) => sbx.rawNetwork(id, { name: names[id] ?? id })),
      redis: { url: redis.url, prefix },
      mail: { url: smtp.url, from: 'Traffic Health <alerts@thm.test>', timeoutMs: 2_000 },
      api: TEST_HTTP,
      worker: {
        concurrency: 4,
        attempts: 3,
        backoffMs: 100,
        lockDurationMs: 2_000,
        stalledIntervalMs: 1_000,
      },
      ...rest,
    },
    { env: { ...sbx.env, ...options.env } },
  );
  const queue = new Queue<CheckJobData>(CHECKS_QUEUE, { connection: redis.client(), prefix });
  const events = new QueueEvents(CHECKS_QUEUE, { connection: redis.client(), prefix });
  await events.waitUntilReady();
  const workers: RunningWorker[] = [];
  const stack: JobStack = {
    redis,
    smtp,
    sbx,
    config,
    queue,
    events,
    workers,
    async startWorker(options = {}, logger = silentLogger) {
      const worker = await startWorker(config, logger, {
        schedulers: false,
        sweepIntervalMs: 200,
        ...options,
      });
      workers.push(worker);
      return worker;
    },
    async run(kind, networkId, asOf, options = {}) {
      const network = config.networks.find((n) => n.id === networkId);
      if (!network) throw new Error(`no network ${networkId}`);
      const { job, joined } = await enqueueManualRun(queue, {
        kind,
        network,
        asOf,
        force: options.force,
        attempts: config.worker.attempts,
        backoffMs: config.worker.backoffMs,
      });
      const result = await waitForJob<CheckOutcome>(
        queue,
        job,
        events,
        options.timeoutMs ?? 20_000,
      );
      return joined && result.state === 'completed'
        ? { ...result, value: asJoined(result.value) }
        : result;
    },
    processEnv({ worker, networks, env = {}, logLevel = 'info' }) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-process-')), 'thm.json');
      writeFileSync(
        file,
        JSON.stringify({
          redis: { url: redis.url, prefix },
          mail: { url: smtp.url, from: config.mail.from, timeoutMs: 2_000 },
          api: config.api,
          worker,
          networks,
        }),
      );
      return { ...sbx.env, ...env, THM_CONFIG: file, LOG_LEVEL: logLevel };
    },
    async close() {
      await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
      await events.close();
      await queue.close();
      await sbx.close();
      await smtp.close();
      await redis.shutdown();
    },
  };
  return stack;
}

export function completed(result: WaitResult<CheckOutcome>): CheckOutcome {
  if (result.state !== 'completed') throw new Error(`job ${result.state}: ${result.error}`);
  return result.value;
}
