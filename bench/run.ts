import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../src/demo/private-redis.js';
import { measureCliLatency } from './cli-latency.js';
import { measureFleet, type FleetResult } from './fleet.js';
import { describePlatform, loadNow, median, round, span } from './measure.js';
import { measureReplay, replayFigures } from './replay.js';
import { writePerformanceTable, type BenchResults, type Figure } from './results-table.js';
import { measureSingleNetwork, type SingleNetworkResult } from './single-network.js';
import { measureStartup } from './startup.js';
import { repoRoot } from './worker-process.js';

/**
 * `npm run bench`: the performance budgets of docs/performance.md, measured against real parts
 * (a private redis-server, the sandbox API in a process of its own, real `thm worker` and `thm`
 * processes, an SMTP sink), printed beside their budgets, written to bench/results.json, and
 * the table in docs/performance.md generated from that file (bench/results-table.ts).
 * BENCH_QUICK=1 runs fewer repetitions and writes nothing: a smoke run, not a result.
 *
 * Each step measures one or more budgets and returns their figures; a new budget is one more
 * step in STEPS.
 */

interface Context {
  redis: Redis;
  redisUrl: string;
  quick: boolean;
  details: Record<string, unknown>;
}

interface Step {
  /** What is measured, for the progress line. */
  label: string;
  measure(ctx: Context): Promise<Figure[]>;
}

const ratioBudget = 3;

const STEPS: Step[] = [
  {
    label: 'P1, P2, P4: one network of 1,000, 10,000 and 50,000 pairs',
    async measure(ctx) {
      const sizes = ctx.quick
        ? [
            { pairs: 1_000, repetitions: 0 },
            { pairs: 10_000, repetitions: 2 },
            { pairs: 50_000, repetitions: 1 },
          ]
        : [
            // 1,000 pairs for P2 only: the commands must not grow with the pairs.
            { pairs: 1_000, repetitions: 0 },
            { pairs: 10_000, repetitions: 11 },
            { pairs: 50_000, repetitions: 5 },
          ];
      const results: SingleNetworkResult[] = [];
      for (const { pairs, repetitions } of sizes)
        results.push(await measureSingleNetwork(ctx.redis, ctx.redisUrl, pairs, repetitions));
      ctx.details.singleNetwork = results;
      return singleNetworkFigures(results);
    },
  },
  {
    label: 'P3: 200 networks x 2,000 pairs, one worker',
    async measure(ctx) {
      const runs: FleetResult[] = [];
      for (let i = 0; i < (ctx.quick ? 1 : 3); i += 1)
        runs.push(await measureFleet(ctx.redis, ctx.redisUrl, 200, 2_000));
      ctx.details.fleet = runs;
      const pairsPerSecond = runs.map((r) => r.pairsPerSecond);
      const rss = runs.map((r) => r.workerPeakRssMb);
      const lost = Math.max(...runs.map((r) => r.emailsLost));
      const doubled = Math.max(...runs.map((r) => r.emailsDoubled));
      const failed = Math.max(...runs.map((r) => r.failed));
      return [
        {
          id: 'P3',
          figure: `fleet: 200 networks x 2,000 pairs through the queue, one worker (concurrency ${runs[0]!.concurrency})`,
          measured: Math.round(median(pairsPerSecond)),
          unit: 'pairs/s',
          target: '>= 80,000',
          met: median(pairsPerSecond) >= 80_000,
          runs: runs.length,
          range: span(pairsPerSecond).map(Math.round) as [number, number],
        },
        {
          id: 'P3',
          figure: 'the worker\u2019s peak RSS over the fleet',
          measured: round(median(rss), 0),
          unit: 'MB',
          target: '<= 300',
          met: median(rss) <= 300,
          runs: runs.length,
          range: span(rss).map((n) => round(n, 0)) as [number, number],
        },
        {
          id: 'P3',
          figure: 'alert e-mails lost or sent twice (the SMTP sink counts them), jobs failed',
          measured: lost + doubled + failed,
          unit: '',
          target: '0',
          met: lost + doubled + failed === 0,
          runs: runs.length,
        },
      ];
    },
  },
  {
    label: 'P5: `thm worker` start with 1,000 networks',
    async measure(ctx) {
      const startup = await measureStartup(ctx.redisUrl, 1_000, ctx.quick ? 1 : 3);
      ctx.details.startup = startup;
      return [
        {
          id: 'P5',
          figure: `\`thm worker\` start with ${startup.networks.toLocaleString('en-US')} networks, to all ${startup.schedulers.toLocaleString('en-US')} schedulers upserted`,
          measured: round(startup.seconds),
          unit: 's',
          target: '<= 5',
          met: startup.seconds <= 5 && startup.schedulers === startup.networks * 2,
          runs: startup.runs,
          range: span(startup.allSeconds).map((n) => round(n)) as [number, number],
        },
      ];
    },
  },
  {
    label: 'P6: the worker checking one network of 50,000 pairs',
    async measure(ctx) {
      const runs: FleetResult[] = [];
      for (let i = 0; i < (ctx.quick ? 1 : 3); i += 1)
        runs.push(await measureFleet(ctx.redis, ctx.redisUrl, 1, 50_000));
      ctx.details.largeNetwork = runs;
      const rss = runs.map((r) => r.workerPeakRssMb);
      return [
        {
          id: 'P6',
          figure:
            'the worker\u2019s peak RSS checking one network of 50,000 pairs (first day: all new, e-mailed)',
          measured: round(median(rss), 0),
          unit: 'MB',
          target: '<= 400',
          met: median(rss) <= 400 && runs.every((r) => r.failed + r.emailsLost === 0),
          runs: runs.length,
          range: span(rss).map((n) => round(n, 0)) as [number, number],
        },
      ];
    },
  },
  {
    label: 'P7: `thm status` and `thm run --wait` with 100 networks',
    async measure(ctx) {
      const cli = await measureCliLatency(ctx.redisUrl, 100, ctx.quick ? 2 : 7);
      ctx.details.cli = cli;
      const figures: Figure[] = cli.commands.map((c) => ({
        id: 'P7',
        figure: `\`${c.command.replace(/ --date \S+/, '')}\` to first output, ${cli.networks} networks`,
        measured: round(c.firstOutputSeconds),
        unit: 's',
        target: '<= 0.5',
        met: c.firstOutputSeconds <= 0.5,
        runs: cli.runs,
        range: c.range.map((n) => round(n)) as [number, number],
      }));
      const h = cli.statusWithHistory;
      figures.push({
        id: 'P7',
        figure: `\`thm status\` with ${h.runRecordsPerNetwork} run records a network (two months of both kinds)`,
        measured: round(h.firstOutputSeconds),
        unit: 's',
        target: '<= 0.5',
        met: h.firstOutputSeconds <= 0.5,
        runs: cli.runs,
        range: h.range.map((n) => round(n)) as [number, number],
      });
      return figures;
    },
  },
  {
    label: 'P8: `thm replay` of 90 days of a 10,000-pair network',
    async measure(ctx) {
      const replay = await measureReplay(ctx.redisUrl, {
        pairs: 10_000,
        days: 90,
        runs: ctx.quick ? 1 : 3,
      });
      ctx.details.replay = replay;
      return replayFigures(replay);
    },
  },
];

