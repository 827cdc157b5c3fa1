import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { execPipeline } from '../redis/pipeline.js';
import type { RedisClient } from '../redis/connection.js';
import type { Config, NetworkConfig } from '../config/load.js';
import type { Logger } from '../log.js';
import type { CheckJobData } from './job-data.js';
import { parseSchedulerId, schedulerId, type CheckKind } from './names.js';

/**
 * One BullMQ job scheduler per network and job kind (cron + the network's time zone), made to
 * match the config when a worker starts and after a reload (`reconcileSchedulers`: missing or
 * changed ones upserted), and kept there by every sweep of every worker (`healSchedulers`:
 * missing ones added again, after a Redis that lost its data, a FLUSHALL, a failover). A
 * scheduler is removed only when no live worker's config holds it (store/worker-adverts.ts), so
 * a replica with an older config never takes another's networks away. Replicas take turns
 * under a short Redis lock; unchanged schedulers are left alone, so a restart does not disturb
 * the next run, and a sweep never changes a scheduler's cron: two replicas whose crons differ
 * (a rolling deploy) do not undo each other every minute; the one started last set it.
 */
export interface DesiredScheduler {
  id: string;
  kind: CheckKind;
  networkId: string;
  pattern: string;
  tz: string;
}

export function desiredSchedulers(networks: readonly NetworkConfig[]): DesiredScheduler[] {
  const out: DesiredScheduler[] = [];
  for (const network of networks) {
    out.push({
      id: schedulerId('traffic-check', network.id),
      kind: 'traffic-check',
      networkId: network.id,
      pattern: network.trafficCheck.cron,
      tz: network.timezone,
    });
    if (network.invoices.enabled) {
      out.push({
        id: schedulerId('invoice-snapshot', network.id),
        kind: 'invoice-snapshot',
        networkId: network.id,
        pattern: network.invoices.cron,
        tz: network.timezone,
      });
    }
  }
  return out;
}

export interface ReconcileResult {
  upserted: number;
  unchanged: number;
  removed: number;
}

export interface ReconcileOptions {
  queue: Queue<CheckJobData>;
  redis: RedisClient;
  lockKey: string;
  networks: readonly NetworkConfig[];
  jobOptions: { attempts: number; backoffMs: number };
  logger: Logger;
  /** Parallel upserts in flight. */
  concurrency?: number;
  /**
   * Called first, under the lock: publishes this worker's advert and answers the schedulers
   * that other live workers hold, which are never removed. Absent: none are.
   */
  liveWorkers?: () => Promise<ReadonlySet<string>>;
}

/** The scheduled jobs' retry settings, from the config's worker section. */
export function schedulerJobOptions(config: Config): ReconcileOptions['jobOptions'] {
  return { attempts: config.worker.attempts, backoffMs: config.worker.backoffMs };
}

export async function reconcileSchedulers(options: ReconcileOptions): Promise<ReconcileResult> {
  return withLock(options.redis, options.lockKey, 30_000, async () => {
    const heldElsewhere = (await options.liveWorkers?.()) ?? new Set<string>();
    const desired = desiredSchedulers(options.networks);
    const existing = new Map<string, { pattern?: string; tz?: string; attempts?: number }>();
    const total = await options.queue.getJobSchedulersCount();
    for (let start = 0; start < total; start += 1000) {
      for (const s of await options.queue.getJobSchedulers(start, start + 999, true)) {
        existing.set(s.key, { pattern: s.pattern, tz: s.tz, attempts: s.template?.opts?.attempts });
      }
    }
    const wanted = new Set(desired.map((d) => d.id));
    const toUpsert = desired.filter((d) => {
      const current = existing.get(d.id);
      return (
        !current ||
        current.pattern !== d.pattern ||
        current.tz !== d.tz ||
        current.attempts !== options.jobOptions.attempts
      );
    });
    const toRemove = [...existing.keys()].filter(
      (id) => parseSchedulerId(id) && !wanted.has(id) && !heldElsewhere.has(id),
    );

    await inBatches(toUpsert, options.concurrency ?? 64, (d) =>
      upsertScheduler(options.queue, d, options.jobOptions),
    );
    await inBatches(toRemove, options.concurrency ?? 64, (id) =>
      options.queue.removeJobScheduler(id),
    );
    const result = {
      upserted: toUpsert.length,
      unchanged: desired.length - toUpsert.length,
      removed: toRemove.length,
    };
    options.logger.info(result, 'job schedulers reconciled');
    return result;
  });
}

export interface HealResult {
  /** Held by this worker's config and missing: added again. */
  added: string[];
  /** Held by no live worker: removed. */
  removed: string[];
  /** Present, but their next job was lost: added back. */
  restored: string[];
}

/**
 * A worker's sweep: under the lock, this worker's advert published, its config's schedulers
 * that are missing added again (with a warning: something lost them), those no live worker
 * holds removed, and those whose next job was lost given it back. A scheduler that exists is
 * never changed here (see the module's comment).
 */
