import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { addDays, localDate } from '../src/dates.js';
import type { IspTrend } from '../src/monitor/types.js';
import { buildEntry, type FourDays } from '../src/sandbox/trends.js';
import { RedisStore } from '../src/store/redis-store.js';
import { median } from './measure.js';
import type { Figure } from './results-table.js';
import { spawnCli, writeConfigFile } from './worker-process.js';

/**
 * P8: `thm replay` of 90 days of a 10,000-pair network with every pair listed every day
 * (900,000 pair-days), end to end: from spawning bin/thm.js (with its shebang's node flags) to
 * its exit, the listings read from the private redis-server, the text report written to a pipe.
 * The days are committed through the store as a worker's runs commit them (RedisStore.commitRun
 * with the run's listing), each pair listed every day: yesterday below its days 7, 14 and 30
 * back by 1% to 60%, over 100 domains x 100 ISPs of 20 to 5,000 clicks a day.
 *
 * Beside it, what the listings cost in Redis: MEMORY USAGE of one day's listing key, per listed
 * pair, at 1,000 and 10,000 pairs, and what a year of such days would hold.
 */
export interface ReplayResult {
  pairs: number;
  days: number;
  runs: number;
  seconds: number;
  /** [min, max] over the runs. */
  range: [number, number];
  allSeconds: number[];
  /** Redis bytes per listed pair and day, by pairs listed a day. */
  bytesPerPairDay: Array<{ pairs: number; bytes: number; perNetworkYearMb: number }>;
}

const DAY_MS = 86_400_000;

export async function measureReplay(
  redisUrl: string,
  options: { pairs: number; days: number; runs: number },
): Promise<ReplayResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-bench-replay-'));
  const prefix = `bench-p8-${Date.now()}`;
  const redis = new Redis(redisUrl);
  const store = new RedisStore(redis, prefix);
  try {
    const today = localDate(Date.now(), 'UTC');
    await commitDays(store, 'replay', options.pairs, options.days, today);
    const bytesPerPairDay = [];
    for (const pairs of [1_000, 10_000]) {
      const id = `bytes-${pairs}`;
      await commitDays(store, id, pairs, 1, today);
      const bytes = (await redis.memory('USAGE', store.keys.listing(id, today))) ?? 0;
      const perPair = bytes / pairs;
      bytesPerPairDay.push({
        pairs,
        bytes: Math.round(perPair * 10) / 10,
        perNetworkYearMb: Math.round((perPair * pairs * 365) / 1e5) / 10,
      });
    }
    const file = writeConfigFile(dir, 'thm.json', {
      redis: { url: redisUrl, prefix },
      networks: [
        {
          id: 'replay',
          name: 'Replay Bench',
          baseUrl: 'https://api.example.com/v1',
          apiKeyEnv: 'BENCH_REPLAY_KEY',
          recipients: ['ops@replay.example'],
        },
      ],
    });
    const seconds: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const run = await timeCli(
        ['replay', '--network', 'replay', '--since', `${options.days}d`, '--config', file],
        dir,
      );
      if (run.code !== 0) throw new Error(`thm replay exited ${run.code}: ${run.stderr}`);
      if (!run.stdout.includes(`${options.days} listed days replayed`))
        throw new Error(`thm replay did not replay ${options.days} days:\n${run.stdout}`);
      seconds.push(run.seconds);
    }
    return {
      pairs: options.pairs,
      days: options.days,
      runs: options.runs,
      seconds: median(seconds),
      range: [Math.min(...seconds), Math.max(...seconds)],
      allSeconds: seconds,
      bytesPerPairDay,
    };
  } finally {
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `days` as-of dates ending `today`, committed as runs with their listings, oldest first. */
export async function commitDays(
  store: RedisStore,
  networkId: string,
  pairs: number,
  days: number,
  today: string,
): Promise<void> {
  let rev = 0;
  for (let d = days - 1; d >= 0; d--) {
    const asOf = addDays(today, -d);
    const now = Date.now();
    const result = await store.commitRun({
      networkId,
      expectedRev: rev,
      run: {
        networkId,
        kind: 'traffic-check',
        asOf,
        outcome: 'ok',
        startedAt: now,
        finishedAt: now,
        notificationIds: [],
        runs: 1,
      },
      notifications: [],
      listing: {
        record: { entries: listedDay(pairs, days - d), sent: null },
        expiresAt: now + 90 * DAY_MS,
      },
    });
    if (!result.committed) throw new Error(`${networkId} ${asOf}: not committed`);
    rev = result.rev;
  }
}

/** A day on which every pair is listed (see the module's comment); the same day, the same entries. */
function listedDay(pairs: number, day: number): IspTrend[] {
  const entries = new Array<IspTrend>(pairs);
  const ispsPerDomain = 100;
  for (let i = 0; i < pairs; i++) {
    const domainId = 1_000 + Math.floor(i / ispsPerDomain);
    const volume = Math.round(20 * 250 ** unit(i, 0));
    const around = (k: number) =>
      Math.max(1, Math.round(volume * (0.85 + 0.3 * unit(i, day * 4 + k))));
    const [d7, d14, d30] = [around(1), around(2), around(3)];
    const lowest = Math.min(d7, d14, d30);
    const drop = 0.01 + 0.59 * unit(i, day * 4) ** 3;
    const clicks: FourDays = [Math.max(0, lowest - 1 - Math.floor(lowest * drop)), d7, d14, d30];
    const conversions = clicks.map((c) => Math.round(c * 0.03)) as FourDays;
    entries[i] = buildEntry(7, {
      domainId,
      url: `https://trk${domainId}.bench.example`,
      isp: `ISP ${i % ispsPerDomain} ${['Cable', 'Fiber', 'Mobile', 'Broadband'][i % 4]}`,
      clicks,
      conversions,
      revenue: conversions.map((c, k) => c * 4.37 * (0.8 + 0.4 * unit(i, k))) as FourDays,
    }) as IspTrend;
  }
  return entries;
}

/** A number in [0, 1) from two integers, the same every time. */
function unit(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return ((h ^ (h >>> 15)) >>> 0) / 2 ** 32;
}

/** A command of bin/thm.js (spawnCli), timed to its exit, with what it wrote. */
function timeCli(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; seconds: number; stdout: string; stderr: string }> {
  const started = performance.now();
  const child = spawnCli(args, cwd, { BENCH_REPLAY_KEY: 'k' });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', (code) =>
      resolve({ code, seconds: (performance.now() - started) / 1000, stdout, stderr }),
    ),
  );
}

/** P8's lines of the bench's table (bench/run.ts). */
export function replayFigures(r: ReplayResult): Figure[] {
  const round2 = (n: number) => Math.round(n * 100) / 100;
  return [
    {
      id: 'P8',
      figure: `\`thm replay\` of ${r.days} days of a ${r.pairs.toLocaleString('en-US')}-pair network, every pair listed every day, end to end`,
      measured: round2(r.seconds),
      unit: 's',
      target: '<= 5',
      met: r.seconds <= 5,
      runs: r.runs,
      range: [round2(r.range[0]), round2(r.range[1])],
    },
    ...r.bytesPerPairDay.map((b): Figure => ({
      id: 'P8',
      figure: `Redis bytes per listed pair and day (MEMORY USAGE of a day's listing, ${b.pairs.toLocaleString('en-US')} pairs; ${b.perNetworkYearMb} MB a network-year)`,
      measured: b.bytes,
      unit: 'bytes',
      target: '(reported)',
      met: true,
    })),
  ];
}
