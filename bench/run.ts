import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../src/demo/private-redis.js';
import { measureCliLatency, type CliLatencyResult } from './cli-latency.js';
import { measureReplay, replayFigures } from './replay.js';
import { measureFleet, type FleetResult } from './fleet.js';
import { collectGarbage, describeMachine, median, round } from './measure.js';
import {
  measureSingleNetwork,
  WARM_UP_CHECKS,
  WARM_UP_ROUNDS,
  type SingleNetworkResult,
} from './single-network.js';
import { measureStartup, type StartupResult } from './startup.js';
import { repoRoot } from './worker-process.js';

/**
 * `npm run bench`: the targets of docs/performance.md (P1 to P8), measured side by side in one
 * run against real parts (the sandbox API over loopback, in a process of its own for P1 and P6,
 * a private redis-server, real `thm worker` and `thm` processes, an SMTP sink), printed with
 * their targets and written to bench/results.json. Every figure says what it includes, how many
 * runs its median is of and their range, and the load average when it was measured: on a
 * shared machine wall-clock figures move with the others' load. BENCH_QUICK=1 runs fewer
 * repetitions (a smoke run, not a result).
 */

interface Figure {
  id: string;
  figure: string;
  measured: number;
  unit: string;
  target: string;
  met: boolean;
  /** [min, max] over the runs the median is of (absent: a single count). */
  range?: [number, number];
  runs?: number;
  /** What the figure's time or bytes include. */
  includes?: string;
  /** 1, 5 and 15 min load averages when its measurement started. */
  load?: number[];
}

const quick = process.env.BENCH_QUICK === '1';
/** P1 is a median of at least 9 alternated runs at every size (docs/performance.md). */
const SIZES: ReadonlyArray<{ pairs: number; repetitions: number; allocationRuns: number }> = quick
  ? [
      { pairs: 1_000, repetitions: 2, allocationRuns: 0 },
      { pairs: 10_000, repetitions: 2, allocationRuns: 0 },
      { pairs: 50_000, repetitions: 1, allocationRuns: 1 },
    ]
  : [
      // Its fetch takes ~10 ms, and single runs range from below 1 x to 5 x: more of them.
      { pairs: 1_000, repetitions: 45, allocationRuns: 0 },
      { pairs: 10_000, repetitions: 21, allocationRuns: 0 },
      { pairs: 50_000, repetitions: 9, allocationRuns: 3 },
    ];

/**
 * The fleet is run several times with 1, 2 and 4 worker processes, alternated (1, 2, 4, 1, 2,
 * 4, ...) so each count sees the same load; each figure is the median over its runs, with the
 * range.
 */
const FLEET_RUNS = quick ? 1 : 3;
const WORKER_COUNTS = [1, 2, 4] as const;
const CLI_RUNS = quick ? 2 : 7;

interface FleetFigures extends FleetResult {
  runs: number;
  /** [min, max] over the runs. */
  range: { pairsPerSecond: [number, number]; workerPeakRssMb: [number, number] };
  load: number[];
}

const span = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];

function medianFleet(runs: FleetResult[], load: number[]): FleetFigures {
  const of = (pick: (r: FleetResult) => number) => median(runs.map(pick));
  return {
    ...runs[0]!,
    runs: runs.length,
    seconds: of((r) => r.seconds),
    pairsPerSecond: of((r) => r.pairsPerSecond),
    workerPeakRssMb: of((r) => r.workerPeakRssMb),
    workersPeakRssMbTotal: of((r) => r.workersPeakRssMbTotal),
    workerCpuSeconds: of((r) => r.workerCpuSeconds),
    pairsPerWorkerCpuSecond: of((r) => r.pairsPerWorkerCpuSecond),
    failed: Math.max(...runs.map((r) => r.failed)),
    emailsWritten: Math.min(...runs.map((r) => r.emailsWritten)),
    emailsLost: Math.max(...runs.map((r) => r.emailsLost)),
    emailsDoubled: Math.max(...runs.map((r) => r.emailsDoubled)),
    range: {
      pairsPerSecond: span(runs.map((r) => r.pairsPerSecond)),
      workerPeakRssMb: span(runs.map((r) => r.workerPeakRssMb)),
    },
    load,
  };
}