export async function healSchedulers(
  options: Omit<ReconcileOptions, 'liveWorkers'> & {
    liveWorkers: () => Promise<ReadonlySet<string>>;
  },
): Promise<HealResult> {
  const { queue, redis, logger } = options;
  return withLock(redis, options.lockKey, 30_000, async () => {
    const heldElsewhere = await options.liveWorkers();
    const desired = desiredSchedulers(options.networks);
    const wanted = new Set(desired.map((d) => d.id));
    const existing = new Set(
      (await redis.zrange(queue.toKey('repeat'), 0, -1)).filter((id) => parseSchedulerId(id)),
    );
    const missing = desired.filter((d) => !existing.has(d.id));
    await inBatches(missing, options.concurrency ?? 64, (d) =>
      upsertScheduler(queue, d, options.jobOptions),
    );
    for (const d of missing)
      logger.warn(
        { scheduler: d.id, network: d.networkId },
        `job scheduler ${d.id} was missing (Redis lost it: a restart without persistence, a FLUSHALL, a failover?); added again`,
      );
    const unheld = [...existing].filter((id) => !wanted.has(id) && !heldElsewhere.has(id));
    await inBatches(unheld, options.concurrency ?? 64, (id) => queue.removeJobScheduler(id));
    for (const id of unheld)
      logger.info(
        { scheduler: id },
        `job scheduler ${id} removed: no live worker's config holds it any more`,
      );
    const restored = await restoreLostSchedulerJobs(options);
    return { added: missing.map((d) => d.id), removed: unheld, restored };
  });
}

function upsertScheduler(
  queue: Queue<CheckJobData>,
  d: DesiredScheduler,
  jobOptions: ReconcileOptions['jobOptions'],
): Promise<unknown> {
  return queue.upsertJobScheduler(
    d.id,
    { pattern: d.pattern, tz: d.tz },
    {
      name: d.kind,
      data: { networkId: d.networkId, trigger: 'schedule' },
      opts: {
        attempts: jobOptions.attempts,
        backoff: { type: 'exponential', delay: jobOptions.backoffMs, jitter: 0.5 },
        removeOnComplete: { age: 7 * 86_400, count: 1000 },
        removeOnFail: { age: 30 * 86_400, count: 1000 },
      },
    },
  );
}

/**
 * A job scheduler lives on through its next job: BullMQ adds each run's successor when the run
 * starts. Should that job be lost (a failover to a replica that had not received it: BullMQ's
 * own writes are not confirmed by replicas, docs/design.md "Failovers"), the scheduler still
 * exists and names its next time, but nothing runs again until a worker restarts.
 *
 * So the worker looks every sweep: one ZRANGE of the schedulers, then one pipelined HMGET of
 * each one's next job. A scheduler of the config whose next job is missing (or has run without a
 * successor) is upserted again with the same settings, which adds the job back (at the same
 * time when it is still ahead). Returns the ids restored.
 */
export async function restoreLostSchedulerJobs(options: {
  queue: Queue<CheckJobData>;
  redis: RedisClient;
  networks: readonly NetworkConfig[];
  jobOptions: ReconcileOptions['jobOptions'];
  logger: Logger;
}): Promise<string[]> {
  const { queue, redis } = options;
  const desired = new Map(desiredSchedulers(options.networks).map((d) => [d.id, d]));
  const schedulersKey = queue.toKey('repeat');
  const flat = await redis.zrange(schedulersKey, 0, -1, 'WITHSCORES');
  const next: Array<{ scheduler: DesiredScheduler; next: string; jobKey: string }> = [];
  for (let i = 0; i < flat.length; i += 2) {
    const scheduler = desired.get(flat[i]!);
    const at = flat[i + 1]!;
    // BullMQ's id of a scheduler's next job (JobScheduler.getSchedulerNextJobId).
    if (scheduler)
      next.push({ scheduler, next: at, jobKey: queue.toKey(`repeat:${flat[i]}:${at}`) });
  }
  if (next.length === 0) return [];
  // Missing, or finished with no successor (BullMQ adds it in a step of its own after a run
  // starts; a failure right then leaves the scheduler naming a job that has run).
  const read = await pipelined(redis, next, (p, n) => p.hmget(n.jobKey, 'timestamp', 'finishedOn'));
  const suspects = next.filter((_, i) => {
    const [timestamp, finishedOn] = (read[i] ?? []) as Array<string | null>;
    return timestamp === null || finishedOn !== null;
  });
  if (suspects.length === 0) return [];
  // A run that finished between the two reads has its successor by now: asked again, such a
  // scheduler names another next time and is left alone.
  const now = await pipelined(redis, suspects, (p, n) => p.zscore(schedulersKey, n.scheduler.id));
  const lost = suspects.filter((n, i) => now[i] === n.next);
  for (const { scheduler } of lost) {
    await upsertScheduler(queue, scheduler, options.jobOptions);
    options.logger.warn(
      { scheduler: scheduler.id, network: scheduler.networkId },
      `job scheduler ${scheduler.id} had lost its next job (lost in a Redis failover or restart, or never added); added again`,
    );
  }
  return lost.map((l) => l.scheduler.id);
}

/** One command per item in one round trip; each reply, or throws the first error. */
async function pipelined<T>(
  redis: RedisClient,
  items: readonly T[],
  add: (pipeline: ReturnType<RedisClient['pipeline']>, item: T) => unknown,
): Promise<unknown[]> {
  const pipeline = redis.pipeline();
  for (const item of items) add(pipeline, item);
  return execPipeline(pipeline);
}

async function inBatches<T>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size)
    await Promise.all(items.slice(i, i + size).map(work));
}

/** A short mutual-exclusion lock: SET NX PX, released only by its owner. Waits its turn. */
export async function withLock<T>(
  redis: RedisClient,
  key: string,
  ttlMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const token = randomUUID();
  const deadline = Date.now() + ttlMs * 2;
  while ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') {
    if (Date.now() > deadline)
      throw new Error(`could not take the lock ${key} within ${ttlMs * 2} ms`);
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
  }
  try {
    return await work();
  } finally {
    await redis.eval(
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
      1,
      key,
      token,
    );
  }
}
