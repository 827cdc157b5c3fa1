import type { Command } from 'commander';
import type { RedisClient } from '../../redis/connection.js';
import type { RedisRole } from '../../redis/role.js';
import type { Config, NetworkConfig } from '../../config/load.js';
import { EXIT_FAILED, StoredStateError } from '../../errors.js';
import {
  CHANNELS_QUEUE,
  CHECK_KINDS,
  CHECKS_QUEUE,
  MAIL_QUEUE,
  schedulerId,
  type CheckKind,
} from '../../jobs/names.js';
import { overdueStatus } from '../../monitor/overdue.js';
import { countBySeverity } from '../../monitor/thresholds.js';
import { dayToDayPercent, variationOf } from '../../monitor/variation.js';
import type {
  InvoiceSnapshot,
  LearnedVariation,
  PremiumState,
  ProblemEpisode,
  RunRecord,
  Severity,
} from '../../monitor/types.js';
import { EMAIL_CHANNEL } from '../../notification-names.js';
import { isChannelDelivery, type OutboxEntry } from '../../notify/types.js';
import type { OutboxCounts, RedisStore, ReloadFailure } from '../../store/redis-store.js';
import { loadCliConfig } from '../context.js';
import { formatDuration, formatUtc, formatZoned } from '../durations.js';
import { shortOutboxId } from '../outbox-ids.js';
import { printJson, writeLines } from '../output.js';
import { withStore } from '../store-access.js';

export interface NetworkStatus {
  id: string;
  name: string;
  /** The network's zone: its crons fire and its as-of dates turn in it. */
  timezone: string;
  premium?: PremiumState;
  lastRuns: { trafficCheck?: RunRecord; invoiceSnapshot?: RunRecord };
  lastSuccessfulTrafficCheck?: RunRecord;
  nextRuns: { trafficCheck?: string; invoiceSnapshot?: string };
  activePairs: Record<Severity, number>;
  /**
   * The network's learned day-to-day variation (monitor/variation.ts): the typical change of a
   * pair's clicks between the same weekday of two weeks, in percent, all of it and the part a
   * domain's ISPs share, and the days it rests on (decayed; few days: mostly the prior).
   */
  variation?: { dayToDayPercent: number; sharedPercent: number; days: number };
  lastInvoice?: InvoiceSnapshot;
  problem?: ProblemEpisode;
  overdue: boolean;
  overdueReason?: string;
  /** The network's stored state could not be read: the rest of its status is unknown. */
  unreadable?: { key: string; field?: string; message: string };
  /** The live workers whose config holds this network (their adverts, store/worker-adverts.ts). */
  heldBy: string[];
  /** Its schedulers a live worker holds that are not in Redis: a problem until a sweep. */
  missingSchedulers: string[];
}

/** A live worker, as its advert says. */
export interface WorkerStatus {
  instance: string;
  version: string;
  storageFormat: number;
  startedAt: number;
  /** When the config it runs on was loaded. */
  configAt: number;
  /** How many job schedulers its config holds. */
  schedulers: number;
}

export interface StatusReport {
  checkedAt: string;
  networks: NetworkStatus[];
  queues: Record<string, Record<string, number>>;
  outbox: {
    pending: number;
    sent: number;
    failed: number;
    /** Per channel: `email`, and each channel by its name. */
    channels: Record<string, OutboxCounts>;
  };
  failedNotifications: Array<
    Pick<OutboxEntry, 'lastError' | 'failedAt'> & {
      id: string;
      networkId: string;
      kind: string;
      /** `email`, or the channel's name. */
      channel: string;
      subject: string;
    }
  >;
  /**
   * The node the monitor's keys are written to, asked with this command's own connection (the
   * workers' config): its role, its connected replicas, and what is wrong with it.
   */
  redis: RedisRole;
  /** Workers whose last config reload failed (they run on the config they had). */
  configReloadFailures: ReloadFailure[];
  /** The live workers (none: none running, or none of a version that says so). */
  workers: WorkerStatus[];
  /** How the live workers' configs differ, one line each (jobs/schedule-coverage.ts). */
  workerConfigDifferences: string[];
  /**
   * Since when they have differed (ISO time), and whether that is a problem yet: after
   * worker.configDriftGraceMs (a rolling deploy differs for a while).
   */
  workerConfigsDiffer?: { since: string; problemFrom: string; problem: boolean };
  healthy: boolean;
}

/** What the live workers' adverts say of one network. */
interface Holding {
  heldBy: string[];
  missingSchedulers: string[];
}