function singleNetworkFigures(results: SingleNetworkResult[]): Figure[] {
  const figures: Figure[] = [];
  for (const s of results) {
    if (s.repetitions === 0) continue;
    const size = s.pairs.toLocaleString('en-US');
    const days = [
      ['first day (all new, e-mailed)', s.firstDayRatio, s.range.firstDayRatio],
      ['steady state (all ongoing)', s.steadyRatio, s.range.steadyRatio],
    ] as const;
    for (const [day, ratio, range] of days)
      figures.push({
        id: 'P1',
        figure: `traffic-check / (fetch + JSON.parse), ${size} pairs, ${day}`,
        measured: round(ratio),
        unit: 'x',
        target: `<= ${ratioBudget.toFixed(1)}`,
        met: ratio <= ratioBudget,
        runs: s.repetitions,
        range: range.map((n) => round(n)) as [number, number],
      });
  }
  const sizes = results.map((s) => s.pairs.toLocaleString('en-US')).join(' / ');
  const counts = (pick: (s: SingleNetworkResult) => number) => [...new Set(results.map(pick))];
  const firstDays = counts((s) => s.storeCommands.firstDay);
  const steadies = counts((s) => s.storeCommands.steady);
  const most = Math.max(...firstDays, ...steadies);
  figures.push({
    id: 'P2',
    figure: `Redis commands per traffic-check at ${sizes} pairs, first day / steady state (the store's load and commit, the script's own commands included)`,
    measured: most,
    unit: `(${firstDays.join(', ')} / ${steadies.join(', ')})`,
    target: 'constant, <= 10',
    met: firstDays.length === 1 && steadies.length === 1 && most <= 10,
  });
  const withMail = counts((s) => s.storeCommands.firstDay + s.mailQueueCommands.firstDay);
  figures.push({
    id: 'P2',
    figure: 'the same with the BullMQ mail-queue add of the alert, first day',
    measured: Math.max(...withMail),
    unit: `(${withMail.join(', ')})`,
    target: 'constant',
    met: withMail.length === 1,
  });
  const largest = results[results.length - 1]!;
  figures.push({
    id: 'P4',
    figure: `Redis memory per active declining pair (MEMORY USAGE of the network's hash, ${largest.pairs.toLocaleString('en-US')} pairs)`,
    measured: round(largest.bytesPerPair, 1),
    unit: 'bytes',
    target: '<= 80',
    met: largest.bytesPerPair <= 80,
  });
  return figures;
}

function printFigures(figures: Figure[]): void {
  const rows = figures.map((f) => [
    f.id,
    f.figure,
    `${f.measured} ${f.unit}`.trim(),
    f.range ? `[${f.range[0]} - ${f.range[1]}]` : '',
    f.target,
    f.met ? 'met' : 'NOT MET',
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const quick = process.env.BENCH_QUICK === '1';
  const redisServer = await startPrivateRedis();
  const redis = new Redis(redisServer.url);
  try {
    const platform = await describePlatform(redis);
    process.stderr.write(`bench on ${platform.cores} cores, node ${platform.node}\n`);
    const ctx: Context = { redis, redisUrl: redisServer.url, quick, details: {} };
    const figures: Figure[] = [];
    for (const step of STEPS) {
      process.stderr.write(`${step.label}...\n`);
      figures.push(...(await step.measure(ctx)));
    }
    platform.loadAverage.end = loadNow();
    printFigures(figures);
    process.stdout.write(
      `load average ${platform.loadAverage.start} at the start, ${platform.loadAverage.end} at the end\n`,
    );
    if (quick) return;
    const results: BenchResults = { platform, figures, details: ctx.details };
    const file = path.join(repoRoot(), 'bench', 'results.json');
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    const doc = writePerformanceTable(results);
    process.stderr.write(`written: ${path.relative(process.cwd(), file)}, the table in ${doc}\n`);
  } finally {
    redis.disconnect();
    await redisServer.shutdown();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
