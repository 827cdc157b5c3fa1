import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../src/demo/private-redis.js';
import { FIRST_DAY, NEXT_DAY, startCheckRig } from './single-network.js';

/**
 * Where one traffic-check's CPU goes: V8's sampling profile of repeated first-day and
 * steady-state checks of one network (the same set-up as P1 in bench/single-network.ts), summed
 * by function and by file (self time). Before that, the same runs unprofiled with the baseline
 * (fetch + JSON.parse) beside them, for their wall times.
 *
 *   npm run build && [PROFILE_ONLY=first|steady|none] [PROFILE_HEAP=1] \
 *     node --expose-gc dist/bench/profile-check.js \
 *     [pairs=50000] [runs=10] [first-run.cpuprofile]
 *
 * The .cpuprofile (optional; with PROFILE_HEAP=1, the first check's .heapprofile) opens in
 * Chrome's DevTools. Not part of `npm run bench`: a tool to
 * choose what to optimise, whose figures are proportions, not targets.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const [pairs = 50_000, runs = 10] = process.argv.slice(2, 4).map(Number);
const out = process.argv[4];
/** Which checks the profile covers: both (default), 'first' (first day), 'steady' or 'none'. */
const only = process.env.PROFILE_ONLY;
/** PROFILE_HEAP=1: where the checks allocate (V8's sampling heap profiler), not their CPU. */
const heap = process.env.PROFILE_HEAP === '1';

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
}

async function main(): Promise<void> {
  const server = await startPrivateRedis();
  const redis = new Redis(server.url);
  const rig = await startCheckRig(redis, server.url, pairs, 'profile');
  const { freshPrefix: fresh, setDay, check: checkOn, fetchAndParse } = rig;
  const baseline = (day: string) => fetchAndParse(day);
  const times = { baseline: 0, firstDay: 0, steady: 0 };
  const timed = async (what: keyof typeof times, work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    times[what] += performance.now() - start;
  };
  // Connected after the timed round: a connected inspector session slows the process down.
  const session = new Session();
  try {
    // Warm-up, not profiled.
    for (const day of [FIRST_DAY, NEXT_DAY]) await baseline(day);
    await fresh();
    for (const day of [FIRST_DAY, NEXT_DAY]) await checkOn(day);
    // Timed without the profiler (it slows what it samples), then profiled: the checks only.
    const round = async (profiled: boolean) => {
      for (let i = 0; i < runs; i += 1) {
        await fresh();
        for (const day of [FIRST_DAY, NEXT_DAY]) {
          await setDay(day);
          if (!profiled) await timed('baseline', () => baseline(day));
          const check = () => checkOn(day);
          const wanted = !only || only === (day === FIRST_DAY ? 'first' : 'steady');
          if (!profiled) await timed(day === FIRST_DAY ? 'firstDay' : 'steady', check);
          else if (!wanted) await check();
          else if (heap) {
            await session.post('HeapProfiler.startSampling', {
              samplingInterval: 4096,
              includeObjectsCollectedByMajorGC: true,
              includeObjectsCollectedByMinorGC: true,
            });
            await check();
            heapProfiles.push((await session.post('HeapProfiler.stopSampling')).profile);
          } else {
            await session.post('Profiler.start');
            await check();
            profiles.push((await session.post('Profiler.stop')).profile);
          }
        }
      }
    };
    const profiles: unknown[] = [];
    const heapProfiles: HeapProfile[] = [];
    await round(false);
    // Per run: the baseline was timed once per day, the checks once per run each.
    const per = (ms: number) => (ms / runs).toFixed(1);
    console.log(
      `wall per run: baseline ${per(times.baseline / 2)} ms, first day ${per(times.firstDay)} ms, steady ${per(times.steady)} ms (${pairs} pairs, ${runs} runs each)`,
    );
    if (only === 'none') return;
    session.connect();
    if (heap) {
      await session.post('HeapProfiler.enable');
      await round(true);
      if (out) writeFileSync(out, JSON.stringify(heapProfiles[0]));
      reportHeap(heapProfiles, runs);
      return;
    }
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await round(true);
    if (out) writeFileSync(out, JSON.stringify(profiles[0]));
    report(profiles as unknown as Array<{ nodes: ProfileNode[] }>);
  } finally {
    session.disconnect();
    await rig.close();
    redis.disconnect();
    await server.shutdown();
  }
}

/** Self time by function and by file, the largest first. */
function report(profiles: Array<{ nodes: ProfileNode[] }>): void {
  const nodes = profiles.flatMap((p) => p.nodes);
  const totalHits = nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url ? shortPath(url) : '(native)';
    const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + hits);
    byFile.set(file, (byFile.get(file) ?? 0) + hits);
  }
  const show = (title: string, map: Map<string, number>, limit: number) => {
    console.log(`\n${title} (self time, % of samples)`);
    for (const [name, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit))
      console.log(`${((100 * hits) / totalHits).toFixed(1).padStart(5)}%  ${name}`);
  };
  show('functions', byFunction, 40);
  show('files', byFile, 25);
}

/** Bytes allocated per check by function (sampled; garbage included), the largest first. */
function reportHeap(profiles: HeapProfile[], checks: number): void {
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'} ${url ? shortPath(url) : '(native)'}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  profiles.forEach((p) => walk(p.head));
  const mb = (bytes: number) => (bytes / checks / 2 ** 20).toFixed(2).padStart(7);
  console.log(`\nallocated per check: ${mb(total)} MiB (sampled), by function`);
  for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${mb(bytes)} MiB  ${name}`);
}

function shortPath(url: string): string {
  const file = url.replace(/^file:\/\//, '');
  const at = file.indexOf('/node_modules/');
  if (at >= 0) return file.slice(at + 1);
  const dist = file.indexOf('/dist/');
  return dist >= 0 ? file.slice(dist + 6) : path.basename(file);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
