import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiRequestEvent } from '../api/client.js';
import type { NetworkConfig } from '../config/load.js';
import { longestCronGapMs } from '../cron.js';
import type { ScheduleCoverage } from '../jobs/schedule-coverage.js';
import { desiredSchedulers } from '../jobs/schedulers.js';
import { countBySeverity } from '../monitor/thresholds.js';
import type { Severity } from '../monitor/types.js';
import { EMAIL_CHANNEL } from '../notification-names.js';
import type { RedisStore } from '../store/redis-store.js';
import { withTimeout } from '../with-timeout.js';

/**
 * The worker's Prometheus metrics (`/metrics`), one private Registry per worker so that two
 * workers in one process (tests, the demo) never share or clash.
 *
 * Two kinds of figures:
 * - events of THIS process, counted as they happen: job runs, API exchanges, retries,
 *   notifications decided/sent. With replicas, Prometheus sums them across instances.
 * - state read from Redis when scraped: queue counts, outbox backlog, active pairs, the last
 *   successful traffic-check. The store is the source of truth, so every replica reports the
 *   same value, also right after a restart (a gauge set only after a daily run would be empty
 *   for up to a day). A short cache keeps a scrape storm from hammering Redis, and a timeout
 *   keeps a Redis outage from hanging the scrape: then `thm_redis_up` is 0 and the Redis-read
 *   series are absent rather than stale.
 *
 * Labels stay bounded: network ids and channel names (from the config), fixed endpoint names,
 * job kinds and outcomes, HTTP status codes. Never ISP names, domain URLs, notification ids or
 * channel URLs.
 */

export const METRIC_PREFIX = 'thm_';

/** The API endpoints by fixed name; anything else is `other`. */
const ENDPOINTS: Record<string, string> = {
  '/networks/traffic/access': 'access',
  '/networks/traffic/isptrends': 'isptrends',
  '/networks/billings/affiliates/summary': 'summary',
};

export function endpointLabel(path: string): string {
  return ENDPOINTS[path.split('?')[0]!.replace(/\/+$/, '')] ?? 'other';
}

/**
 * The `status` label of an API exchange: the HTTP code when an answer came, `invalid` when its
 * body was not what the API documents, `timeout` or `error` when no answer came.
 */
export function apiStatusLabel(
  event: Pick<ApiRequestEvent, 'status' | 'errorCode' | 'networkCode'>,
): string {
  if (event.errorCode === 'THM_API_INVALID_RESPONSE') return 'invalid';
  if (event.status !== undefined) return String(event.status);
  if (event.networkCode && /TIMEOUT|ETIMEDOUT/.test(event.networkCode)) return 'timeout';
  return 'error';
}

export interface MetricsOptions {
  /** The configured networks: the only values the `network` label takes. */
  networks: readonly NetworkConfig[];
  store: RedisStore;
  /** Queues whose job counts are reported (checks, mail). */
  queues: readonly Queue[];
  /** How long Redis-read figures are reused between scrapes. @defaultValue 5000 */
  cacheMs?: number;
  /** Longest wait for Redis during a scrape. @defaultValue 2000 */
  redisTimeoutMs?: number;
  /** Process metrics (CPU, memory, event loop lag, GC) with the thm_ prefix. @defaultValue true */
  processMetrics?: boolean;
  /**
   * The job schedulers as the live workers' adverts see them (jobs/scheduler-keeper.ts), for
   * `thm_scheduler_present`, `thm_workers_live` and `thm_worker_config_variants`; absent (a
   * worker that does not schedule): those are not reported.
   */
  scheduling?: () => Promise<ScheduleCoverage>;
  now?: () => number;
}

export type JobOutcomeLabel =
  'ok' | 'premium-inactive' | 'failed' | 'already-done' | 'retry' | 'delayed';
export type NotificationState = 'decided' | 'sent' | 'retry' | 'failed';

export interface WorkerMetrics {
  readonly registry: Registry;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
  /** Bounded `network` label: a configured id, else `unknown`. */
  networkLabel(networkId: unknown): string;
  /** For ApiClientOptions.onRequest. */
  observeApiRequest(event: ApiRequestEvent): void;
  recordJob(kind: string, networkId: unknown, outcome: JobOutcomeLabel, seconds: number): void;
  /**
   * One notification event on one channel: `email` (the default), or a configured channel's
   * name (else `unknown`).
   */
  recordNotification(
    networkId: unknown,
    kind: string,
    state: NotificationState,
    channel?: string,
  ): void;
  /** A reloaded config's networks: the label values and the Redis-read figures follow them. */
  setNetworks(networks: readonly NetworkConfig[]): void;
}

