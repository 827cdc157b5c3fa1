import type { Command } from 'commander';
import { z } from 'zod';
import type { Config, NetworkConfig } from '../../config/load.js';
import { isIsoDate } from '../../dates.js';
import { EXIT_FAILED, UsageError } from '../../errors.js';
import { checkRequestedAsOf } from '../../jobs/as-of.js';
import { describeDrops } from '../../jobs/drop-summary.js';
import { asJoined, enqueueManualRun, waitForJob, type EnqueuedRun } from '../../jobs/enqueue.js';
import type { CheckJobData } from '../../jobs/job-data.js';
import { CHECK_KINDS, CHECKS_QUEUE, type CheckKind } from '../../jobs/names.js';
import type { CheckOutcome } from '../../jobs/traffic-check.js';
import { silentLogger } from '../../log.js';
import { PAIR_CLASSES } from '../../monitor/types.js';
import { parseChannelDeliveryId } from '../../notify/channels/delivery-id.js';
import type { RedisStore } from '../../store/redis-store.js';
import { loadCliConfig, selectNetworks } from '../context.js';
import { printJson, printLine } from '../output.js';
import { CLI_CONNECT_TIMEOUT_MS, CLI_DISCONNECT_TIMEOUT_MS } from '../store-access.js';

const runOptionsSchema = z
  .object({
    network: z.string().optional(),
    all: z.boolean().optional(),
    date: z.string().refine(isIsoDate, '--date: must be a date YYYY-MM-DD').optional(),
    wait: z.boolean().optional(),
    timeout: z.coerce
      .number({ message: '--timeout: must be a number of seconds' })
      .positive('--timeout: must be a positive number of seconds')
      .optional(),
    force: z.boolean().optional(),
    json: z.boolean().optional(),
  })
  .refine((o) => Boolean(o.network) !== Boolean(o.all), {
    message: 'give exactly one of --network ID or --all',
  });
type RunOptions = z.infer<typeof runOptionsSchema>;

export function parseRunOptions(raw: unknown): RunOptions {
  const result = runOptionsSchema.safeParse(raw);
  if (!result.success) throw new UsageError(result.error.issues[0]?.message ?? 'invalid options');
  return result.data;
}

export function registerRunCommand(program: Command): void {
  const run = program
    .command('run')
    .description('enqueue a job now, into the queue the schedulers use');
  for (const kind of CHECK_KINDS) {
    run
      .command(kind)
      .description(
        kind === 'traffic-check' ? 'check ISP trends now' : 'take an invoice summary snapshot now',
      )
      .option('--network <id>', 'the network to run')
      .option('--all', 'every configured network')
      .option(
        '--date <YYYY-MM-DD>',
        "as-of date (default: today in the network's time zone); not after today, and not older than the newest run unless that date already ran",
      )
      .option('--wait', 'wait for the outcome, print it and set the exit code')
      .option('--timeout <seconds>', 'with --wait: give up after this long (default 120)')
      .option(
        '--force',
        'run again even if this date already ran (never re-sends an e-mail already sent)',
      )
      .option('--json', 'print one JSON document')
      .addHelpText(
        'after',
        `\nExamples:\n  $ thm run ${kind} --network acme --wait\n  $ thm run ${kind} --all --date 2026-11-21`,
      )
      .action(async (raw: unknown, command: Command) => {
        const options = parseRunOptions(raw);
        const config = loadCliConfig(command);
        process.exitCode = await runKind(config, kind, options);
      });
  }
}

interface JobReport {
  network: string;
  jobId: string;
  asOf: string;
  state: 'queued' | 'completed' | 'failed' | 'timeout' | 'delayed';
  outcome?: CheckOutcome;
  error?: string;
  /** With --wait: where each e-mail the run decided stands (delivery is the mail queue's). */
  emails?: EmailReport[];
  /** With --wait: where each channel delivery of the run stands (the channels queue's). */
  channels?: ChannelReport[];
}