const loadNow = (): number[] => loadavg().map((n) => round(n));

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const redisServer = await startPrivateRedis();
  const redis = new Redis(redisServer.url);
  const log = (text: string) => process.stderr.write(`${text} (load ${loadNow().join(' ')})\n`);
  try {
    const machine = await describeMachine(redis);
    log(`bench on ${machine.cpu}, ${machine.cores} cores, node ${machine.node}`);

    const single: Array<SingleNetworkResult & { load: number[] }> = [];
    for (const { pairs, repetitions, allocationRuns } of SIZES) {
      log(
        `P1/P2/P4${allocationRuns ? '/P6' : ''}: one network of ${pairs} pairs, ${repetitions} repetitions...`,
      );
      const load = loadNow();
      const result = await measureSingleNetwork(
        redis,
        redisServer.url,
        pairs,
        repetitions,
        allocationRuns,
      );
      single.push({ ...result, load });
      collectGarbage();
    }
    const fleetRuns = new Map<number, FleetResult[]>(WORKER_COUNTS.map((n) => [n, []]));
    const fleetLoad = loadNow();
    for (let i = 1; i <= FLEET_RUNS; i += 1) {
      for (const workers of WORKER_COUNTS) {
        log(
          `P3${workers > 1 ? 'b' : ''}: 200 networks x 2,000 pairs, ${workers} worker process(es) (${i} of ${FLEET_RUNS})...`,
        );
        fleetRuns
          .get(workers)!
          .push(await measureFleet(redis, redisServer.url, 200, 2_000, workers));
      }
    }
    const fleets = WORKER_COUNTS.map((n) => medianFleet(fleetRuns.get(n)!, fleetLoad));
    log('P5: `thm worker` start with 1,000 networks...');
    const startupLoad = loadNow();
    const startup = await measureStartup(redisServer.url, 1_000, quick ? 1 : 3);
    log('P7: `thm status` and `thm run --wait` with 100 networks...');
    const cliLoad = loadNow();
    const cli = await measureCliLatency(redisServer.url, 100, CLI_RUNS);

    log('P8: `thm replay` of 90 days of a 10,000-pair network...');
    const replayLoad = loadNow();
    const replay = await measureReplay(redisServer.url, {
      pairs: 10_000,
      days: 90,
      runs: quick ? 1 : 3,
    });

    const figures = [
      ...judge(single, fleets, { ...startup, load: startupLoad }, { ...cli, load: cliLoad }),
      ...replayFigures(replay, replayLoad),
    ];
    const loadAverage = { before: loadBefore, after: loadavg() };
    const results = {
      machine: { ...machine, loadAverage },
      quick,
      figures,
      details: {
        singleNetwork: single,
        fleet: fleets[0],
        fleetRuns: fleetRuns.get(1),
        fleetWorkers: fleets.slice(1),
        fleetWorkersRuns: Object.fromEntries(
          WORKER_COUNTS.slice(1).map((n) => [n, fleetRuns.get(n)]),
        ),
        startup,
        cli,
        replay,
      },
    };
    printTable(figures, { ...machine, loadAverage });
    const file = path.join(repoRoot(), 'bench', 'results.json');
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    process.stderr.write(`written: ${path.relative(process.cwd(), file)}\n`);
  } finally {
    redis.disconnect();
    await redisServer.shutdown();
  }
}

const P1_INCLUDES = `check: load state, GET access + isptrends (receive, read the entries, validate), classify, render, commit (Lua), mail-queue add; baseline: undici GET + body.text() + JSON.parse of the same body; API server in another process; timed after ${WARM_UP_ROUNDS} untimed rounds at the size and, in all, ${WARM_UP_CHECKS} untimed checks in the process. The check reads a large entries body straight from its bytes (src/api/entries-scan.ts), the baseline parses it as one string: the "own receive" line divides by the check's own way of receiving instead`;

