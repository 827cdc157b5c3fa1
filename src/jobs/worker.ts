import { Queue, Worker } from 'bullmq';
import { hostname } from 'node:os';
import { appliedConfig, schedulesChanged, type ReloadResult } from '../config/changes.js';
import type { Config } from '../config/load.js';
import { configWarnings } from '../config/warnings.js';
import type { Logger } from '../log.js';
import { ChannelSender } from '../notify/channels/sender.js';
import { createChannelTransport, DEFAULT_CHANNEL_TIMEOUTS } from '../notify/channels/transport.js';
import { NotificationSender } from '../notify/sender.js';
import { createMailTransport, describeMailTransport } from '../notify/transport.js';
import { createWorkerMetrics, type WorkerMetrics } from '../observability/metrics.js';
import {
  monitoringPort,
  startMonitoring,
  type Monitoring,
  type MonitoringOptions,
} from '../observability/monitoring.js';
import { listenMonitoring, type MonitoringListener } from '../observability/server.js';
import { closeWorker } from '../redis/close-worker.js';
import { RedisStore } from '../store/redis-store.js';
import { observeCheckJobs } from './job-metrics.js';
import { channelLeaseMs, createDeliverProcessor, deliveryLeaseMs, sweepOutbox } from './deliver.js';
import { scheduleSweeps } from './sweep-timer.js';
import type { CheckJobData, DeliverJobData } from './job-data.js';
import { CHANNELS_QUEUE, CHECKS_QUEUE, MAIL_QUEUE } from './names.js';
import { createCheckProcessor } from './process-check.js';
import { handOverRepairedEpisodes } from './unreadable-state.js';
import {
  checkEvictionPolicy,
  closeRedis,
  connectRedis,
  unreachableFor,
  type RedisClient,
} from '../redis/connection.js';
import { createReloader, type ReloadTrigger } from './reload.js';
import { createRuntime, type Runtime } from './runtime.js';
import { createSchedulerKeeper } from './scheduler-keeper.js';
import { STOP_WITHOUT_REDIS_MS } from './signals.js';
import type { CheckOutcome } from './traffic-check.js';

/**
 * The daemon (`thm worker`): reconcile the schedulers, then process the checks, mail and
 * channels queues until told to stop. Workers keep no state of their own: any number of
 * replicas against one Redis behave like one.
 */
export interface RunningWorker {
  runtime: Runtime;
  checksWorker: Worker<CheckJobData, CheckOutcome>;
  mailWorker: Worker<DeliverJobData, string>;
  channelsWorker: Worker<DeliverJobData, string>;
  checksQueue: Queue<CheckJobData>;
  /** The worker's own Redis connection (shared by its queues and the store). */
  redis: RedisClient;
  /** Prometheus metrics of this worker (served on /metrics when monitoring is on). */
  metrics: WorkerMetrics;
  /** The monitoring server and health check, when `monitoring.port` (or the option) is set. */
  monitoring?: Monitoring;
  /**
   * How this worker names itself to the others (host-pid) in its advert, when it keeps the
   * schedulers (jobs/scheduler-keeper.ts).
   */
  schedulerInstance?: string;
  /** Reads the config again and applies it (SIGHUP, POST /-/reload); with `loadConfig` only. */
  reload?: (trigger: ReloadTrigger) => Promise<ReloadResult>;
  /** Graceful: stop taking jobs, let active ones finish, close every connection. */
  close(): Promise<void>;
}

export interface StartWorkerOptions {
  /** Skip scheduler reconciliation (tests that drive jobs by hand). */
  schedulers?: boolean;
  /** How often the outbox is swept for pending notifications. */
  sweepIntervalMs?: number;
  now?: () => number;
  /** Monitoring overrides (tests: port 0, a short canary interval). */
  monitoring?: MonitoringOptions;
  /** How to read the config again on a reload (`thm worker`: the same file and environment). */
  loadConfig?: () => Config;
  /**
   * Told when the worker's Redis connection has ended for good without `close()`: ioredis has
   * stopped reconnecting, so this worker cannot process again (see redis/connection.ts for the one
   * case known, fixed there). `thm worker` exits 1 then, for its supervisor to start it again.
   */
  onConnectionEnded?: () => void;
}

