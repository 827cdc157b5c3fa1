import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueueEvents } from 'bullmq';
import { parseConfig } from '../src/config/load.js';
import { startPrivateRedis } from '../src/demo/private-redis.js';
import { enqueueManualRun, waitForJob } from '../src/jobs/enqueue.js';
import { CHECKS_QUEUE } from '../src/jobs/names.js';
import { connectRedis } from '../src/redis/connection.js';
import type { CheckOutcome } from '../src/jobs/traffic-check.js';
import { startWorker } from '../src/jobs/worker.js';
import { silentLogger } from '../src/log.js';
import { builtinScenario, startSandbox } from '../src/sandbox/index.js';

/**
 * The path of one traffic-check through the code, from the trigger to the sent e-mail: which of
 * our source files and functions it runs (issue 21's "files and hops" measure, made repeatable).
 *
 *   npm run build && node dist/bench/check-path.js [--list]
 *
 * A real worker in this process (the outbox dir as its transport), the sandbox with the demo
 * story, a private redis-server. One traffic-check of acme warms the process up (lazy set-up,
 * script loading, connections); then V8's precise coverage counts the calls of every function
 * while `thm run`'s own calls enqueue the next day's check (new pairs: an alert e-mail), wait for
 * its outcome, and the worker delivers the e-mail. Counted: functions of src/ that ran at least
 * once in that window, and the files they are in; src/sandbox/ is the API's side and left out,
 * as is anything the worker does on a timer (no sweep, no canary, no heartbeat in the window).
 */

interface FunctionCoverage {
  functionName: string;
  ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const srcRoot = path.resolve(here, '../src');

async function main(): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

  const redis = await startPrivateRedis();
  const sandbox = await startSandbox({ scenario: builtinScenario('demo') });
  const outboxDir = mkdtempSync(path.join(tmpdir(), 'thm-check-path-'));
  const key = sandbox.keys.find((k) => k.network === 'acme' && k.portal === 'network')!.key;
  const config = parseConfig(
    {
      redis: { url: redis.url, prefix: 'check-path' },
      mail: { from: 'Traffic Health <alerts@thm.example>', outboxDir },
      networks: [
        {
          id: 'acme',
          name: 'Acme Network',
          baseUrl: sandbox.baseUrl,
          apiKeyEnv: 'ACME_KEY',
          timezone: 'UTC',
          recipients: ['ops@acme.example'],
        },
      ],
    },
    { env: { ACME_KEY: key } },
  );
  const worker = await startWorker(config, silentLogger, {
    schedulers: false,
    sweepIntervalMs: 3_600_000,
  });
  const eventsConnection = connectRedis(config.redis, silentLogger);
  const events = new QueueEvents(CHECKS_QUEUE, {
    connection: eventsConnection,
    prefix: config.redis.prefix,
  });
  await events.waitUntilReady();
  const network = config.networks[0]!;

  const check = async (asOf: string): Promise<CheckOutcome> => {
    sandbox.setDay(asOf);
    const sentBefore = (await worker.runtime.store.outboxCounts()).sent;
    const { job } = await enqueueManualRun(worker.checksQueue, {
      kind: 'traffic-check',
      network,
      asOf,
      attempts: 1,
      backoffMs: 100,
    });
    const result = await waitForJob<CheckOutcome>(worker.checksQueue, job, events, 30_000);
    if (result.state !== 'completed') throw new Error(`check of ${asOf}: ${result.state}`);
    const expected = sentBefore + result.value.notifications.length;
    while ((await worker.runtime.store.outboxCounts()).sent < expected) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return result.value;
  };

  try {
    await check('2026-11-14');
    await session.post('Profiler.takePreciseCoverage'); // resets the counts: the warm-up is out
    const outcome = await check('2026-11-15');
    const { result } = (await session.post('Profiler.takePreciseCoverage')) as {
      result: Array<{ url: string; functions: FunctionCoverage[] }>;
    };
    await session.post('Profiler.stopPreciseCoverage');
    report(result, outcome);
  } finally {
    await events.close();
    eventsConnection.disconnect();
    await worker.close();
    await sandbox.close();
    await redis.shutdown();
    rmSync(outboxDir, { recursive: true, force: true });
    session.disconnect();
  }
}

function report(
  scripts: Array<{ url: string; functions: FunctionCoverage[] }>,
  outcome: CheckOutcome,
): void {
  const files: Array<{ file: string; functions: string[]; calls: number }> = [];
  for (const script of scripts) {
    if (!script.url.startsWith('file://')) continue;
    const file = path.relative(srcRoot, fileURLToPath(script.url));
    if (file.startsWith('..') || file.startsWith('sandbox/')) continue;
    const ran = script.functions.filter(
      (f) => (f.ranges[0]?.count ?? 0) > 0 && f.ranges[0]!.startOffset > 0,
    );
    if (ran.length === 0) continue;
    files.push({
      file: file.replace(/\.js$/, '.ts'),
      functions: ran.map((f) => f.functionName || '(anonymous)'),
      calls: ran.reduce((sum, f) => sum + f.ranges[0]!.count, 0),
    });
  }
  files.sort((a, b) => a.file.localeCompare(b.file));
  const functions = files.reduce((sum, f) => sum + f.functions.length, 0);
  console.log(
    `one traffic-check (${outcome.asOf}: ${outcome.notifications.map((n) => n.kind).join(', ') || 'no e-mail'}), trigger to sent e-mail:`,
  );
  console.log(`  ${files.length} files of src/, ${functions} functions run`);
  if (process.argv.includes('--list')) {
    for (const f of files) console.log(`  ${f.file}: ${f.functions.join(', ')}`);
  } else {
    console.log(`  ${files.map((f) => f.file).join(' ')}`);
  }
}

await main();
