import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { parseConfig } from '../src/config/load.js';
import { enqueueManualRun } from '../src/jobs/enqueue.js';
import type { CheckJobData } from '../src/jobs/job-data.js';
import { CHECKS_QUEUE } from '../src/jobs/names.js';
import { builtinScenario, startSandbox } from '../src/sandbox/index.js';
import { startWorkerProcess, writeConfigFile } from './worker-process.js';

/**
 * P3: `networks` x `pairs` through the checks queue, processed by ONE `thm worker` child
 * process with the config's default concurrency, against the sandbox (served from this
 * process) and the private redis-server; the alert e-mails go to the outbox dir (no mail.url),
 * written by the worker's own mail queue. The clock runs from the first enqueue to the last
 * completed job (the worker is started and ready before). Every job is a first-day run (fresh
 * prefix), so every network's 2,000 pairs are new and e-mailed.
 *
 * All three processes share the machine's cores: the figure is the system's, not the worker's
 * alone. The sandbox answers from a cached body per network and day.
 */
export interface FleetResult {
  networks: number;
  pairsPerNetwork: number;
  concurrency: number;
  seconds: number;
  pairsPerSecond: number;
  workerPeakRssMb: number;
  /** CPU seconds the worker used for the jobs, and pairs per worker CPU second. */
  workerCpuSeconds: number;
  pairsPerWorkerCpuSecond: number;
  failed: number;
  emailsWritten: number;
}

const AS_OF = '2026-11-21';

export async function measureFleet(
  redis: Redis,
  redisUrl: string,
  networks: number,
  pairs: number,
): Promise<FleetResult> {
  const sandbox = await startSandbox({
    scenario: builtinScenario('bench', { networks, pairsPerNetwork: pairs, startDay: AS_OF }),
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-bench-fleet-'));
  const prefix = `bench-p3-${Date.now()}`;
  const env: Record<string, string> = {};
  const raw = {
    redis: { url: redisUrl, prefix },
    mail: { outboxDir: path.join(dir, 'outbox') },
    networks: sandbox.keys
      .filter((k) => k.portal === 'network')
      .map((k, i) => {
        env[`BENCH_KEY_${i}`] = k.key;
        return {
          id: k.network,
          baseUrl: sandbox.baseUrl,
          apiKeyEnv: `BENCH_KEY_${i}`,
          recipients: [`ops@${k.network}.example`],
          invoices: { enabled: false },
        };
      }),
  };
  const config = parseConfig(raw, { env });
  const file = writeConfigFile(dir, 'thm.json', raw);
  const worker = startWorkerProcess(file, env);
  const queue = new Queue<CheckJobData>(CHECKS_QUEUE, { connection: redis, prefix });
  try {
    await worker.waitForLog('worker started', 60_000);
    const cpuBefore = worker.cpuSeconds();
    const started = performance.now();
    for (const network of config.networks) {
      await enqueueManualRun(queue, {
        kind: 'traffic-check',
        network,
        asOf: AS_OF,
        attempts: 1,
        backoffMs: 1_000,
      });
    }
    let completed = 0;
    let failed = 0;
    const deadline = Date.now() + 600_000;
    while (completed + failed < networks) {
      if (Date.now() > deadline) throw new Error(`fleet: ${completed} of ${networks} in 10 min`);
      await new Promise((r) => setTimeout(r, 20));
      const counts = await queue.getJobCounts('completed', 'failed');
      completed = counts.completed ?? 0;
      failed = counts.failed ?? 0;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = worker.cpuSeconds() - cpuBefore;
    const peak = worker.peakRssMb() ?? Number.NaN;
    const outbox = path.join(dir, 'outbox');
    let emailsWritten = 0;
    try {
      emailsWritten = readdirSync(outbox).filter((f) => f.endsWith('.eml')).length;
    } catch {
      emailsWritten = 0;
    }
    return {
      networks,
      pairsPerNetwork: pairs,
      concurrency: config.worker.concurrency,
      seconds,
      pairsPerSecond: (completed * pairs) / seconds,
      workerPeakRssMb: peak,
      workerCpuSeconds: cpuSeconds,
      pairsPerWorkerCpuSecond: (completed * pairs) / cpuSeconds,
      failed,
      emailsWritten,
    };
  } finally {
    await worker.stop();
    await queue.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
