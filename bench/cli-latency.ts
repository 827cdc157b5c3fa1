import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { addDays } from '../src/dates.js';
import { builtinScenario, startSandbox } from '../src/sandbox/index.js';
import { RedisStore } from '../src/store/redis-store.js';
import { RUN_RETENTION_DAYS } from '../src/store/retention.js';
import { median } from './measure.js';
import { fleetNetworks, startWorkerProcess, spawnCli, writeConfigFile } from './worker-process.js';

/**
 * P7: how long an operator waits for `thm status` and `thm run --wait` to answer, with
 * `networks` networks configured: from spawning bin/thm.js (with its shebang's node flags) to
 * the first byte on stdout, and to the process's exit. Against the sandbox (100 pairs a
 * network, served from this process) and the private redis-server, with one `thm worker`
 * running and idle, after every network has run once (so status has a run record per network
 * to show). `thm run traffic-check --network bench-1 --wait` asks for that date again: the
 * worker answers "already done" without calling the API, so the figure is the CLI's own cost
 * plus one job's round trip through the queue, not a check's.
 *
 * Then each network gets the run records of the days before, both kinds, as far back as the
 * store keeps them (RUN_RETENTION_DAYS: what a worker leaves after two months), and
 * `thm status` is timed again: it reads every record to find the latest ones.
 */
export interface CliLatencyResult {
  networks: number;
  runs: number;
  commands: Array<{
    command: string;
    firstOutputSeconds: number;
    exitSeconds: number;
    /** [min, max] of the first-output times. */
    range: [number, number];
    allFirstOutputSeconds: number[];
  }>;
  /** `thm status` again, with RUN_RETENTION_DAYS days of run records of both kinds. */
  statusWithHistory: {
    runRecordsPerNetwork: number;
    firstOutputSeconds: number;
    exitSeconds: number;
    range: [number, number];
  };
}

const AS_OF = '2026-11-21';

export async function measureCliLatency(
  redisUrl: string,
  networks: number,
  runs: number,
): Promise<CliLatencyResult> {
  const sandbox = await startSandbox({
    scenario: builtinScenario('bench', { networks, pairsPerNetwork: 100, startDay: AS_OF }),
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-bench-cli-'));
  const env: Record<string, string> = {};
  const prefix = `bench-p7-${Date.now()}`;
  const raw = {
    redis: { url: redisUrl, prefix },
    mail: { outboxDir: path.join(dir, 'outbox') },
    networks: fleetNetworks(sandbox, env),
  };
  const file = writeConfigFile(dir, 'thm.json', raw);
  const worker = startWorkerProcess(file, env);
  const thm = (args: string[]) => runCli([...args, '--config', file], dir, env);
  try {
    await worker.waitForLog('worker started', 60_000);
    const populated = await thm(['run', 'traffic-check', '--all', '--date', AS_OF, '--wait']);
    if (populated.code !== 0) throw new Error(`thm run --all --wait exited ${populated.code}`);
    const commands = [
      ['status'],
      ['run', 'traffic-check', '--network', 'bench-1', '--date', AS_OF, '--wait'],
    ];
    const times = commands.map(() => ({ first: [] as number[], exit: [] as number[] }));
    // Alternated, so both see the same load.
    for (let i = 0; i < runs; i += 1) {
      for (const [c, args] of commands.entries()) {
        const result = await thm(args);
        if (result.code !== 0) throw new Error(`thm ${args.join(' ')} exited ${result.code}`);
        times[c]!.first.push(result.firstOutputSeconds);
        times[c]!.exit.push(result.exitSeconds);
      }
    }
    const runRecordsPerNetwork = await addRunHistory(
      redisUrl,
      prefix,
      raw.networks.map((n) => String(n.id)),
    );
    const withHistory = { first: [] as number[], exit: [] as number[] };
    for (let i = 0; i < runs; i += 1) {
      const result = await thm(['status']);
      if (result.code !== 0) throw new Error(`thm status exited ${result.code}`);
      withHistory.first.push(result.firstOutputSeconds);
      withHistory.exit.push(result.exitSeconds);
    }
    return {
      networks,
      runs,
      statusWithHistory: {
        runRecordsPerNetwork,
        firstOutputSeconds: median(withHistory.first),
        exitSeconds: median(withHistory.exit),
        range: [Math.min(...withHistory.first), Math.max(...withHistory.first)],
      },
      commands: commands.map((args, c) => ({
        command: `thm ${args.join(' ')}`,
        firstOutputSeconds: median(times[c]!.first),
        exitSeconds: median(times[c]!.exit),
        range: [Math.min(...times[c]!.first), Math.max(...times[c]!.first)],
        allFirstOutputSeconds: times[c]!.first,
      })),
    };
  } finally {
    await worker.stop();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const DAY_MS = 86_400_000;

/**
 * Commits, through the store as a worker does, each network's run records of both kinds for
 * the RUN_RETENTION_DAYS days before AS_OF (copies of its AS_OF traffic-check, a day earlier
 * each), oldest first so that retention prunes none. Returns the records a network then has.
 */
async function addRunHistory(url: string, prefix: string, networkIds: string[]): Promise<number> {
  const redis = new Redis(url);
  const store = new RedisStore(redis, prefix);
  try {
    await Promise.all(
      networkIds.map(async (networkId) => {
        const base = await store.getRun(networkId, 'traffic-check', AS_OF);
        if (!base) throw new Error(`${networkId} has no run record for ${AS_OF}`);
        let { rev } = await store.loadNetworkState(networkId, {
          asOf: AS_OF,
          kind: 'traffic-check',
          now: Date.now(),
        });
        for (let days = RUN_RETENTION_DAYS; days >= 1; days -= 1)
          for (const kind of ['traffic-check', 'invoice-snapshot'] as const) {
            const earlier = days * DAY_MS;
            const run = {
              ...base,
              kind,
              asOf: addDays(AS_OF, -days),
              startedAt: base.startedAt - earlier,
              finishedAt: base.finishedAt - earlier,
            };
            const result = await store.commitRun({
              networkId,
              expectedRev: rev,
              run,
              notifications: [],
            });
            if (!result.committed) throw new Error(`${networkId}: history not committed`);
            rev = result.rev;
          }
      }),
    );
    return (await store.listRuns(networkIds[0]!)).length;
  } finally {
    redis.disconnect();
  }
}

/** A command of bin/thm.js (spawnCli): stdout's first byte and the exit, timed. */
function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; firstOutputSeconds: number; exitSeconds: number }> {
  const started = performance.now();
  const child = spawnCli(args, cwd, env);
  let first: number | undefined;
  let stderr = '';
  child.stdout!.on('data', () => {
    first ??= performance.now() - started;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const exit = performance.now() - started;
      if (code !== 0) process.stderr.write(stderr);
      resolve({ code, firstOutputSeconds: (first ?? exit) / 1000, exitSeconds: exit / 1000 });
    });
  });
}