async function networkStatus(
  store: RedisStore,
  schedulers: ReadonlyMap<string, number>,
  network: NetworkConfig,
  now: number,
  scheduledSince: number | undefined,
  holding: Holding,
): Promise<NetworkStatus> {
  const { state, latest } = await store.networkNow(network.id, network.timezone, now);
  const nextRun = (kind: CheckKind) => {
    const next = schedulers.get(schedulerId(kind, network.id));
    return next ? new Date(next).toISOString() : undefined;
  };
  const { overdue, reason } = overdueStatus(
    network,
    latest.lastSuccess,
    latest.any,
    now,
    scheduledSince,
  );
  return {
    id: network.id,
    name: network.name,
    timezone: network.timezone,
    premium: state.premium,
    lastRuns: { trafficCheck: latest.trafficCheck, invoiceSnapshot: latest.invoiceSnapshot },
    lastSuccessfulTrafficCheck: latest.lastSuccess,
    nextRuns: {
      trafficCheck: nextRun('traffic-check'),
      invoiceSnapshot: nextRun('invoice-snapshot'),
    },
    activePairs: countBySeverity(state.activeDrops, network.alerts),
    ...(state.learned ? { variation: variationStatus(state.learned) } : {}),
    lastInvoice: state.latestInvoice,
    problem: state.problem,
    overdue,
    overdueReason: reason,
    ...holding,
  };
}

/** The learned variation as status shows it: whole percents and days. */
function variationStatus(learned: LearnedVariation): NonNullable<NetworkStatus['variation']> {
  const variation = variationOf(learned);
  const percent = dayToDayPercent(variation);
  return {
    dayToDayPercent: Math.round(percent.all),
    sharedPercent: Math.round(percent.shared),
    days: Math.round(variation.days),
  };
}

/** A network whose state cannot be read is reported as itself; the others are read on. */
async function networkStatusOrUnreadable(
  ...args: Parameters<typeof networkStatus>
): Promise<NetworkStatus> {
  try {
    return await networkStatus(...args);
  } catch (error) {
    if (!(error instanceof StoredStateError)) throw error;
    const [, , network, , , holding] = args;
    return {
      ...holding,
      id: network.id,
      name: network.name,
      timezone: network.timezone,
      lastRuns: {},
      nextRuns: {},
      activePairs: { warning: 0, critical: 0 },
      overdue: false,
      unreadable: {
        key: error.key,
        ...(error.field !== undefined ? { field: error.field } : {}),
        message: error.message,
      },
    };
  }
}

