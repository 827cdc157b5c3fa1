import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Queue, Worker } from 'bullmq';
import { duplicateRedis, isReady, scanKeys, type RedisClient } from '../redis/connection.js';
import { closeWorker } from '../redis/close-worker.js';
import { checkRedisRole, type RedisRole } from '../redis/role.js';
import type { Logger } from '../log.js';
import { withTimeout } from '../with-timeout.js';

/**
 * `/healthz`: healthy only when this worker is provably doing work, not merely connected.
 *
 * A Redis PING proves little: a worker can be paused, or its blocking connection wedged, while
 * Redis answers. So every `intervalMs` a tiny canary job is added to a queue of this process's
 * own, and a worker of this process takes it and notes the time. Healthy means:
 * - Redis is connected and answers a PING;
 * - a canary went through within `staleAfterMs` (3 intervals by default), or the process
 *   started, or Redis came back, less than that ago;
 * - the watched workers (checks, mail) run and are not paused, and their queues are not
 *   paused in Redis.
 *
 * Why a queue per process (`canary-<instance>`): with one shared queue any replica could take
 * another's canary, and a stuck replica would look healthy. One fixed job id means at most one
 * canary waits, however long the worker is stuck. The queue's keys are removed on close; those
 * of a process that crashed are removed by the next worker that starts (removeAbandonedCanaries).
 */
export const CANARY_QUEUE_PREFIX = 'canary-';
const CANARY_JOB = 'canary';
/** The shortest lock of a canary job (and stalled-check period), whatever the interval. */
const CANARY_MIN_LOCK_MS = 1_000;

export interface HealthOptions {
  redis: RedisClient;
  /** BullMQ key prefix (config redis.prefix). */
  prefix: string;
  /** Workers that must be running and not paused (checks, mail). */
  workers: readonly Worker[];
  /** Queues that must not be paused in Redis. */
  queues: readonly Queue[];
  logger: Logger;
  /** How often a canary is sent. @defaultValue 30000 */
  intervalMs?: number;
  /** A canary older than this is a problem. @defaultValue 3 * intervalMs */
  staleAfterMs?: number;
  /**
   * One of the monitor's keys: the node it is written to is asked its ROLE (a replica, or a
   * Cluster node that no longer owns the slot, is a problem). Absent: not asked.
   */
  roleKey?: string;
  /** `redis.confirmReplicas`: fewer connected replicas is a problem. @defaultValue 0 */
  confirmReplicas?: number;
  /** Longest wait for Redis in one check. @defaultValue 2000 */
  redisTimeoutMs?: number;
  /**
   * More problems read from Redis when it answers (the job schedulers: missing ones, workers
   * whose configs differ), asked beside the role and bounded the same way.
   */
  moreProblems?: () => Promise<string[]>;
  now?: () => number;
}

export interface HealthReport {
  ok: boolean;
  /** One line per problem, saying what is wrong (empty when healthy). */
  problems: string[];
  checkedAt: string;
  canary: { lastProcessedAt: string | null; ageSeconds: number | null };
  /** The node the monitor writes to, as it says itself (when asked and answered). */
  redis?: { node: string; role: string; replicas: number };
}

export interface HealthCheck {
  check(): Promise<HealthReport>;
  /** The canary queue's worker (tests pause it to see the check turn unhealthy). */
  readonly canaryWorker: Worker;
  readonly canaryQueue: Queue;
  close(): Promise<void>;
}

