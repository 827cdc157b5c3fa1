import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../src/demo/private-redis.js';
import { measureFleet, type FleetResult } from './fleet.js';
import { collectGarbage, describeMachine, median, round } from './measure.js';
import { measureSingleNetwork, type SingleNetworkResult } from './single-network.js';
import { measureStartup, type StartupResult } from './startup.js';
import { repoRoot } from './worker-process.js';

/**
 * `npm run bench`: the targets P1 to P5 of docs/performance.md, measured side by side in one run against real
 * parts (the sandbox over loopback, a private redis-server, the outbox dir), printed with their
 * targets and written to bench/results.json. BENCH_QUICK=1 runs fewer repetitions (a smoke
 * run, not a result).
 */

interface Figure {
  id: string;
  figure: string;
  measured: number;
  unit: string;
  target: string;
  met: boolean;
}

const quick = process.env.BENCH_QUICK === '1';
const SIZES: ReadonlyArray<{ pairs: number; repetitions: number }> = quick
  ? [
      { pairs: 1_000, repetitions: 2 },
      { pairs: 10_000, repetitions: 2 },
      { pairs: 50_000, repetitions: 1 },
    ]
  : [
      { pairs: 1_000, repetitions: 15 },
      { pairs: 10_000, repetitions: 11 },
      { pairs: 50_000, repetitions: 5 },
    ];

/**
 * P3 is run several times (a fresh worker each): its throughput and its peak RSS both move
 * with GC timing and other load, so each figure is the median over the runs, and the table
 * shows the range.
 */
const FLEET_RUNS = quick ? 1 : 3;

interface FleetFigures extends FleetResult {
  /** [min, max] over the runs. */
  range: { pairsPerSecond: [number, number]; workerPeakRssMb: [number, number] };
}

function medianFleet(runs: FleetResult[]): FleetFigures {
  const of = (pick: (r: FleetResult) => number) => median(runs.map(pick));
  const span = (pick: (r: FleetResult) => number): [number, number] => [
    Math.min(...runs.map(pick)),
    Math.max(...runs.map(pick)),
  ];
  return {
    ...runs[0]!,
    seconds: of((r) => r.seconds),
    pairsPerSecond: of((r) => r.pairsPerSecond),
    workerPeakRssMb: of((r) => r.workerPeakRssMb),
    workerCpuSeconds: of((r) => r.workerCpuSeconds),
    pairsPerWorkerCpuSecond: of((r) => r.pairsPerWorkerCpuSecond),
    failed: Math.max(...runs.map((r) => r.failed)),
    emailsWritten: Math.min(...runs.map((r) => r.emailsWritten)),
    range: {
      pairsPerSecond: span((r) => r.pairsPerSecond),
      workerPeakRssMb: span((r) => r.workerPeakRssMb),
    },
  };
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const redisServer = await startPrivateRedis();
  const redis = new Redis(redisServer.url);
  const log = (text: string) => process.stderr.write(`${text}\n`);
  try {
    const machine = await describeMachine(redis);
    log(`bench on ${machine.cpu}, ${machine.cores} cores, node ${machine.node}`);

    const single: SingleNetworkResult[] = [];
    for (const { pairs, repetitions } of SIZES) {
      log(`P1/P2/P4: one network of ${pairs} pairs, ${repetitions} repetitions...`);
      single.push(await measureSingleNetwork(redis, redisServer.url, pairs, repetitions));
      collectGarbage();
    }
    const fleetRuns: FleetResult[] = [];
    for (let i = 1; i <= FLEET_RUNS; i += 1) {
      log(`P3: 200 networks x 2,000 pairs through one \`thm worker\` (${i} of ${FLEET_RUNS})...`);
      fleetRuns.push(await measureFleet(redis, redisServer.url, 200, 2_000));
    }
    const fleet = medianFleet(fleetRuns);
    log('P5: `thm worker` start with 1,000 networks...');
    const startup = await measureStartup(redisServer.url, 1_000, quick ? 1 : 3);

    const figures = judge(single, fleet, startup);
    const results = {
      machine: { ...machine, loadAverage: { before: loadBefore, after: loadavg() } },
      quick,
      figures,
      details: { singleNetwork: single, fleet, fleetRuns, startup },
    };
    printTable(figures, machine);
    const file = path.join(repoRoot(), 'bench', 'results.json');
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    log(`written: ${path.relative(process.cwd(), file)}`);
  } finally {
    redis.disconnect();
    await redisServer.shutdown();
  }
}

