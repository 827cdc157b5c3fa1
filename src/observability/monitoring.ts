import type { Queue, Worker } from 'bullmq';
import type { RedisClient } from '../redis/connection.js';
import type { Config } from '../config/load.js';
import type { ReloadResult } from '../config/changes.js';
import type { Logger } from '../log.js';
import { storeKeys } from '../store/keys.js';
import { startHealthCheck, type HealthCheck } from './health.js';
import type { WorkerMetrics } from './metrics.js';
import { startMonitoringServer, type MonitoringListener, type MonitoringServer } from './server.js';

/**
 * The worker's monitoring (`monitoring.port` set): the health check with its canary, and the
 * HTTP server of /metrics, /healthz and /queues. Started and closed by the worker.
 */
export interface MonitoringOptions {
  /** Overrides monitoring.port; 0 picks a free port (tests). */
  port?: number;
  /** Canary interval of /healthz. @defaultValue 30000 */
  canaryIntervalMs?: number;
}

export interface Monitoring {
  server: MonitoringServer;
  health: HealthCheck;
  close(): Promise<void>;
}

/** The port to serve on, or undefined when monitoring is off. */
export function monitoringPort(
  config: Config,
  options: MonitoringOptions = {},
): number | undefined {
  return options.port ?? config.monitoring.port;
}

export async function startMonitoring(parts: {
  config: Config;
  /** The port, bound at the worker's start (listenMonitoring). */
  listener: MonitoringListener;
  redis: RedisClient;
  metrics: WorkerMetrics;
  workers: readonly Worker[];
  queues: readonly Queue[];
  logger: Logger;
  canaryIntervalMs?: number;
  /** More /healthz problems read from Redis (the schedulers: jobs/scheduler-keeper.ts). */
  moreProblems?: () => Promise<string[]>;
  /** POST /-/reload; absent: 404. */
  reload?: () => Promise<ReloadResult>;
  /** "config reload failed: ..." while the last reload failed. */
  configFailure?: () => string | undefined;
}): Promise<Monitoring> {
  const { config, logger } = parts;
  const health = await startHealthCheck({
    redis: parts.redis,
    prefix: config.redis.prefix,
    workers: parts.workers,
    queues: parts.queues,
    logger,
    roleKey: storeKeys(config.redis.prefix).networks,
    confirmReplicas: config.redis.confirm.replicas,
    ...(parts.canaryIntervalMs !== undefined ? { intervalMs: parts.canaryIntervalMs } : {}),
    ...(parts.moreProblems ? { moreProblems: parts.moreProblems } : {}),
  });
  const server = startMonitoringServer({
    listener: parts.listener,
    metrics: parts.metrics,
    health,
    queues: parts.queues,
    logger,
    ...(parts.reload ? { reload: parts.reload } : {}),
    ...(parts.configFailure ? { configFailure: parts.configFailure } : {}),
    ...(config.monitoring.dashboardAuth !== undefined
      ? { dashboardAuth: config.monitoring.dashboardAuth.reveal() }
      : {}),
  });
  return {
    server,
    health,
    async close() {
      await server.close();
      await health.close();
    },
  };
}
