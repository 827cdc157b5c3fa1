import type { Queue } from 'bullmq';
import type { Command } from 'commander';
import type { RedisClient } from '../../jobs/redis.js';
import type { RedisRole } from '../../jobs/redis-role.js';
import type { Config, NetworkConfig } from '../../config/load.js';
import { localDate } from '../../dates.js';
import { EXIT_FAILED, StoredStateError } from '../../errors.js';
import { CHANNELS_QUEUE, CHECKS_QUEUE, MAIL_QUEUE, schedulerId } from '../../jobs/names.js';
import { latestRuns, overdueStatus } from '../../monitor/overdue.js';
import { countBySeverity } from '../../monitor/thresholds.js';
import type {
  InvoiceSnapshot,
  PremiumState,
  ProblemEpisode,
  RunRecord,
  Severity,
} from '../../monitor/types.js';
import { EMAIL_CHANNEL } from '../../notify/channels/types.js';
import { isChannelDelivery, type OutboxEntry } from '../../notify/types.js';
import type { OutboxCounts, RedisStore, ReloadFailure } from '../../store/redis-store.js';
import { loadCliConfig } from '../context.js';
import { formatDuration, formatUtc, formatZoned } from '../durations.js';
import { printJson, printLine } from '../output.js';
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
  lastInvoice?: InvoiceSnapshot;
  problem?: ProblemEpisode;
  overdue: boolean;
  overdueReason?: string;
  /** The network's stored state could not be read: the rest of its status is unknown. */
  unreadable?: { key: string; field?: string; message: string };
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
  healthy: boolean;
}