export async function startWorker(
  config: Config,
  logger: Logger,
  options: StartWorkerOptions = {},
): Promise<RunningWorker> {
  // The monitoring port first: a second worker on this host fails on it with one line before
  // it has touched Redis or the schedulers.
  const port = monitoringPort(config, options.monitoring);
  const listener =
    port === undefined
      ? undefined
      : await listenMonitoring({ host: config.monitoring.host, port, logger });
  try {
    return await startProcessing(config, logger, options, listener);
  } catch (error) {
    await listener?.close();
    throw error;
  }
}

async function startProcessing(
  config: Config,
  logger: Logger,
  options: StartWorkerOptions,
  listener: MonitoringListener | undefined,
): Promise<RunningWorker> {
  const prefix = config.redis.prefix;
  const redis = connectRedis(config.redis, logger);
  let closing: Promise<void> | undefined;
  redis.once('end', () => {
    if (closing !== undefined) return;
    logger.error(
      'the Redis connection has ended for good (ioredis stopped reconnecting): this worker cannot process again',
    );
    options.onConnectionEnded?.();
  });
  await redis.ping();
  await checkEvictionPolicy(redis, logger);
  logConfigWarnings(config, logger);

  const checksQueue = new Queue<CheckJobData>(CHECKS_QUEUE, { connection: redis, prefix });
  const mailQueue = new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix });
  const channelsQueue = new Queue<DeliverJobData>(CHANNELS_QUEUE, { connection: redis, prefix });
  const queues = [checksQueue, mailQueue, channelsQueue];
  const store = new RedisStore(redis, prefix, {
    ...config.redis.confirm,
    onUnconfirmed: (operation, why) =>
      logger.warn({ operation }, `redis ${operation}: not confirmed by a replica: ${why}`),
  });
  const sweepIntervalMs = options.sweepIntervalMs ?? config.worker.sweepIntervalMs;
  // Keeps the schedulers with the other live workers (jobs/scheduler-keeper.ts); absent when
  // this worker does not schedule (tests and the demo drive jobs by hand).
  const keeper =
    options.schedulers === false
      ? undefined
      : createSchedulerKeeper({
          queue: checksQueue,
          redis,
          store,
          prefix,
          logger,
          sweepIntervalMs,
          now: options.now ?? Date.now,
          onScheduled: (networkIds) => store.markScheduled(networkIds, (options.now ?? Date.now)()),
        });
  const metrics = createWorkerMetrics({
    networks: config.networks,
    store,
    queues,
    ...(keeper ? { scheduling: () => keeper.coverage() } : {}),
  });
  const runtime = createRuntime({
    config,
    store,
    mailQueue,
    channelsQueue,
    logger,
    now: options.now,
    onApiRequest: metrics.observeApiRequest,
    onFailureDecided: (networkId, decided) => {
      for (const { kind, channel } of decided)
        metrics.recordNotification(networkId, kind, 'decided', channel);
    },
  });

  await keeper?.reconcile(config);

  const transport = createMailTransport(config.mail, logger);
  const sender = new NotificationSender({
    store,
    transport,
    from: config.mail.from,
    logger,
    now: options.now,
    leaseMs: deliveryLeaseMs(config.mail.timeoutMs),
    onOutcome: (n, outcome) => metrics.recordNotification(n.networkId, n.kind, outcome),
  });
  let channelLease: { config: Config; ms: number } | undefined;
  const channelTransport = createChannelTransport({ outboxDir: config.mail.outboxDir, logger });
  const channelSender = new ChannelSender({
    store,
    transport: channelTransport,
    // From the config in force: a reload's channels (URLs, keys, deadlines) apply at once.
    channel: (networkId, name) =>
      runtime.findNetwork(networkId)?.channels.find((c) => c.name === name),
    // Asked on every attempt: worked out once per config (a reload replaces the object).
    leaseMs: () => {
      if (channelLease?.config !== runtime.config)
        channelLease = {
          config: runtime.config,
          ms: channelLeaseMs(longestChannelTimeoutMs(runtime.config)),
        };
      return channelLease.ms;
    },
    logger,
    now: options.now,
    onOutcome: (d, outcome) =>
      metrics.recordNotification(d.networkId, d.kind, outcome, d.channel.name),
  });
  const workerOptions = {
    connection: redis,
    prefix,
    stalledInterval: config.worker.stalledIntervalMs,
    lockDuration: config.worker.lockDurationMs,
    maxStalledCount: 3,
  };
  const checksWorker = new Worker<CheckJobData, CheckOutcome>(
    CHECKS_QUEUE,
    observeCheckJobs(createCheckProcessor(runtime), metrics),
    {
      ...workerOptions,
      concurrency: config.worker.concurrency,
    },
  );
  const mailWorker = new Worker<DeliverJobData, string>(
    MAIL_QUEUE,
    createDeliverProcessor(sender, logger),
    { ...workerOptions, concurrency: 4 },
  );
  // More slots than the channel sender lets one endpoint take (2): an endpoint that hangs
  // leaves the others most of them.
  const channelsWorker = new Worker<DeliverJobData, string>(
    CHANNELS_QUEUE,
    createDeliverProcessor(channelSender, logger, 'the endpoint'),
    { ...workerOptions, concurrency: 8 },
  );
  // Without listeners BullMQ prints raw stack traces of connection errors during a Redis
  // outage; the connection's own handler already logs the outage once, as JSON.
  const onError = (queue: string) => (error: Error & { code?: string }) => {
    const connection = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|Connection is closed/.test(
      `${error.code ?? ''} ${error.message}`,
    );
    logger[connection ? 'debug' : 'warn']({ queue }, `queue error: ${error.message}`);
  };
  checksWorker.on('error', onError(CHECKS_QUEUE));
  mailWorker.on('error', onError(MAIL_QUEUE));
  channelsWorker.on('error', onError(CHANNELS_QUEUE));
  for (const queue of queues) queue.on('error', onError(queue.name));
  // BullMQ finishes setting up each connection (a version check) in the background: a worker
  // that says it started is ready, and a connection that ends after that finds none of it in
  // flight (its rejection would reach no handler).
  await Promise.all(
    [...queues, checksWorker, mailWorker, channelsWorker].map((q) => q.waitUntilReady()),
  );
  // A deliver job that threw outside the send (Redis unreachable, a bug): its entry stays
  // pending and the next sweep hands it out again; said once here, not lost in silence.
  for (const [queue, worker] of [
    [MAIL_QUEUE, mailWorker],
    [CHANNELS_QUEUE, channelsWorker],
  ] as const)
    worker.on('failed', (job, error) =>
      logger.warn(
        { queue, jobId: job?.id, notification: job?.data.notificationId },
        `deliver job failed, left to the next sweep: ${error.message}`,
      ),
    );

  // Every minute (worker.sweepIntervalMs), one at a time (jobs/sweep-timer.ts): the outbox's
  // due entries, the unreadable-state episodes of networks whose state reads again
  // (jobs/unreadable-state.ts), and the schedulers: this worker's advert renewed, its config's
  // missing schedulers added again and lost next jobs given back, under the lock a
  // reconciliation takes, with the config in force then (never one a reload has just removed).
  const sweep = () => {
    const now = (options.now ?? Date.now)();
    return Promise.all([
      sweepOutbox(store, runtime, logger, now).catch((error: Error) =>
        logger.warn(`outbox sweep failed: ${error.message}`),
      ),
      handOverRepairedEpisodes(runtime, now).catch((error: Error) =>
        logger.warn(`unreadable-state sweep failed: ${error.message}`),
      ),
      keeper
        ?.heal(runtime.config)
        .catch((error: Error) => logger.warn(`scheduler check failed: ${error.message}`)),
    ]);
  };
  await sweep();
  const sweeper = scheduleSweeps(sweep, sweepIntervalMs);
  const mailVia = describeMailTransport(config.mail);
  logger.info(
    {
      networks: config.networks.length,
      concurrency: config.worker.concurrency,
      prefix,
      mail: mailVia,
    },
    `worker started; e-mails go to ${mailVia}`,
  );

  const loadConfig = options.loadConfig;
  const reloader = loadConfig
    ? createReloader({
        load: loadConfig,
        current: () => runtime.config,
        apply: async (next, changes) => {
          const applied = appliedConfig(runtime.config, next);
          const before = runtime.config;
          logConfigWarnings(applied, logger);
          runtime.replaceConfig(applied);
          metrics.setNetworks(applied.networks);
          checksWorker.concurrency = applied.worker.concurrency;
          const jobOptionsChanged =
            before.worker.attempts !== applied.worker.attempts ||
            before.worker.backoffMs !== applied.worker.backoffMs;
          if (keeper && schedulesChanged(changes, jobOptionsChanged))
            await keeper.reconcile(applied);
        },
        store,
        instance: keeper?.instance ?? `${hostname()}-${process.pid}`,
        logger,
        now: options.now,
      })
    : undefined;

  let monitoring: Monitoring | undefined;
  const running: RunningWorker = {
    runtime,
    checksWorker,
    mailWorker,
    channelsWorker,
    checksQueue,
    redis,
    metrics,
    ...(keeper ? { schedulerInstance: keeper.instance } : {}),
    ...(reloader ? { reload: (trigger: ReloadTrigger) => reloader.reload(trigger) } : {}),
    close() {
      closing ??= (async () => {
        sweeper.stop();
        const graceful = (async () => {
          // Withdrawn at once, beside the rest: the schedulers only this worker holds may go as
          // soon as no live worker holds them.
          const withdrawn = keeper
            ?.withdraw()
            .catch((error: Error) => logger.debug(`advert not withdrawn: ${error.message}`));
          await monitoring?.close();
          await reloader?.close();
          await Promise.all([checksWorker, mailWorker, channelsWorker].map((w) => closeWorker(w)));
          await withdrawn;
          await Promise.all(queues.map((queue) => queue.close()));
        })();
        // Active jobs finish only with Redis: without it, stop waiting after a bound.
        const outage = unreachableFor(redis, STOP_WITHOUT_REDIS_MS);
        const finished = await Promise.race([
          graceful.then(() => true),
          outage.gone.then(() => false),
        ]);
        outage.cancel();
        if (!finished) {
          const why =
            redis.status === 'end'
              ? 'the Redis connection has ended'
              : `Redis unreachable for ${STOP_WITHOUT_REDIS_MS / 1000} s`;
          logger.warn(
            `stopping: ${why}; active jobs are left to their locks, and another worker takes them over once a lock expires (worker.lockDurationMs)`,
          );
          // Rejects what waits for Redis, so the workers' loops end; not awaited further.
          redis.disconnect();
          graceful.catch(() => undefined);
        }
        await runtime.close();
        await Promise.all([transport.close(), channelTransport.close()]);
        await closeRedis(redis);
        logger.info('worker stopped');
      })();
      return closing;
    },
  };
  if (listener !== undefined) {
    try {
      monitoring = await startMonitoring({
        config,
        listener,
        redis,
        metrics,
        logger,
        workers: [checksWorker, mailWorker, channelsWorker],
        queues,
        canaryIntervalMs: options.monitoring?.canaryIntervalMs,
        ...(keeper ? { moreProblems: () => keeper.problems() } : {}),
        ...(reloader
          ? {
              reload: () => reloader.reload('http'),
              configFailure: () => reloader.failure,
            }
          : {}),
      });
    } catch (error) {
      await running.close();
      throw error;
    }
    running.monitoring = monitoring;
  }
  return running;
}

/** The longest post deadline of any configured channel (the default for one without). */
function longestChannelTimeoutMs(config: Config): number {
  return Math.max(
    0,
    ...config.networks.flatMap((n) =>
      n.channels.map((c) => c.timeoutMs ?? DEFAULT_CHANNEL_TIMEOUTS.totalMs),
    ),
  );
}

/** The warnings `thm config check` gives, logged once per start (and per reload). */
export function logConfigWarnings(config: Config, logger: Logger): void {
  for (const w of configWarnings(config.networks)) {
    logger.warn({ network: w.network, field: w.field }, `${w.field}: ${w.message}`);
  }
}
