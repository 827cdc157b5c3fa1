import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { parseConfig } from '../src/config/load.js';
import { enqueueManualRun } from '../src/jobs/enqueue.js';
import type { CheckJobData } from '../src/jobs/job-data.js';
import { CHECKS_QUEUE } from '../src/jobs/names.js';
import { startSandboxProcess } from './sandbox-process.js';
import { startSmtpSink } from './smtp-sink.js';
import { fleetNetworks, startWorkerProcess, writeConfigFile } from './worker-process.js';

/**
 * P3 and P3b: `networks` x `pairs` through the checks queue, processed by `workers` `thm worker`
 * child processes (one for P3) with the config's default concurrency, against the sandbox (in
 * a process of its own, as the partner's API is in production and in P1: served from this one,
 * it shared an event loop and a heap with the SMTP sink and the harness's polling) and the
 * private redis-server; the alert e-mails go over SMTP to a sink on loopback
 * (bench/smtp-sink.ts), sent by the workers' own mail queue. The clock runs
 * from the first enqueue to the last completed check job (the workers are started and ready
 * before). Every job is a first-day run (fresh prefix), so every network's 2,000 pairs are new
 * and e-mailed: exactly one alert e-mail per network is expected, and the sink's count of each
 * notification id says whether one was lost or sent twice.
 *
 * All processes share the machine's cores: the figure is the system's, not a worker's alone.
 * The sandbox answers from a cached body per network and day.
 */
export interface FleetResult {
  networks: number;
  pairsPerNetwork: number;
  concurrency: number;
  /** Worker processes taking jobs from the queue. */
  workers: number;
  seconds: number;
  pairsPerSecond: number;
  /** The largest VmHWM of the workers, and their sum. */
  workerPeakRssMb: number;
  workersPeakRssMbTotal: number;
  /** CPU seconds the workers used for the jobs, and pairs per worker CPU second. */
  workerCpuSeconds: number;
  pairsPerWorkerCpuSecond: number;
  failed: number;
  /** Distinct alert e-mails the SMTP sink received (one per network expected). */
  emailsWritten: number;
  /** Networks whose alert never arrived, and e-mails received more than once. */
  emailsLost: number;
  emailsDoubled: number;
}

const AS_OF = '2026-11-21';

export async function measureFleet(
  redis: Redis,
  redisUrl: string,
  networks: number,
  pairs: number,
  workers = 1,
): Promise<FleetResult> {
  const sink = await startSmtpSink();
  const sandbox = await startSandboxProcess({
    networks,
    pairsPerNetwork: pairs,
    startDay: AS_OF,
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-bench-fleet-'));
  const prefix = `bench-p3-${Date.now()}`;
  const env: Record<string, string> = {};
  const raw = {
    redis: { url: redisUrl, prefix },
    mail: { url: sink.url, outboxDir: path.join(dir, 'outbox') },
    networks: fleetNetworks(sandbox, env),
  };
  const config = parseConfig(raw, { env });
  const file = writeConfigFile(dir, 'thm.json', raw);
  const processes = Array.from({ length: workers }, () => startWorkerProcess(file, env));
  const queue = new Queue<CheckJobData>(CHECKS_QUEUE, { connection: redis, prefix });
  const cpu = () => processes.reduce((sum, w) => sum + w.cpuSeconds(), 0);
  try {
    await Promise.all(processes.map((w) => w.waitForLog('worker started', 60_000)));
    const cpuBefore = cpu();
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
    const cpuSeconds = cpu() - cpuBefore;
    // The deliveries trail the checks: wait for them (not timed), then a moment for a second
    // copy of any of them to arrive.
    const mailDeadline = Date.now() + 120_000;
    while (sink.received.size < completed && Date.now() < mailDeadline)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1_000));
    const peaks = processes.map((w) => w.peakRssMb() ?? Number.NaN);
    const doubled = [...sink.received.values()].reduce((sum, n) => sum + n - 1, 0);
    return {
      networks,
      pairsPerNetwork: pairs,
      concurrency: config.worker.concurrency,
      workers,
      seconds,
      pairsPerSecond: (completed * pairs) / seconds,
      workerPeakRssMb: Math.max(...peaks),
      workersPeakRssMbTotal: peaks.reduce((sum, p) => sum + p, 0),
      workerCpuSeconds: cpuSeconds,
      pairsPerWorkerCpuSecond: (completed * pairs) / cpuSeconds,
      failed,
      emailsWritten: sink.received.size,
      emailsLost: networks - sink.received.size,
      emailsDoubled: doubled,
    };
  } finally {
    await Promise.all(processes.map((w) => w.stop()));
    await queue.close();
    await sandbox.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
