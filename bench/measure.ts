import { cpus, totalmem } from 'node:os';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import type { Redis } from 'ioredis';

/**
 * Small measuring tools shared by the figures: medians, a collected heap before each timed
 * step, Redis command and memory counters, the machine's description.
 */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A full GC (`node --expose-gc`, as `npm run bench` runs); a no-op without the flag. Used
 * between figures, never right before a timed step: V8 shrinks the young generation after a
 * forced full GC, and the allocation-heavy step that follows then runs 2-4x slower than it does
 * in a worker's steady state (measured: classifyPairs of 10,000 pairs 12 ms vs 56 ms).
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Wall time of one step. Timed steps alternate (baseline, work, baseline, work) so each carries
 * a similar share of the other's garbage, and the figures are medians.
 */
export async function timed<T>(
  work: () => Promise<T>,
): Promise<{ ms: number; cpuMs: number; value: T }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value };
}

/**
 * CPU seconds a process has used (utime + stime of /proc/<pid>/stat): a figure the other
 * processes on a shared machine do not inflate, unlike wall time.
 */
export function processCpuSeconds(pid: number, read: (path: string) => string): number {
  const stat = read(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based, man 5 proc).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Calls per command since the server started (INFO commandstats), without INFO itself: the
 * benchmark's own probes are not the measured code's commands. Commands run inside a Lua script
 * are counted too (as Redis counts them), so a script of 6 calls costs 7.
 */
export async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const text = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const [, name, count] = match;
    if (name === 'info') continue;
    calls.set(name!, Number(count));
  }
  return calls;
}

/** Commands between two commandCalls snapshots, by name (only those that ran). */
export function commandsBetween(
  before: Map<string, number>,
  after: Map<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, count] of after) {
    const delta = count - (before.get(name) ?? 0);
    if (delta > 0) out[name] = delta;
  }
  return out;
}

export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

export async function usedMemory(redis: Redis): Promise<number> {
  const text = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  platform: string;
  redis: string;
  date: string;
}

export async function describeMachine(redis: Redis): Promise<Machine> {
  const info = await redis.info('server');
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    redis: /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown',
    date: new Date().toISOString(),
  };
}

/** Peak resident set of a process (VmHWM), in MB; undefined once it has exited. */
export function peakRssMb(pid: number, read: (path: string) => string): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

export const round = (n: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/**
 * Bytes a step allocates on the V8 heap, garbage included (target P6): the growth of the heap's
 * used size over the step plus what every collection during it freed (v8.GCProfiler reports
 * each GC's heap before and after). Buffers (the received body) live outside the heap and are
 * not counted: their memory is freed after a collection, by a sweeper, so it cannot be
 * attributed to the step that allocated it. Other work of this process during the step counts
 * too, so the step runs alone.
 */
export async function allocated<T>(
  work: () => Promise<T>,
): Promise<{ heapBytes: number; gcs: number; value: T }> {
  const profiler = new GCProfiler();
  const before = getHeapStatistics();
  profiler.start();
  const value = await work();
  const after = getHeapStatistics();
  const stats = profiler.stop()?.statistics ?? [];
  let heapFreed = 0;
  for (const gc of stats) {
    heapFreed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  }
  return {
    heapBytes: after.used_heap_size - before.used_heap_size + heapFreed,
    gcs: stats.length,
    value,
  };
}