interface EmailReport {
  id: string;
  kind: string;
  subject: string;
  /** pending: not accepted yet (retried); unknown: no longer in the outbox. */
  state: 'sent' | 'pending' | 'failed' | 'unknown';
  error?: string;
}

interface ChannelReport extends EmailReport {
  /** The channel's name. */
  channel: string;
}

/**
 * Polls the outbox until every e-mail and channel delivery of the run is sent or refused, or
 * until `deadline`. The subject comes from the outbox (an already-done run's e-mails were
 * decided by another job).
 */
async function deliveryOf(
  store: RedisStore,
  outcome: CheckOutcome,
  deadline: number,
): Promise<{ emails: EmailReport[]; channels: ChannelReport[] }> {
  const emailIds = outcome.notificationIds ?? outcome.notifications.map((n) => n.id);
  // A job finished by a worker older than channels returns no deliveryIds.
  const channelIds = outcome.deliveryIds ?? [];
  const ids = [...emailIds, ...channelIds];
  const decided = new Map<string, { kind: string; subject?: string }>(
    outcome.notifications.map((n) => [n.id, n]),
  );
  for (const d of outcome.deliveries ?? []) decided.set(d.id, d);
  for (;;) {
    // Redis away for a moment (restart, failover): ask again until the deadline.
    const entries = await store
      .getNotifications(ids)
      .catch((error: unknown) => (Date.now() < deadline ? undefined : Promise.reject(error)));
    if (!entries) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    const reports = ids.map((id, i): EmailReport => {
      const entry = entries[i];
      const known = entry?.notification ?? decided.get(id);
      const report: EmailReport = {
        id,
        kind: known?.kind ?? 'unknown',
        subject: known?.subject ?? id,
        state: entry?.state ?? 'unknown',
      };
      if (entry?.lastError !== undefined && entry.state !== 'sent') report.error = entry.lastError;
      return report;
    });
    if (reports.every((r) => r.state !== 'pending') || Date.now() >= deadline)
      return {
        emails: reports.slice(0, emailIds.length),
        channels: reports.slice(emailIds.length).map((r) => ({
          ...r,
          channel: parseChannelDeliveryId(r.id)?.channel ?? 'unknown',
        })),
      };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function runKind(config: Config, kind: CheckKind, options: RunOptions): Promise<number> {
  // One budget for the whole command, the wait for Redis included.
  const timeoutMs = (options.timeout ?? 120) * 1000;
  const deadline = Date.now() + timeoutMs;
  const networks = selectNetworks(config, options);
  // BullMQ and ioredis load here, not with the CLI: every command starts without the modules
  // it does not use. ioredis first, to connect; BullMQ and the store below, while it does.
  const [{ connectRedis, describeRedis }, reaching] = await Promise.all([
    import('../../redis/connection.js'),
    import('../../redis/reach.js'),
  ]);
  // Without --wait it fails fast (a person at a terminal wants to know now that Redis is not
  // there). With --wait it keeps trying until its --timeout: to connect at first, and once the
  // jobs are enqueued through a Redis restart or failover while they run, which is waited out,
  // not reported as "no outcome".
  // (A moment past the deadline: the wait below gives up first, and says how long it tried.)
  const reconnectUntil = options.wait ? deadline + 1_000 : 0;
  const retryStrategy = (times: number) =>
    times <= 2 ? 100 : Date.now() < reconnectUntil ? Math.min(200 * times, 1_000) : null;
  const connection = {
    retryStrategy,
    disconnectTimeout: CLI_DISCONNECT_TIMEOUT_MS,
    connectTimeout: CLI_CONNECT_TIMEOUT_MS,
  };
  // Connection problems are said once, in the command's own words (below), not logged.
  const redis = connectRedis(config.redis, silentLogger, {
    ...connection,
    maxRetriesPerRequest: 1,
  });
  const where = describeRedis(config.redis);
  const reach = reaching.watchReach(redis, where);
  // QueueEvents reads with blocking commands: BullMQ requires maxRetriesPerRequest null there.
  // Its connection is ours to close: QueueEvents.close() leaves a connection it was given open,
  // and an open socket kept every `thm run --wait` alive for another second after its answer.
  const eventsConnection = options.wait
    ? connectRedis(config.redis, silentLogger, connection)
    : undefined;
  let queue: import('bullmq').Queue<CheckJobData> | undefined;
  let events: import('bullmq').QueueEvents | undefined;
  try {
    if (options.wait) {
      // One line when Redis goes away (or is not there at first), one when it is back: not a
      // silent terminal until the timeout.
      let away = false;
      redis.on('error', (error: Error) => {
        // (A cause waiting cannot remove ends the wait at once, and is said then.)
        if (away || redis.status === 'ready' || reaching.isPermanent(error)) return;
        away = true;
        process.stderr.write(
          `thm: cannot reach ${where}: ${reaching.unreachableReason(error)}; trying until --timeout (${Math.round(timeoutMs / 1000)} s)\n`,
        );
      });
      redis.on('ready', () => {
        if (!away) return;
        away = false;
        process.stderr.write(`thm: ${where} answers again\n`);
      });
    }
    // Loaded while the connections are made (the socket's handshake goes on meanwhile).
    const [{ loadBullmq }, { RedisStore }] = await Promise.all([
      import('../../cjs-packages.js'),
      import('../../store/redis-store.js'),
    ]);
    const { Queue, QueueEvents } = loadBullmq();
    if (options.wait)
      await reach.ready(Math.max(0, deadline - Date.now()), `${timeoutMs / 1000} s`);
    else await reach.ready(CLI_CONNECT_TIMEOUT_MS);
    queue = new Queue<CheckJobData>(CHECKS_QUEUE, {
      connection: redis,
      prefix: config.redis.prefix,
    });
    events = eventsConnection
      ? new QueueEvents(CHECKS_QUEUE, {
          connection: eventsConnection,
          prefix: config.redis.prefix,
        })
      : undefined;
    const store = new RedisStore(redis, config.redis.prefix);
    // Before anything is enqueued: a refused --date enqueues nothing, for any network. The
    // events' stream gets ready meanwhile, and is ready before a refusal closes it: BullMQ leaves
    // a connection closed half-way with a rejection no handler is left for (the health check's
    // canary worker exited 1 on one).
    const settled = await Promise.allSettled([
      options.date ? checkRequestedAsOf(store, kind, networks, options.date) : undefined,
      events?.waitUntilReady(),
    ]);
    for (const result of settled) if (result.status === 'rejected') throw result.reason;
    const jobs: Array<{ network: NetworkConfig } & EnqueuedRun> = [];
    for (const network of networks) {
      const enqueued = await enqueueManualRun(queue, {
        kind,
        network,
        asOf: options.date,
        force: options.force,
        attempts: config.worker.attempts,
        backoffMs: config.worker.backoffMs,
      });
      jobs.push({ network, ...enqueued });
    }
    // Each network's waiter listens on the events and (BullMQ's waitUntilFinished) on the queue:
    // Node's bound of 10 listeners is there to find leaks, not to refuse a fleet's run.
    queue.setMaxListeners(jobs.length + 10);
    events?.setMaxListeners(jobs.length + 10);
    const waitMs = Math.max(0, deadline - Date.now());
    const reports: JobReport[] = await Promise.all(
      jobs.map(async ({ network, job, joined }): Promise<JobReport> => {
        const base = { network: network.id, jobId: job.id ?? '', asOf: job.data.asOf ?? '' };
        if (!events) return { ...base, state: 'queued' };
        const result = await waitForJob<CheckOutcome>(queue!, job, events, waitMs);
        if (result.state !== 'completed')
          return { ...base, state: result.state, error: result.error };
        const outcome = joined ? asJoined(result.value) : result.value;
        const report: JobReport = { ...base, state: 'completed', outcome };
        if (
          (outcome.notificationIds ?? outcome.notifications).length > 0 ||
          (outcome.deliveryIds ?? []).length > 0
        ) {
          const { emails, channels } = await deliveryOf(store, outcome, deadline);
          if (emails.length > 0) report.emails = emails;
          if (channels.length > 0) report.channels = channels;
        }
        return report;
      }),
    );
    print(kind, reports, options.json);
    const failed = reports.some(
      (r) =>
        r.state === 'failed' ||
        r.state === 'timeout' ||
        r.state === 'delayed' ||
        [...(r.emails ?? []), ...(r.channels ?? [])].some((e) => e.state === 'failed'),
    );
    return failed ? EXIT_FAILED : 0;
  } catch (error) {
    throw reach.explain(error);
  } finally {
    reach.stop();
    await events?.close();
    eventsConnection?.disconnect();
    await queue?.close();
    redis.disconnect();
  }
}

function print(kind: CheckKind, reports: JobReport[], json?: boolean): void {
  if (json) {
    printJson({ kind, jobs: reports });
    return;
  }
  for (const r of reports) {
    const head = `${kind} ${r.network} ${r.asOf}`;
    if (r.state === 'queued') printLine(`${head}: queued as job ${r.jobId}`);
    else if (r.state !== 'completed' || !r.outcome)
      printLine(`${head}: ${r.state}: ${r.error ?? ''}`);
    else printLine(`${head}: ${describeOutcome(r.outcome, r.emails, r.channels)}`);
  }
}

function describeEmail(e: EmailReport): string {
  const subject = `"${e.subject}"`;
  switch (e.state) {
    case 'sent':
      return `e-mail sent: ${subject}`;
    case 'failed':
      return `e-mail refused by the mail server (${e.error ?? 'no reason given'}): ${subject}`;
    case 'pending':
      return `e-mail not sent yet${e.error ? ` (${e.error}; retrying)` : ' (queued)'}: ${subject}`;
    case 'unknown':
      return `e-mail decided: ${subject}`;
  }
}

function describeChannel(c: ChannelReport): string {
  const subject = `"${c.subject}"`;
  switch (c.state) {
    case 'sent':
      return `${c.channel} posted: ${subject}`;
    case 'failed':
      return `${c.channel} refused by the endpoint (${c.error ?? 'no reason given'}): ${subject}`;
    case 'pending':
      return `${c.channel} not posted yet${c.error ? ` (${c.error}; retrying)` : ' (queued)'}: ${subject}`;
    case 'unknown':
      return `${c.channel} decided: ${subject}`;
  }
}

export function describeOutcome(
  o: CheckOutcome,
  emails?: EmailReport[],
  channels?: ChannelReport[],
): string {
  const parts: string[] = [
    o.status === 'already-done'
      ? 'already done for this date (use --force to run again)'
      : o.outcome === 'premium-inactive'
        ? 'premium inactive'
        : 'ok',
  ];
  parts.push(
    ...describeDrops(
      o.drops,
      o.notifications.some((n) => n.kind === 'alert'),
    ),
  );
  if (o.counts) {
    parts.push(PAIR_CLASSES.map((c) => `${o.counts?.[c] ?? 0} ${c}`).join(', '));
    if (o.pairsListed !== undefined) parts.push(`${o.pairsListed} pairs listed`);
  }
  if (emails && emails.length > 0) {
    parts.push(...emails.map((e) => (o.status === 'done' ? '' : 'earlier ') + describeEmail(e)));
  } else if (o.status === 'done') {
    parts.push(
      o.notifications.length > 0
        ? `e-mail decided: ${o.notifications.map((n) => `"${n.subject}"`).join('; ')}`
        : 'no e-mail',
    );
  }
  for (const c of channels ?? [])
    parts.push((o.status === 'done' ? '' : 'earlier ') + describeChannel(c));
  return parts.join('; ');
}