function judge(
  single: SingleNetworkResult[],
  fleet: FleetFigures,
  startup: StartupResult,
): Figure[] {
  const runs = FLEET_RUNS > 1 ? `, median of ${FLEET_RUNS} runs` : '';
  const range = (values: [number, number], digits: number) =>
    FLEET_RUNS > 1 ? ` [${round(values[0], digits)}-${round(values[1], digits)}]` : '';
  const figures: Figure[] = [];
  for (const s of single) {
    const size = s.pairs.toLocaleString('en-US');
    const main = s.pairs === 10_000;
    figures.push({
      id: 'P1',
      figure: `traffic-check / (fetch + JSON.parse), ${size} pairs, first day (all new, e-mailed)`,
      measured: round(s.firstDayRatio),
      unit: 'x',
      target: main ? '<= 1.5' : '(<= 1.5 at 10,000)',
      met: s.firstDayRatio <= 1.5,
    });
    figures.push({
      id: 'P1',
      figure: `  the same in CPU time of the process, ${size} pairs, first day`,
      measured: round(s.cpu.firstDayRatio),
      unit: 'x',
      target: '(<= 1.5)',
      met: s.cpu.firstDayRatio <= 1.5,
    });
    figures.push({
      id: 'P1',
      figure: `traffic-check / (fetch + JSON.parse), ${size} pairs, steady state (all ongoing)`,
      measured: round(s.steadyRatio),
      unit: 'x',
      target: main ? '<= 1.5' : '(<= 1.5 at 10,000)',
      met: s.steadyRatio <= 1.5,
    });
  }
  const storeCounts = single.flatMap((s) => [s.storeCommands.firstDay, s.storeCommands.steady]);
  const firstDays = new Set(single.map((s) => s.storeCommands.firstDay));
  const steadies = new Set(single.map((s) => s.storeCommands.steady));
  figures.push({
    id: 'P2',
    figure: `store commands per traffic-check at ${single.map((s) => s.pairs).join(' / ')} pairs (first day; steady)`,
    measured: Math.max(...storeCounts),
    unit: `commands (${[...firstDays].join(',')}; ${[...steadies].join(',')})`,
    target: 'constant, <= 10',
    met: firstDays.size === 1 && steadies.size === 1 && Math.max(...storeCounts) <= 10,
  });
  const withMail = single.map((s) => s.storeCommands.firstDay + s.mailQueueCommands.firstDay);
  figures.push({
    id: 'P2',
    figure: 'all commands incl. the BullMQ mail-queue add of the alert (first day)',
    measured: Math.max(...withMail),
    unit: `commands (${[...new Set(withMail)].join(',')})`,
    target: '(constant)',
    met: new Set(withMail).size === 1,
  });
  figures.push({
    id: 'P3',
    figure: `fleet: ${fleet.networks} networks x ${fleet.pairsPerNetwork.toLocaleString('en-US')} pairs, one worker (concurrency ${fleet.concurrency})${runs}`,
    measured: Math.round(fleet.pairsPerSecond),
    unit: `pairs/s${range(fleet.range.pairsPerSecond, 0)}`,
    target: '>= 50,000',
    met: fleet.pairsPerSecond >= 50_000 && fleet.failed === 0,
  });
  figures.push({
    id: 'P3',
    figure: 'fleet pairs per CPU second of the worker (not inflated by other load)',
    measured: Math.round(fleet.pairsPerWorkerCpuSecond),
    unit: 'pairs/cpu-s',
    target: '(>= 50,000)',
    met: fleet.pairsPerWorkerCpuSecond >= 50_000,
  });
  figures.push({
    id: 'P3',
    figure: `worker peak RSS (VmHWM) during the fleet run${runs}`,
    measured: round(fleet.workerPeakRssMb, 1),
    unit: `MB${range(fleet.range.workerPeakRssMb, 0)}`,
    target: '<= 300',
    met: fleet.workerPeakRssMb <= 300,
  });
  const largest = single[single.length - 1]!;
  figures.push({
    id: 'P4',
    figure: `Redis memory per active declining pair (MEMORY USAGE of the network key, ${largest.pairs.toLocaleString('en-US')} pairs)`,
    measured: round(largest.bytesPerPair, 1),
    unit: 'bytes',
    target: '<= 300',
    met: largest.bytesPerPair <= 300,
  });
  figures.push({
    id: 'P4',
    figure: 'INFO used_memory growth per pair over the first-day commit (incl. outbox, mail job)',
    measured: round(largest.usedMemoryPerPair, 1),
    unit: 'bytes',
    target: '(<= 300)',
    met: largest.usedMemoryPerPair <= 300,
  });
  figures.push({
    id: 'P5',
    figure: `\`thm worker\` spawn to ${startup.schedulers} schedulers reconciled (${startup.networks} networks)`,
    measured: round(startup.seconds),
    unit: 's',
    target: '<= 5',
    met: startup.seconds <= 5 && startup.schedulers === startup.networks * 2,
  });
  return figures;
}

function printTable(figures: Figure[], machine: { cpu: string; cores: number; node: string }) {
  const rows = figures.map((f) => [
    f.id,
    f.figure,
    `${f.measured} ${f.unit}`,
    f.target,
    f.met ? 'met' : 'NOT MET',
  ]);
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const out = rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
  process.stdout.write(
    `\n${machine.cpu}, ${machine.cores} cores, node ${machine.node}\n${out.join('\n')}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