interface RedisFigures {
  queues: Array<{ queue: string; counts: Record<string, number> }>;
  /** By channel (`email`, or a channel's name). */
  outbox: Record<string, { pending: number; failed: number }>;
  active: Array<{ network: string; severity: Severity; count: number }>;
  lastSuccess: Array<{ network: string; at: number }>;
  /** When each configured network was first scheduled, when Redis has it. */
  scheduledSince: Map<string, number>;
  scheduling?: ScheduleCoverage;
}

const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'paused',
  'completed',
  'failed',
] as const;

export function createWorkerMetrics(options: MetricsOptions): WorkerMetrics {
  const registry = new Registry();
  let networks = options.networks;
  let networkIds = new Set(networks.map((n) => n.id));
  let channelNames = channelNamesOf(networks);
  const now = options.now ?? Date.now;
  const startedAt = now();
  const cacheMs = options.cacheMs ?? 5_000;
  const redisTimeoutMs = options.redisTimeoutMs ?? 2_000;
  if (options.processMetrics !== false) {
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  }
  const registers = [registry];

  const jobRuns = new Counter({
    name: 'thm_job_runs_total',
    help: 'Check jobs processed by this worker, by kind, network and outcome (ok, premium-inactive, already-done: done; retry, delayed: tried again later; failed: for good).',
    labelNames: ['kind', 'network', 'outcome'] as const,
    registers,
  });
  const jobDuration = new Histogram({
    name: 'thm_job_duration_seconds',
    help: 'Time a check job took in this worker, by kind (each attempt).',
    labelNames: ['kind'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers,
  });
  const apiRequests = new Counter({
    name: 'thm_api_requests_total',
    help: 'Partner API exchanges (each attempt), by network, endpoint and status (HTTP code, invalid, timeout or error).',
    labelNames: ['network', 'endpoint', 'status'] as const,
    registers,
  });
  const apiDuration = new Histogram({
    name: 'thm_api_request_duration_seconds',
    help: 'Duration of partner API exchanges (headers and whole body), by network and endpoint.',
    labelNames: ['network', 'endpoint'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const apiRetries = new Counter({
    name: 'thm_api_retries_total',
    help: 'Partner API exchanges that failed transiently and were tried again in-process.',
    labelNames: ['network', 'endpoint'] as const,
    registers,
  });
  const notifications = new Counter({
    name: 'thm_notifications_total',
    help: 'Notifications by network, kind, channel (email, or a channel by its name) and state: decided by a run, sent, deferred by the mail server or endpoint (retry), refused for good (failed).',
    labelNames: ['network', 'kind', 'channel', 'state'] as const,
    registers,
  });

  // ---- read from Redis on scrape, shared by the gauges below through one cached snapshot
  let cached: { at: number; figures: Promise<RedisFigures | undefined> } | undefined;
  const figures = (): Promise<RedisFigures | undefined> => {
    if (!cached || now() - cached.at >= cacheMs) {
      cached = {
        at: now(),
        figures: withTimeout(
          readRedisFigures({ ...options, networks }, channelNames, now()),
          redisTimeoutMs,
          'redis',
        ).catch(() => undefined),
      };
    }
    return cached.figures;
  };

  new Gauge({
    name: 'thm_redis_up',
    help: '1 when the Redis-read figures of this scrape could be read, else 0.',
    registers,
    async collect() {
      this.set((await figures()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'thm_queue_jobs',
    help: 'BullMQ jobs by queue and state (read from Redis).',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      const read = await figures();
      this.reset();
      for (const { queue, counts } of read?.queues ?? []) {
        for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
      }
    },
  });
  /** The outbox's notifications in one state, by channel. */
  const outboxGauge = (name: string, help: string, state: 'pending' | 'failed') =>
    new Gauge({
      name,
      help,
      labelNames: ['channel'] as const,
      registers,
      async collect() {
        const read = await figures();
        this.reset();
        for (const [channel, counts] of Object.entries(read?.outbox ?? {}))
          this.set({ channel }, counts[state]);
      },
    });
  outboxGauge(
    'thm_outbox_pending',
    'Notifications decided and not yet accepted, by channel: email (by the mail server) or a channel by its name (by its endpoint) (read from Redis).',
    'pending',
  );
  outboxGauge(
    'thm_outbox_failed',
    'Notifications refused for good, by channel (email, or a channel by its name), waiting for `thm notify retry` (read from Redis).',
    'failed',
  );
  new Gauge({
    name: 'thm_active_pairs',
    help: 'Active (reported, not yet cleared) declining pairs by network and severity of their last alertable drop (read from Redis).',
    labelNames: ['network', 'severity'] as const,
    registers,
    async collect() {
      const read = await figures();
      this.reset();
      for (const { network, severity, count } of read?.active ?? [])
        this.set({ network, severity }, count);
    },
  });
  // Every configured network has its series from the worker's start, so a run that does not
  // happen shows as an old timestamp, never as a series gone (an alert on its age would then
  // never fire). Its value: the last success Redis has, or the latest this worker has seen (a
  // Redis that lost its data, or does not answer now), or, for a network with none, when it
  // was first scheduled, or this worker's start: its age is then how long it has gone
  // unchecked since it was first watched.
  const remembered = new Map<string, number>();
  /** The earliest this worker knows each network was watched: first scheduled, or its start. */
  const watchedSince = new Map<string, number>();
  new Gauge({
    name: 'thm_last_successful_traffic_check_timestamp_seconds',
    help: 'When the last traffic-check of a network that did not fail finished, as a Unix time (read from Redis; the latest this worker saw when Redis has none or does not answer; for a network that never had one, when it was first scheduled or this worker started).',
    labelNames: ['network'] as const,
    registers,
    async collect() {
      const read = await figures();
      for (const { network, at } of read?.lastSuccess ?? [])
        remembered.set(network, Math.max(at, remembered.get(network) ?? 0));
      this.reset();
      for (const network of networks) {
        // Kept across a Redis that lost its data (the first scheduling is then marked again).
        const since = Math.min(
          watchedSince.get(network.id) ?? startedAt,
          read?.scheduledSince.get(network.id) ?? startedAt,
        );
        watchedSince.set(network.id, since);
        const at = remembered.get(network.id) ?? since;
        this.set({ network: network.id }, Math.round(at / 1000));
      }
    },
  });
  new Gauge({
    name: 'thm_traffic_check_overdue_after_seconds',
    help: "How old a network's last successful traffic-check may grow before the check is overdue: the longest time between two runs its cron allows (in its zone, over the coming two weeks) plus its trafficCheck.graceMinutes.",
    labelNames: ['network'] as const,
    registers,
    collect() {
      this.reset();
      for (const network of networks)
        this.set({ network: network.id }, overdueAfterSeconds(network, startedAt));
    },
  });
  if (options.scheduling) {
    new Gauge({
      name: 'thm_scheduler_present',
      help: "1 when a job scheduler this worker's config holds is in Redis, 0 when it is missing (the worker's next sweep adds it back), by network and kind (read from Redis).",
      labelNames: ['network', 'kind'] as const,
      registers,
      async collect() {
        const read = await figures();
        this.reset();
        if (!read?.scheduling) return;
        const missing = new Set(read.scheduling.missing.map((m) => m.id));
        for (const d of desiredSchedulers(networks))
          this.set({ network: d.networkId, kind: d.kind }, missing.has(d.id) ? 0 : 1);
      },
    });
    /** One count of the live workers' adverts, absent when they could not be read. */
    const workersGauge = (name: string, help: string, count: 'workers' | 'variants') =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const read = await figures();
          this.reset();
          if (read?.scheduling) this.set(read.scheduling[count]);
        },
      });
    workersGauge(
      'thm_workers_live',
      'Workers that said they run within their last few sweeps (their adverts in Redis).',
      'workers',
    );
    workersGauge(
      'thm_worker_config_variants',
      'How many different configs the live workers run: 1 when they agree (thm status and /healthz say how they differ).',
      'variants',
    );
  }

  const networkLabel = (networkId: unknown): string =>
    typeof networkId === 'string' && networkIds.has(networkId) ? networkId : 'unknown';
  // Each network's runs counted from 0 at the start, for each kind it is scheduled for: an
  // `increase()` of failures then has a series to read before the first one.
  const countFromZero = (list: readonly NetworkConfig[]) => {
    for (const d of desiredSchedulers(list))
      for (const outcome of ['ok', 'failed'] as const)
        jobRuns.inc({ kind: d.kind, network: d.networkId, outcome }, 0);
  };
  countFromZero(networks);

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    networkLabel,
    observeApiRequest(event) {
      const network = networkLabel(event.networkId);
      const endpoint = endpointLabel(event.path);
      apiRequests.inc({ network, endpoint, status: apiStatusLabel(event) });
      apiDuration.observe({ network, endpoint }, event.seconds);
      if (event.retrying) apiRetries.inc({ network, endpoint });
    },
    recordJob(kind, networkId, outcome, seconds) {
      jobRuns.inc({ kind, network: networkLabel(networkId), outcome });
      jobDuration.observe({ kind }, seconds);
    },
    setNetworks(next) {
      networks = next;
      networkIds = new Set(next.map((n) => n.id));
      channelNames = channelNamesOf(next);
      countFromZero(next);
    },
    recordNotification(networkId, kind, state, channel = EMAIL_CHANNEL) {
      notifications.inc({
        network: networkLabel(networkId),
        kind,
        channel: channel === EMAIL_CHANNEL || channelNames.has(channel) ? channel : 'unknown',
        state,
      });
    },
  };
}

function channelNamesOf(networks: readonly NetworkConfig[]): Set<string> {
  return new Set(networks.flatMap((n) => n.channels.map((c) => c.name)));
}

async function readRedisFigures(
  options: MetricsOptions,
  channelNames: ReadonlySet<string>,
  now: number,
): Promise<RedisFigures> {
  const { store, networks, queues } = options;
  const [queueCounts, outbox, perNetwork, scheduledSince, scheduling] = await Promise.all([
    Promise.all(
      queues.map(async (queue) => ({
        queue: queue.name,
        counts: await queue.getJobCounts(...QUEUE_STATES),
      })),
    ),
    store.outboxCountsByChannel(['pending', 'failed']),
    Promise.all(networks.map((network) => readNetworkFigures(store, network, now))),
    store.scheduledSince(networks.map((n) => n.id)),
    options.scheduling?.(),
  ]);
  // Every configured channel and e-mail has its series, at 0 when nothing waits.
  const byChannel: RedisFigures['outbox'] = {};
  for (const channel of [EMAIL_CHANNEL, ...channelNames])
    byChannel[channel] = { pending: 0, failed: 0 };
  for (const [channel, counts] of Object.entries(outbox))
    byChannel[channel] = { pending: counts.pending, failed: counts.failed };
  return {
    queues: queueCounts,
    outbox: byChannel,
    active: perNetwork.flatMap((n) => n.active),
    lastSuccess: perNetwork.flatMap((n) => (n.lastSuccess === undefined ? [] : [n.lastSuccess])),
    scheduledSince,
    ...(scheduling ? { scheduling } : {}),
  };
}

/** Worked out once per network's schedule (a cron's gaps take a moment to find). */
const overdueAfter = new Map<string, number>();

function overdueAfterSeconds(network: NetworkConfig, from: number): number {
  const { cron, graceMinutes } = network.trafficCheck;
  const key = `${cron} ${network.timezone} ${graceMinutes}`;
  let seconds = overdueAfter.get(key);
  if (seconds === undefined) {
    seconds = Math.round(longestCronGapMs(cron, network.timezone, from) / 1000) + graceMinutes * 60;
    if (overdueAfter.size >= 1_000) overdueAfter.clear();
    overdueAfter.set(key, seconds);
  }
  return seconds;
}

async function readNetworkFigures(
  store: RedisStore,
  network: NetworkConfig,
  now: number,
): Promise<{ active: RedisFigures['active']; lastSuccess?: RedisFigures['lastSuccess'][number] }> {
  // The last success among every run record kept, however old: an alert on
  // `time() - thm_last_successful_traffic_check_timestamp_seconds` needs the series to exist.
  // It used to be looked for in the last 31 days only, and vanished after a month of failures.
  const { state, latest } = await store.networkNow(network.id, network.timezone, now);
  const bySeverity = countBySeverity(state.activeDrops, network.alerts);
  const active = (Object.keys(bySeverity) as Severity[]).map((severity) => ({
    network: network.id,
    severity,
    count: bySeverity[severity],
  }));
  const last = latest.lastSuccess?.finishedAt;
  return last === undefined
    ? { active }
    : { active, lastSuccess: { network: network.id, at: last } };
}
