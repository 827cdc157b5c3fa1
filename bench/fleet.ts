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
 * `networks` x `pairs` through the checks queue, processed by one `thm worker` child process
 * with the config's default concurrency: P3 (200 networks x 2,000 pairs) and P6 (one network of
 * 50,000). Against the sandbox in a process of its own (as the partner's API is) and the private
 * redis-server; the alert e-mails go over SMTP to a sink on loopback (bench/smtp-sink.ts), sent
 * by the worker's own mail queue. The clock runs from the first enqueue to the last completed
 * check job (the worker is started and ready before). Every job is a first-day run (fresh
 * prefix), so every pair is new and e-mailed: exactly one alert e-mail per network is expected,
 * and the sink's count of each notification id says whether one was lost or sent twice.
 *
 * All processes share the machine's cores: the figure is the system's, not the worker's alone.
 */
export interface FleetResult {
  networks: number;
  pairsPerNetwork: number;
  concurrency: number;
  seconds: number;
  pairsPerSecond: number;
  /** The worker's peak resident set (VmHWM), after its e-mails went out. */
  workerPeakRssMb: number;
  failed: number;
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
): Promise<FleetResult> {
  const sink = await startSmtpSink();
  const sandbox = await startSandboxProcess({
    networks,
    pairsPerNetwork: pairs,
    startDay: AS_OF,
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-bench-fleet-'));
  const prefix = `bench-fleet-${Date.now()}`;
  const env: Record<string, string> = {};
  const raw = {
    redis: { url: redisUrl, prefix },
    mail: { url: sink.url, outboxDir: path.join(dir, 'outbox') },
    networks: fleetNetworks(sandbox, env),
  };
  const config = parseConfig(raw, { env });
  const worker = startWorkerProcess(writeConfigFile(dir, 'thm.json', raw), env);
  const queue = new Queue<CheckJobData>(CHECKS_QUEUE, { connection: redis, prefix });
  try {
    await worker.waitForLog('worker started', 60_000);
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
    // The deliveries trail the checks: wait for them (not timed), then a moment for a second
    // copy of any of them to arrive.
    const mailDeadline = Date.now() + 120_000;
    while (sink.received.size < completed && Date.now() < mailDeadline)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1_000));
    const doubled = [...sink.received.values()].reduce((sum, n) => sum + n - 1, 0);
    return {
      networks,
      pairsPerNetwork: pairs,
      concurrency: config.worker.concurrency,
      seconds,
      pairsPerSecond: (completed * pairs) / seconds,
      workerPeakRssMb: worker.peakRssMb() ?? Number.NaN,
      failed,
      emailsLost: networks - sink.received.size,
      emailsDoubled: doubled,
    };
  } finally {
    await worker.stop();
    await queue.close();
    await sandbox.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