function judge(
  single: Array<SingleNetworkResult & { load: number[] }>,
  fleets: FleetFigures[],
  startup: StartupResult & { load: number[] },
  cli: CliLatencyResult & { load: number[] },
): Figure[] {
  const figures: Figure[] = [];
  for (const s of single) {
    const size = s.pairs.toLocaleString('en-US');
    const small = s.pairs < 10_000;
    const id = small ? 'P1b' : 'P1';
    const limit = small ? 2.0 : 1.25;
    const runs = s.repetitions;
    figures.push({
      id,
      figure: `traffic-check / (fetch + JSON.parse), ${size} pairs, first day (all new, e-mailed), median of ${runs}`,
      measured: round(s.firstDayRatio),
      unit: 'x',
      target: `<= ${limit.toFixed(2)}`,
      met: s.firstDayRatio <= limit,
      range: [round(s.range.firstDayRatio[0]), round(s.range.firstDayRatio[1])],
      runs,
      includes: P1_INCLUDES,
      load: s.load,
    });
    figures.push({
      id,
      figure: `traffic-check / (fetch + JSON.parse), ${size} pairs, steady state (all ongoing), median of ${runs}`,
      measured: round(s.steadyRatio),
      unit: 'x',
      target: `<= ${limit.toFixed(2)}`,
      met: s.steadyRatio <= limit,
      range: [round(s.range.steadyRatio[0]), round(s.range.steadyRatio[1])],
      runs,
      includes: P1_INCLUDES,
      load: s.load,
    });
    figures.push({
      id,
      figure: `  traffic-check / the monitor's own receive (its client and its parse of the body), ${size} pairs, first day`,
      measured: round(s.overReceive.firstDay),
      unit: `x (steady ${round(s.overReceive.steady)} x; receive ${round(s.receiveMs)} ms, fetch + parse ${round(s.fetchParseMs)} ms)`,
      target: '(reported)',
      met: true,
      runs,
      load: s.load,
    });
    figures.push({
      id,
      figure: `  the first day in CPU time of this process (Redis's and the server's work excluded), ${size} pairs`,
      measured: round(s.cpu.firstDayRatio),
      unit: 'x',
      target: `(<= ${limit.toFixed(2)})`,
      met: s.cpu.firstDayRatio <= limit,
      runs,
      load: s.load,
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
    includes: 'INFO commandstats over one run: load, the commit script and the commands it runs',
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
  const FLEET_INCLUDES =
    'first enqueue to last check job completed: fetch, check, commit, mail-queue add (the SMTP sends trail it, on the same cores); sandbox and Redis on the same 2 cores';
  for (const fleet of fleets) {
    const id = fleet.workers === 1 ? 'P3' : 'P3b';
    const who = fleet.workers === 1 ? 'one worker' : `${fleet.workers} worker processes`;
    const shape = `${fleet.networks} networks x ${fleet.pairsPerNetwork.toLocaleString('en-US')} pairs`;
    const runs = `median of ${fleet.runs}`;
    figures.push({
      id,
      figure: `fleet: ${shape}, ${who} (concurrency ${fleet.concurrency} each), ${runs}`,
      measured: Math.round(fleet.pairsPerSecond),
      unit: 'pairs/s',
      target: fleet.workers === 1 ? '>= 120,000' : '(reported)',
      met:
        (fleet.workers > 1 || fleet.pairsPerSecond >= 120_000) &&
        fleet.failed === 0 &&
        fleet.emailsLost === 0 &&
        fleet.emailsDoubled === 0,
      range: [Math.round(fleet.range.pairsPerSecond[0]), Math.round(fleet.range.pairsPerSecond[1])],
      runs: fleet.runs,
      includes: FLEET_INCLUDES,
      load: fleet.load,
    });
    figures.push({
      id,
      figure: `  e-mails received by the SMTP sink: lost / doubled (${fleet.networks} expected, every run)`,
      measured: fleet.emailsLost + fleet.emailsDoubled,
      unit: `(${fleet.emailsLost} lost, ${fleet.emailsDoubled} doubled, ${fleet.failed} jobs failed)`,
      target: '0',
      met: fleet.emailsLost === 0 && fleet.emailsDoubled === 0 && fleet.failed === 0,
      runs: fleet.runs,
    });
    figures.push({
      id,
      figure: `  pairs per CPU second of the worker${fleet.workers > 1 ? 's' : ''} (not inflated by other load)`,
      measured: Math.round(fleet.pairsPerWorkerCpuSecond),
      unit: 'pairs/cpu-s',
      target: '(reported)',
      met: true,
      runs: fleet.runs,
    });
    figures.push({
      id,
      figure: `  worker peak RSS (VmHWM; the largest of the processes), ${runs}`,
      measured: round(fleet.workerPeakRssMb, 1),
      unit: `MB${fleet.workers > 1 ? ` (${Math.round(fleet.workersPeakRssMbTotal)} MB all)` : ''}`,
      target: fleet.workers === 1 ? '<= 300' : '(reported)',
      met: fleet.workers > 1 || fleet.workerPeakRssMb <= 300,
      range: [round(fleet.range.workerPeakRssMb[0], 0), round(fleet.range.workerPeakRssMb[1], 0)],
      runs: fleet.runs,
    });
  }
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
    figure: `\`thm worker\` spawn to ${startup.schedulers} schedulers reconciled (${startup.networks} networks), median of ${startup.runs}`,
    measured: round(startup.seconds),
    unit: 's',
    target: '<= 5',
    met: startup.seconds <= 5 && startup.schedulers === startup.networks * 2,
    range: [round(Math.min(...startup.allSeconds)), round(Math.max(...startup.allSeconds))],
    runs: startup.runs,
    includes: 'node start, config, Redis connect, every job scheduler upserted',
    load: startup.load,
  });
  const allocation = single.find((s) => s.allocation)?.allocation;
  if (allocation) {
    const a = allocation;
    const includes = `V8 heap bytes allocated, garbage included (v8.GCProfiler), Buffers not counted: check ${Math.round(a.firstDay.heapMb)} MiB first day / ${Math.round(a.steady.heapMb)} MiB steady, fetch + parse ${Math.round(a.fetchParse.heapMb)} MiB`;
    const days = [
      [
        'firstDay',
        `allocation of one ${largest.pairs.toLocaleString('en-US')}-pair check / that of fetch + parse, first day, median of ${a.runs}`,
      ],
      ['steady', `the same, steady state, median of ${a.runs}`],
    ] as const;
    for (const [day, figure] of days)
      figures.push({
        id: 'P6',
        figure,
        measured: round(a.ratio[day]),
        unit: 'x',
        target: '<= 1.30',
        met: a.ratio[day] <= 1.3,
        range: [round(a.range[day][0]), round(a.range[day][1])],
        runs: a.runs,
        includes,
        load: largest.load,
      });
  }
  /** One P7 line: a CLI command's time to first output, with its exit and range. */
  const cliFigure = (
    time: { firstOutputSeconds: number; exitSeconds: number; range: [number, number] },
    figure: string,
    target: string,
    includes: string,
  ): Figure => ({
    id: 'P7',
    figure: `${figure}, median of ${cli.runs}`,
    measured: round(time.firstOutputSeconds),
    unit: `s (exit ${round(time.exitSeconds)} s)`,
    target,
    met: time.firstOutputSeconds <= 0.5,
    range: [round(time.range[0]), round(time.range[1])],
    runs: cli.runs,
    includes,
    load: cli.load,
  });
  for (const c of cli.commands)
    figures.push(
      cliFigure(
        c,
        `\`${c.command.replace(/ --date \S+/, '')}\` to first output, ${cli.networks} networks`,
        '<= 0.50',
        c.command.includes('--wait')
          ? 'spawn of bin/thm.js to its first stdout byte: node start, modules, config, enqueue, the idle worker answering "already done", print'
          : "spawn of bin/thm.js to its first stdout byte: node start, modules, config, every network's state and queue counts read, print",
      ),
    );
  const h = cli.statusWithHistory;
  figures.push(
    cliFigure(
      h,
      `  the same \`thm status\` with ${h.runRecordsPerNetwork} run records a network (two months, both kinds)`,
      '(<= 0.50)',
      "as thm status above, with the run records a worker keeps (RUN_RETENTION_DAYS of both kinds), all read to find each network's latest",
    ),
  );
  return figures;
}

function printTable(
  figures: Figure[],
  machine: {
    cpu: string;
    cores: number;
    node: string;
    loadAverage: { before: number[]; after: number[] };
  },
) {
  const rows = figures.map((f) => [
    f.id,
    f.figure,
    `${f.measured} ${f.unit}`,
    f.range ? `[${f.range[0]}-${f.range[1]}]` : '',
    f.target,
    f.met ? 'met' : 'NOT MET',
    f.load ? `load ${f.load[0]}` : '',
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const out = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  const includes = new Map<string, string>();
  for (const f of figures) if (f.includes) includes.set(`${f.id}: ${f.includes}`, '');
  const load = (l: number[]) => l.map((n) => round(n)).join(' ');
  process.stdout.write(
    [
      '',
      `${machine.cpu}, ${machine.cores} cores, node ${machine.node}; load average before ${load(machine.loadAverage.before)}, after ${load(machine.loadAverage.after)}`,
      'median [range of the runs]; "load" is the 1-min load average when the figure\'s measurement started',
      ...out,
      '',
      'What each figure includes:',
      ...[...includes.keys()].map((line) => `  ${line}`),
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
