import { availableParallelism, loadavg } from 'node:os';
import type { Redis } from 'ioredis';

/** Small measuring tools shared by the figures: medians, wall time, Redis counters, peak RSS. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** [min, max] of the values. */
export const span = (values: readonly number[]): [number, number] => [
  Math.min(...values),
  Math.max(...values),
];

export const round = (n: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/** Wall time of one step, in ms, and its value. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
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

/** Peak resident set of a process (VmHWM), in MB; undefined once it has exited. */
export function peakRssMb(pid: number, read: (path: string) => string): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * What the figures were measured with: the budgets are set for 2 cores, and the wall-clock
 * figures move with the machine's other load (the 1-minute load average at the start and end).
 */
export interface Platform {
  cores: number;
  node: string;
  redis: string;
  loadAverage: { start: number; end: number };
}

export async function describePlatform(redis: Redis): Promise<Platform> {
  const info = await redis.info('server');
  return {
    cores: availableParallelism(),
    node: process.version,
    redis: /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown',
    loadAverage: { start: round(loadavg()[0]!, 1), end: Number.NaN },
  };
}

/** The 1-minute load average now. */
export const loadNow = (): number => round(loadavg()[0]!, 1);