export async function collectStatus(
  config: Config,
  store: RedisStore,
  connection: RedisClient,
  now = Date.now(),
): Promise<StatusReport> {
  // BullMQ is not loaded: its counts and scheduler times are read directly (queue-reads.ts).
  const [
    { checkRedisRole },
    { readJobCounts, readSchedulerNextTimes },
    { scheduleCoverage, configDriftIsProblem },
  ] = await Promise.all([
    import('../../redis/role.js'),
    import('../../jobs/queue-reads.js'),
    import('../../jobs/schedule-coverage.js'),
  ]);
  const { prefix } = config.redis;
  const [scheduled, schedulers, adverts] = await Promise.all([
    store.scheduledSince(config.networks.map((n) => n.id)),
    readSchedulerNextTimes(connection, prefix, CHECKS_QUEUE),
    store.liveAdverts(now),
  ]);
  const coverage = scheduleCoverage(adverts, schedulers.keys());
  const holding = (network: NetworkConfig): Holding => {
    const ids = CHECK_KINDS.map((kind) => schedulerId(kind, network.id));
    return {
      heldBy: adverts
        .filter((a) => ids.some((id) => a.schedulers[id] !== undefined))
        .map((a) => a.instance),
      missingSchedulers: coverage.missing.filter((m) => ids.includes(m.id)).map((m) => m.id),
    };
  };
  // The networks' reads and the rest go out together (the connection pipelines them).
  const [networks, [queues, byChannel, failed, configReloadFailures, redis]] = await Promise.all([
    Promise.all(
      config.networks.map((n) =>
        networkStatusOrUnreadable(store, schedulers, n, now, scheduled.get(n.id), holding(n)),
      ),
    ),
    Promise.all([
      readJobCounts(connection, prefix, [CHECKS_QUEUE, MAIL_QUEUE, CHANNELS_QUEUE]),
      store.outboxCountsByChannel(),
      store.failedNotifications(),
      store.reloadFailures(),
      checkRedisRole(connection, store.keys.networks, config.redis.confirm.replicas),
    ]),
  ]);
  const workers: WorkerStatus[] = adverts.map((a) => ({
    instance: a.instance,
    version: a.version,
    storageFormat: a.storageFormat,
    startedAt: a.startedAt,
    configAt: a.configAt,
    schedulers: Object.keys(a.schedulers).length,
  }));
  const failedNotifications = failed.map((e) => ({
    id: e.notification.id,
    networkId: e.notification.networkId,
    kind: e.notification.kind,
    channel: isChannelDelivery(e.notification) ? e.notification.channel.name : EMAIL_CHANNEL,
    subject: e.notification.subject,
    lastError: e.lastError,
    failedAt: e.failedAt,
  }));
  const graceMs = config.worker.configDriftGraceMs;
  const driftIsProblem = configDriftIsProblem(coverage, graceMs, now);
  const healthy =
    networks.every((n) => !n.overdue && !n.problem && !n.unreadable) &&
    // Scheduled as the live workers hold it; and, when workers run, held by one of them.
    networks.every((n) => n.missingSchedulers.length === 0) &&
    (workers.length === 0 || networks.every((n) => n.heldBy.length > 0)) &&
    !driftIsProblem &&
    failedNotifications.length === 0 &&
    configReloadFailures.length === 0 &&
    redis.problems.length === 0;
  return {
    checkedAt: new Date(now).toISOString(),
    networks,
    queues,
    // The totals from the same read as the channels': they always add up.
    outbox: { ...sumCounts(Object.values(byChannel)), channels: byChannel },
    failedNotifications,
    redis,
    configReloadFailures,
    workers,
    workerConfigDifferences: coverage.differences,
    ...(coverage.differences.length > 0 && coverage.differingSince !== undefined
      ? {
          workerConfigsDiffer: {
            since: new Date(coverage.differingSince).toISOString(),
            problemFrom: new Date(coverage.differingSince + graceMs).toISOString(),
            problem: driftIsProblem,
          },
        }
      : {}),
    healthy,
  };
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'per network: premium, last runs, next runs, active pairs, invoices, problems, overdue; queue counts',
    )
    .option('--json', 'print one JSON document')
    .option(
      '--check',
      'exit 1 when a network is overdue, has an open problem or unreadable state, a notification failed, or Redis is a replica or short of replicas (for outside monitoring)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ thm status\n  $ thm status --check --json   # in a cron or a health check',
    )
    .action(async (options: { json?: boolean; check?: boolean }, command: Command) => {
      const config = loadCliConfig(command);
      const report = await withStore(config, (store, redis) => collectStatus(config, store, redis));
      if (options.json) printJson(report);
      else printStatus(report);
      if (options.check && !report.healthy) process.exitCode = EXIT_FAILED;
    });
}

function describeRun(run: RunRecord | undefined, now: number, timeZone: string): string {
  if (!run) return 'never';
  const ago = `finished ${formatZoned(run.finishedAt, timeZone)}, ${formatDuration(now - run.finishedAt)} ago`;
  const counts = run.counts
    ? ` (${
        Object.entries(run.counts)
          .filter(([, v]) => v > 0)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ') || 'nothing declining'
      })`
    : '';
  const error = run.error ? `: ${run.error.message}` : '';
  return `${run.outcome} for ${run.asOf}, ${ago}${counts}${error}`;
}

