import { Queue } from 'bullmq';
import { parseConfig, type Config } from '../../src/config/load.js';
import { asJoined, enqueueManualRun, type WaitResult } from '../../src/jobs/enqueue.js';
import type { CheckJobData } from '../../src/jobs/job-data.js';
import { CHECKS_QUEUE } from '../../src/jobs/names.js';
import { connectRedis } from '../../src/redis/connection.js';
import type { CheckOutcome } from '../../src/jobs/traffic-check.js';
import { startWorker, type RunningWorker, type StartWorkerOptions } from '../../src/jobs/worker.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { withTimeout } from '../../src/with-timeout.js';
import { waitFor } from '../harness/ports.js';
import { startTestSandbox, TEST_HTTP, type TestSandbox } from '../harness/sandbox.js';
import { startSmtp, type TestSmtp } from '../harness/smtp.js';

/**
 * The job stack (sandbox API, SMTP, workers) against a Redis reached through a `redis` config
 * section: a Cluster or a Sentinel set-up from test/harness/topologies.ts. The test's own
 * queue and events connect through the product's connection factory too.
 */
export interface TopologyStack {
  sbx: TestSandbox;
  smtp: TestSmtp;
  /** The raw config document (write it to a file for the CLI). */
  raw: Record<string, unknown>;
  config: Config;
  workers: RunningWorker[];
  startWorker(options?: StartWorkerOptions, logger?: Logger): Promise<RunningWorker>;
  queue: Queue<CheckJobData>;
  run(networkId: string, asOf: string, timeoutMs?: number): Promise<WaitResult<CheckOutcome>>;
  close(): Promise<void>;
}

export async function startTopologyStack(
  redis: Record<string, unknown>,
  rest: Record<string, unknown> = {},
): Promise<TopologyStack> {
  const smtp = await startSmtp();
  const sbx = await startTestSandbox();
  const raw = {
    networks: [sbx.rawNetwork('acme', { name: 'Acme Network' })],
    redis,
    mail: { url: smtp.url, from: 'Traffic Health <alerts@thm.test>', timeoutMs: 2_000 },
    api: TEST_HTTP,
    worker: {
      concurrency: 2,
      attempts: 5,
      backoffMs: 200,
      lockDurationMs: 5_000,
      stalledIntervalMs: 2_000,
    },
    ...rest,
  };
  const config = parseConfig(raw, { env: sbx.env });
  const prefix = config.redis.prefix;
  const queue = new Queue<CheckJobData>(CHECKS_QUEUE, {
    connection: connectRedis(config.redis, silentLogger),
    prefix,
  });
  queue.on('error', () => undefined);
  await queue.waitUntilReady();
  const workers: RunningWorker[] = [];
  return {
    sbx,
    smtp,
    raw,
    config,
    workers,
    queue,
    async startWorker(options = {}, logger = silentLogger) {
      const worker = await startWorker(config, logger, {
        schedulers: false,
        sweepIntervalMs: 500,
        ...options,
      });
      workers.push(worker);
      return worker;
    },
    async run(networkId, asOf, timeoutMs = 60_000) {
      const network = config.networks.find((n) => n.id === networkId);
      if (!network) throw new Error(`no network ${networkId}`);
      const { job, joined } = await enqueueManualRun(queue, {
        kind: 'traffic-check',
        network,
        asOf,
        attempts: config.worker.attempts,
        backoffMs: config.worker.backoffMs,
      });
      // Polls the job rather than following the event stream: events written to a master
      // in its last moments may be lost in a failover, the job's own state is retried.
      const id = job.id ?? '';
      const result = await waitFor(
        async (): Promise<WaitResult<CheckOutcome> | undefined> => {
          const read = async (): Promise<WaitResult<CheckOutcome> | undefined> => {
            // The state first, then the job: a job read first and completed in between would
            // have no return value yet. Completion writes both at once.
            const state = await queue.getJobState(id);
            if (state !== 'completed' && state !== 'failed') return undefined;
            const current = await queue.getJob(id);
            if (state === 'completed')
              return { state, value: current?.returnvalue as CheckOutcome };
            return { state, error: current?.failedReason ?? '' };
          };
          // A read waits for the connection (maxRetriesPerRequest: null): bounded, so a
          // connection that never comes back ends in this wait's timeout, not the test's.
          try {
            return await withTimeout(read(), 5_000, `job ${id}`);
          } catch {
            // Redis is failing over, or did not answer in time: ask again.
            return undefined;
          }
        },
        { timeoutMs, intervalMs: 200, what: `job ${id}` },
      );
      return joined && result.state === 'completed'
        ? { ...result, value: asJoined(result.value) }
        : result;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
      await queue.close().catch(() => undefined);
      await sbx.close();
      await smtp.close();
    },
  };
}