async function networkStatus(
  store: RedisStore,
  queue: Queue,
  network: NetworkConfig,
  now: number,
  scheduledSince: number | undefined,
): Promise<NetworkStatus> {
  const asOf = localDate(now, network.timezone);
  const [state, runs, tcScheduler, invScheduler] = await Promise.all([
    store.loadNetworkState(network.id, { asOf, kind: 'traffic-check', now }),
    store.listRuns(network.id, { limit: 200 }),
    queue.getJobScheduler(schedulerId('traffic-check', network.id)),
    queue.getJobScheduler(schedulerId('invoice-snapshot', network.id)),
  ]);
  const latest = latestRuns(runs);
  const { overdue, reason } = overdueStatus(
    network,
    latest.lastSuccess,
    runs.length > 0,
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
      trafficCheck: tcScheduler?.next ? new Date(tcScheduler.next).toISOString() : undefined,
      invoiceSnapshot: invScheduler?.next ? new Date(invScheduler.next).toISOString() : undefined,
    },
    activePairs: countBySeverity(state.active.values(), network.alerts),
    lastInvoice: state.latestInvoice,
    problem: state.problem,
    overdue,
    overdueReason: reason,
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
    const [, , network] = args;
    return {
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
  // Loaded here, not with the CLI (target P7, docs/performance.md).
  const { Queue } = (await import('../../cjs-packages.js')).loadBullmq();
  const { checkRedisRole } = await import('../../jobs/redis-role.js');
  const checks = new Queue(CHECKS_QUEUE, { connection, prefix: config.redis.prefix });
  const mail = new Queue(MAIL_QUEUE, { connection, prefix: config.redis.prefix });
  const channels = new Queue(CHANNELS_QUEUE, { connection, prefix: config.redis.prefix });
  try {
    const scheduled = await store.scheduledSince(config.networks.map((n) => n.id));
    const networks = await Promise.all(
      config.networks.map((n) =>
        networkStatusOrUnreadable(store, checks, n, now, scheduled.get(n.id)),
      ),
    );
    const counted = ['active', 'waiting', 'delayed', 'failed', 'completed'] as const;
    const [checkCounts, mailCounts, channelCounts, byChannel, failed, configReloadFailures, redis] =
      await Promise.all([
        checks.getJobCounts(...counted),
        mail.getJobCounts(...counted),
        channels.getJobCounts(...counted),
        store.outboxCountsByChannel(),
        store.failedNotifications(),
        store.reloadFailures(),
        checkRedisRole(connection, store.keys.networks, config.redis.confirm.replicas),
      ]);
    const failedNotifications = failed.map((e) => ({
      id: e.notification.id,
      networkId: e.notification.networkId,
      kind: e.notification.kind,
      channel: isChannelDelivery(e.notification) ? e.notification.channel.name : EMAIL_CHANNEL,
      subject: e.notification.subject,
      lastError: e.lastError,
      failedAt: e.failedAt,
    }));
    const healthy =
      networks.every((n) => !n.overdue && !n.problem && !n.unreadable) &&
      failedNotifications.length === 0 &&
      configReloadFailures.length === 0 &&
      redis.problems.length === 0;
    return {
      checkedAt: new Date(now).toISOString(),
      networks,
      queues: {
        [CHECKS_QUEUE]: checkCounts,
        [MAIL_QUEUE]: mailCounts,
        [CHANNELS_QUEUE]: channelCounts,
      },
      // The totals from the same read as the channels': they always add up.
      outbox: { ...sumCounts(Object.values(byChannel)), channels: byChannel },
      failedNotifications,
      redis,
      configReloadFailures,
      healthy,
    };
  } finally {
    await Promise.all([checks.close(), mail.close(), channels.close()]);
  }
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

function printStatus(report: StatusReport): void {
  const now = Date.parse(report.checkedAt);
  for (const n of report.networks) {
    const flags = [
      n.overdue ? 'OVERDUE' : '',
      n.problem ? 'PROBLEM' : '',
      n.unreadable ? 'STATE UNREADABLE' : '',
    ]
      .filter(Boolean)
      .join(' ');
    printLine(`${n.name} (${n.id})${flags ? `  [${flags}]` : ''}`);
    if (n.unreadable) {
      printLine(`  ${n.unreadable.message}`);
      continue;
    }
    printLine(
      `  premium:          ${n.premium ? (n.premium.hasPremium ? 'active' : 'INACTIVE') : 'unknown (not checked yet)'}`,
    );
    const zoned = (iso: string | undefined) =>
      iso === undefined ? undefined : formatZoned(Date.parse(iso), n.timezone);
    printLine(`  traffic-check:    ${describeRun(n.lastRuns.trafficCheck, now, n.timezone)}`);
    if (n.lastRuns.trafficCheck?.outcome === 'failed')
      printLine(
        `  last success:     ${describeRun(n.lastSuccessfulTrafficCheck, now, n.timezone)}`,
      );
    printLine(`  invoice-snapshot: ${describeRun(n.lastRuns.invoiceSnapshot, now, n.timezone)}`);
    printLine(
      `  next runs:        traffic-check ${zoned(n.nextRuns.trafficCheck) ?? 'not scheduled (is a worker running?)'}, invoice-snapshot ${zoned(n.nextRuns.invoiceSnapshot) ?? '-'}`,
    );
    printLine(
      `  active pairs:     ${n.activePairs.critical} critical, ${n.activePairs.warning} warning`,
    );
    if (n.lastInvoice)
      printLine(
        `  invoices (${n.lastInvoice.status}): ${n.lastInvoice.total_count}, balance ${n.lastInvoice.balance.toFixed(2)}`,
      );
    if (n.problem)
      printLine(
        `  problem since ${formatZoned(n.problem.openedAt, n.timezone)}: ${n.problem.code}: ${n.problem.message}`,
      );
    if (n.overdue) printLine(`  overdue: ${n.overdueReason ?? ''}`);
  }
  printLine(
    `queues: ${Object.entries(report.queues)
      .map(
        ([q, c]) =>
          `${q} ${Object.entries(c)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
      )
      .join('; ')}`,
  );
  printLine(
    `outbox: ${report.outbox.pending} pending, ${report.outbox.sent} sent, ${report.outbox.failed} failed`,
  );
  const channels = Object.entries(report.outbox.channels);
  // Per channel only when there is more than the e-mail to tell apart.
  if (channels.some(([name]) => name !== EMAIL_CHANNEL))
    for (const [name, c] of channels.sort(([a], [b]) => byChannelName(a, b)))
      printLine(`  ${name}: ${c.pending} pending, ${c.sent} sent, ${c.failed} failed`);
  for (const f of report.failedNotifications)
    printLine(`  failed ${f.id} (${f.networkId}, ${f.kind}, ${f.channel}): ${f.lastError ?? ''}`);
  const r = report.redis;
  printLine(
    `redis: ${r.node} (${r.role === 'slave' ? 'replica' : r.role}, ${r.replicas} replica${r.replicas === 1 ? '' : 's'} connected)`,
  );
  for (const problem of r.problems) printLine(`  ${problem.replace(/^redis: /, '')}`);
  for (const r of report.configReloadFailures)
    printLine(
      `config reload failed on ${r.instance} at ${formatUtc(r.failedAt)}: ${r.message.replace(/^config reload failed: /, '')} (it runs on its previous config)`,
    );
  printLine(report.healthy ? 'healthy' : 'NOT healthy');
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