/** The report as text, written at once: one write, not one per line. */
function printStatus(report: StatusReport): void {
  const lines: string[] = [];
  const add = (line: string) => lines.push(line);
  const now = Date.parse(report.checkedAt);
  const workersRun = report.workers.length > 0;
  for (const n of report.networks) {
    const unwatched = workersRun && n.heldBy.length === 0;
    const flags = [
      n.overdue ? 'OVERDUE' : '',
      n.problem ? 'PROBLEM' : '',
      n.unreadable ? 'STATE UNREADABLE' : '',
      n.missingSchedulers.length > 0 ? 'NOT SCHEDULED' : '',
      unwatched ? 'NOT WATCHED' : '',
    ]
      .filter(Boolean)
      .join(' ');
    add(`${n.name} (${n.id})${flags ? `  [${flags}]` : ''}`);
    if (n.unreadable) {
      add(`  ${n.unreadable.message}`);
      continue;
    }
    add(
      `  premium:          ${n.premium ? (n.premium.hasPremium ? 'active' : 'INACTIVE') : 'unknown (not checked yet)'}`,
    );
    const zoned = (iso: string | undefined) =>
      iso === undefined ? undefined : formatZoned(Date.parse(iso), n.timezone);
    add(`  traffic-check:    ${describeRun(n.lastRuns.trafficCheck, now, n.timezone)}`);
    if (n.lastRuns.trafficCheck?.outcome === 'failed')
      add(`  last success:     ${describeRun(n.lastSuccessfulTrafficCheck, now, n.timezone)}`);
    add(`  invoice-snapshot: ${describeRun(n.lastRuns.invoiceSnapshot, now, n.timezone)}`);
    add(
      `  next runs:        traffic-check ${zoned(n.nextRuns.trafficCheck) ?? 'not scheduled (is a worker running?)'}, invoice-snapshot ${zoned(n.nextRuns.invoiceSnapshot) ?? '-'}`,
    );
    if (n.missingSchedulers.length > 0)
      add(
        `  not scheduled:    ${n.missingSchedulers.join(', ')}, held by ${n.heldBy.join(', ')}: its next sweep adds ${n.missingSchedulers.length === 1 ? 'it' : 'them'} back (Redis lost ${n.missingSchedulers.length === 1 ? 'it' : 'them'}?)`,
      );
    if (unwatched)
      add(
        `  not watched:      no running worker's config has this network (${report.workers.map((w) => w.instance).join(', ')}): reload or restart them with this config`,
      );
    add(`  active pairs:     ${n.activePairs.critical} critical, ${n.activePairs.warning} warning`);
    add(
      n.variation
        ? `  variation:        clicks vary about ${n.variation.dayToDayPercent}% from day to day (${n.variation.sharedPercent}% shared by a domain's ISPs), learned over ${n.variation.days} days`
        : '  variation:        not learned yet (no traffic-check has listed a pair)',
    );
    if (n.lastInvoice)
      add(
        `  invoices (${n.lastInvoice.status}): ${n.lastInvoice.total_count}, balance ${n.lastInvoice.balance.toFixed(2)}`,
      );
    if (n.problem)
      add(
        `  problem since ${formatZoned(n.problem.openedAt, n.timezone)}: ${n.problem.code}: ${n.problem.message}`,
      );
    if (n.overdue) add(`  overdue: ${n.overdueReason ?? ''}`);
  }
  add(
    `queues: ${Object.entries(report.queues)
      .map(
        ([q, c]) =>
          `${q} ${Object.entries(c)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
      )
      .join('; ')}`,
  );
  add(
    `outbox: ${report.outbox.pending} pending, ${report.outbox.sent} sent, ${report.outbox.failed} failed`,
  );
  const channels = Object.entries(report.outbox.channels);
  // Per channel only when there is more than the e-mail to tell apart.
  if (channels.some(([name]) => name !== EMAIL_CHANNEL))
    for (const [name, c] of channels.sort(([a], [b]) => byChannelName(a, b)))
      add(`  ${name}: ${c.pending} pending, ${c.sent} sent, ${c.failed} failed`);
  for (const f of report.failedNotifications)
    add(
      `  failed ${shortOutboxId(f.id)} (${f.networkId}, ${f.kind}, ${f.channel}): ${f.lastError ?? ''}`,
    );
  const r = report.redis;
  add(
    `redis: ${r.node} (${r.role === 'slave' ? 'replica' : r.role}, ${r.replicas} replica${r.replicas === 1 ? '' : 's'} connected)`,
  );
  for (const problem of r.problems) add(`  ${problem.replace(/^redis: /, '')}`);
  add(
    workersRun
      ? `workers: ${report.workers
          .map(
            (w) =>
              `${w.instance} (${w.version}, storage format ${w.storageFormat}, since ${formatUtc(w.startedAt)})`,
          )
          .join(', ')}`
      : 'workers: none seen (no worker has said it runs in the last few sweeps)',
  );
  const drift = report.workerConfigsDiffer;
  if (report.workerConfigDifferences.length > 0) {
    add(
      drift
        ? `  their configs differ since ${formatUtc(Date.parse(drift.since))} (a rolling deploy? a replica left on an older config?); ${drift.problem ? 'a problem since' : 'a problem from'} ${formatUtc(Date.parse(drift.problemFrom))} (worker.configDriftGraceMs):`
        : '  their configs differ (a rolling deploy? a replica left on an older config?):',
    );
    for (const line of report.workerConfigDifferences) add(`    ${line}`);
  }
  for (const r of report.configReloadFailures)
    add(
      `config reload failed on ${r.instance} at ${formatUtc(r.failedAt)}: ${r.message.replace(/^config reload failed: /, '')} (it runs on its previous config)`,
    );
  add(report.healthy ? 'healthy' : 'NOT healthy');
  writeLines(lines);
}

/** The e-mail first, then the channels by name. */
function byChannelName(a: string, b: string): number {
  if (a === b) return 0;
  if (a === EMAIL_CHANNEL) return -1;
  if (b === EMAIL_CHANNEL) return 1;
  return a < b ? -1 : 1;
}

function sumCounts(counts: OutboxCounts[]): OutboxCounts {
  return counts.reduce(
    (total, c) => ({
      pending: total.pending + c.pending,
      sent: total.sent + c.sent,
      failed: total.failed + c.failed,
    }),
    { pending: 0, sent: 0, failed: 0 },
  );
}