export async function startHealthCheck(options: HealthOptions): Promise<HealthCheck> {
  const { redis, prefix, logger } = options;
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 30_000;
  const staleAfterMs = options.staleAfterMs ?? 3 * intervalMs;
  const redisTimeoutMs = options.redisTimeoutMs ?? 2_000;
  const startedAt = now();
  const instance = `${hostname()
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(0, 40)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const name = `${CANARY_QUEUE_PREFIX}${instance}`;

  // The last connection error, so that the report says why Redis is not there.
  let redisError: string | undefined;
  // When Redis was last (re)connected: no canary can go through while it is away, so after an
  // outage the canary is judged from Redis's return, as from the start.
  let redisBackAt = startedAt;
  const onError = (error: Error) => (redisError = error.message);
  const onReady = () => {
    redisError = undefined;
    redisBackAt = now();
  };
  redis.on('error', onError);
  redis.on('ready', onReady);

  let lastProcessedAt: number | undefined;
  const canaryQueue = new Queue(name, {
    connection: redis,
    prefix,
    streams: { events: { maxLen: 10 } },
  });
  // A canary a worker took and could not finish (Redis went away mid-job) stays active, and
  // adding it again adds nothing until BullMQ gives it back: after its lock ends, at the next
  // stalled check. An interval each, not BullMQ's 30 s each, so it goes through again well
  // within the staleness allowed (the job itself only notes the time).
  const lockMs = Math.max(CANARY_MIN_LOCK_MS, intervalMs);
  const canaryWorker = new Worker(
    name,
    async () => {
      lastProcessedAt = now();
    },
    { connection: redis, prefix, concurrency: 1, lockDuration: lockMs, stalledInterval: lockMs },
  );
  // Redis outages are reported by check(); the connection already logs them once.
  canaryQueue.on('error', (error) => logger.debug(`canary queue: ${error.message}`));
  canaryWorker.on('error', (error) => logger.debug(`canary worker: ${error.message}`));
  // BullMQ sets up each connection in the background (a version check on the canary worker's
  // own connection). One closed half-way rejects where BullMQ has just removed its handlers:
  // a worker told to stop right after its start exited 1 on that unhandled rejection. So the
  // health check is started only once they are ready, as the worker's queues are.
  await Promise.all([canaryQueue.waitUntilReady(), canaryWorker.waitUntilReady()]);

  // One add at a time: while Redis is down an add waits in the client's queue, and a new one
  // every interval would pile up.
  let adding = false;
  const sendCanary = () => {
    if (adding) return;
    adding = true;
    canaryQueue
      .add(CANARY_JOB, {}, { jobId: CANARY_JOB, removeOnComplete: true, removeOnFail: true })
      .catch((error: Error) => logger.debug(`canary not sent: ${error.message}`))
      .finally(() => (adding = false));
  };
  sendCanary();
  const timer = setInterval(sendCanary, intervalMs);
  timer.unref();
  // Housekeeping, not awaited by start-up, on a connection of its own that gives up at once when
  // Redis is away (the worker's connection waits for Redis forever, as BullMQ needs), closed
  // when done.
  const housekeeping = duplicateRedis(redis, { maxRetriesPerRequest: 0 });
  housekeeping.on('error', () => undefined);
  const cleanup = removeAbandonedCanaries(housekeeping, prefix, {
    quietForMs: Math.max(600_000, 10 * intervalMs),
    now,
    keep: name,
  })
    .then((removed) => {
      if (removed.length > 0)
        logger.info({ queues: removed }, 'removed the canary queues of workers that are gone');
    })
    .catch((error: Error) => logger.debug(`abandoned canary queues not removed: ${error.message}`))
    .finally(() => housekeeping.disconnect());

  async function check(): Promise<HealthReport> {
    const problems: string[] = [];
    const at = now();
    const redisOk = await checkRedis(problems);
    const age = at - (lastProcessedAt ?? startedAt);
    if (age > staleAfterMs && at - redisBackAt > staleAfterMs) {
      problems.push(
        lastProcessedAt === undefined
          ? `canary: none processed since the start ${seconds(age)} s ago (worker stuck or paused?)`
          : `canary: last processed ${seconds(age)} s ago (worker stuck or paused?)`,
      );
    }
    for (const worker of options.workers) {
      if (!worker.isRunning()) problems.push(`worker ${worker.name}: not running`);
      else if (worker.isPaused()) problems.push(`worker ${worker.name}: paused`);
    }
    // The node's role and the queues' pause flags, asked at once (each bounded): a slow Redis
    // costs one timeout, not two. Their problems keep this order.
    const [roleAnswer, pausedAnswer, moreAnswer] = await Promise.allSettled([
      redisOk && options.roleKey !== undefined
        ? withTimeout(
            checkRedisRole(redis, options.roleKey, options.confirmReplicas ?? 0),
            redisTimeoutMs,
            'redis',
          )
        : undefined,
      redisOk
        ? withTimeout(Promise.all(options.queues.map((q) => q.isPaused())), redisTimeoutMs, 'redis')
        : undefined,
      redisOk && options.moreProblems
        ? withTimeout(options.moreProblems(), redisTimeoutMs, 'redis')
        : undefined,
    ]);
    let role: RedisRole | undefined;
    if (roleAnswer.status === 'rejected') problems.push(redisProblem(roleAnswer.reason));
    else if (roleAnswer.value) {
      role = roleAnswer.value;
      problems.push(...role.problems);
    }
    if (pausedAnswer.status === 'rejected') problems.push(redisProblem(pausedAnswer.reason));
    else
      options.queues.forEach((q, i) => {
        if (pausedAnswer.value?.[i]) problems.push(`queue ${q.name}: paused`);
      });
    if (moreAnswer.status === 'rejected') problems.push(redisProblem(moreAnswer.reason));
    else problems.push(...(moreAnswer.value ?? []));
    return {
      ok: problems.length === 0,
      problems,
      checkedAt: new Date(at).toISOString(),
      canary: {
        lastProcessedAt:
          lastProcessedAt === undefined ? null : new Date(lastProcessedAt).toISOString(),
        ageSeconds: lastProcessedAt === undefined ? null : seconds(at - lastProcessedAt),
      },
      ...(role ? { redis: { node: role.node, role: role.role, replicas: role.replicas } } : {}),
    };
  }

  async function checkRedis(problems: string[]): Promise<boolean> {
    if (!isReady(redis)) {
      problems.push(`redis: ${redis.status}${redisError ? ` (${redisError})` : ''}`);
      return false;
    }
    try {
      await withTimeout(redis.ping(), redisTimeoutMs, 'redis');
      return true;
    } catch (error) {
      problems.push(redisProblem(error));
      return false;
    }
  }

  let closing: Promise<void> | undefined;
  return {
    check,
    canaryWorker,
    canaryQueue,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await cleanup;
        await closeWorker(canaryWorker);
        try {
          if (isReady(redis))
            await withTimeout(canaryQueue.obliterate({ force: true }), redisTimeoutMs, 'redis');
        } catch (error) {
          logger.debug(`canary queue not removed: ${(error as Error).message}`);
        }
        await canaryQueue.close();
        redis.off('error', onError);
        redis.off('ready', onReady);
      })();
      return closing;
    },
  };
}

/**
 * Removes the canary queues of processes that are gone: a live worker sends a canary every
 * interval, so a canary queue whose event stream has been quiet for `quietForMs` (10 intervals,
 * at least 10 minutes) belongs to a process that crashed. Returns the queue names removed.
 */
export async function removeAbandonedCanaries(
  redis: RedisClient,
  prefix: string,
  options: { quietForMs: number; now?: () => number; keep?: string },
): Promise<string[]> {
  const now = options.now ?? Date.now;
  const head = `${prefix}:${CANARY_QUEUE_PREFIX}`;
  const names = new Set<string>();
  await scanKeys(redis, `${globEscape(head)}*:meta`, async (keys) => {
    for (const key of keys) names.add(key.slice(prefix.length + 1, -':meta'.length));
  });
  names.delete(options.keep ?? '');

  const removed: string[] = [];
  for (const name of names) {
    // Stream ids start with the entry's time in epoch ms.
    const [last] = await redis.xrevrange(`${prefix}:${name}:events`, '+', '-', 'COUNT', 1);
    const lastAt = last ? Number(last[0].split('-')[0]) : 0;
    if (now() - lastAt < options.quietForMs) continue;
    const queue = new Queue(name, { connection: redis, prefix });
    try {
      await queue.obliterate({ force: true });
      removed.push(name);
    } finally {
      await queue.close();
    }
  }
  return removed;
}

/** A literal for a SCAN MATCH pattern (a prefix may hold glob characters). */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}

/** `redis: <what>`, once: withTimeout's own message already starts with "redis: ". */
function redisProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith('redis: ') ? message : `redis: ${message}`;
}
