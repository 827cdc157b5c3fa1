import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from './measure.js';
import { startWorkerProcess, writeConfigFile } from './worker-process.js';

/**
 * P5: `thm worker` with `networks` networks configured (a traffic-check and an invoice-snapshot
 * scheduler each), from process spawn to its "job schedulers reconciled" log line, on a fresh
 * Redis prefix each time (so every scheduler is upserted, the expensive case). The networks
 * point at a closed loopback port: starting does not call the API.
 */
export interface StartupResult {
  networks: number;
  schedulers: number;
  runs: number;
  seconds: number;
  allSeconds: number[];
}

export async function measureStartup(
  redisUrl: string,
  networks: number,
  runs: number,
): Promise<StartupResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-bench-start-'));
  const times: number[] = [];
  let schedulers = 0;
  try {
    for (let run = 0; run < runs; run += 1) {
      const raw = {
        redis: { url: redisUrl, prefix: `bench-p5-${Date.now()}-${run}` },
        mail: { outboxDir: path.join(dir, 'outbox') },
        networks: Array.from({ length: networks }, (_, i) => ({
          id: `net-${i + 1}`,
          baseUrl: 'http://127.0.0.1:9/v1',
          apiKeyEnv: 'BENCH_KEY',
          recipients: [`ops@net-${i + 1}.example`],
        })),
      };
      const file = writeConfigFile(dir, `thm-${run}.json`, raw);
      const worker = startWorkerProcess(file, { BENCH_KEY: 'bench-key' });
      try {
        const { ms, line } = await worker.waitForLog('job schedulers reconciled', 120_000);
        times.push(ms / 1000);
        schedulers = Number(line.upserted ?? 0) + Number(line.unchanged ?? 0);
      } finally {
        await worker.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { networks, schedulers, runs, seconds: median(times), allSeconds: times };
}
