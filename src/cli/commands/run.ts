import { Queue, QueueEvents } from 'bullmq';
import type { Command } from 'commander';
import { z } from 'zod';
import type { Config, NetworkConfig } from '../../config/load.js';
import { isIsoDate } from '../../dates.js';
import { EXIT_FAILED, UsageError } from '../../errors.js';
import { checkRequestedAsOf } from '../../jobs/as-of.js';
import { asJoined, enqueueManualRun, waitForJob, type EnqueuedRun } from '../../jobs/enqueue.js';
import type { CheckJobData } from '../../jobs/job-data.js';
import { CHECK_KINDS, CHECKS_QUEUE, type CheckKind } from '../../jobs/names.js';
import { connectRedis } from '../../jobs/redis.js';
import type { CheckOutcome } from '../../jobs/traffic-check.js';
import { PAIR_CLASSES } from '../../monitor/types.js';
import { RedisStore } from '../../store/redis-store.js';
import { cliLogger, loadCliConfig, selectNetworks } from '../context.js';
import { printJson, printLine } from '../output.js';

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
        "as-of date (default: today in the network's time zone); at most one day ahead, and not older than the newest run unless that date already ran",
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
}

interface EmailReport {
  id: string;
  kind: string;
  subject: string;
  /** pending: not accepted yet (retried); unknown: no longer in the outbox. */
  state: 'sent' | 'pending' | 'failed' | 'unknown';
  error?: string;
}

/**
 * Polls the outbox until every e-mail of the run is sent or refused, or until `deadline`. The
 * subject comes from the outbox (an already-done run's e-mails were decided by another job).
 */
async function deliveryOf(
  store: RedisStore,
  outcome: CheckOutcome,
  deadline: number,
): Promise<EmailReport[]> {
  const ids = outcome.notificationIds ?? outcome.notifications.map((n) => n.id);
  const decided = new Map(outcome.notifications.map((n) => [n.id, n]));
  for (;;) {
    const entries = await Promise.all(ids.map((id) => store.getNotification(id)));
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
    if (reports.every((r) => r.state !== 'pending') || Date.now() >= deadline) return reports;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function runKind(config: Config, kind: CheckKind, options: RunOptions): Promise<number> {
  const logger = cliLogger(config);
  const networks = selectNetworks(config, options);
  const failFast = { maxRetriesPerRequest: 1, retryStrategy: (n: number) => (n > 3 ? null : 200) };
  const redis = connectRedis(config.redis, logger, failFast);
  const queue = new Queue<CheckJobData>(CHECKS_QUEUE, {
    connection: redis,
    prefix: config.redis.prefix,
  });
  // QueueEvents reads with blocking commands: BullMQ requires maxRetriesPerRequest null there.
  const events = options.wait
    ? new QueueEvents(CHECKS_QUEUE, {
        connection: connectRedis(config.redis, logger, {
          retryStrategy: failFast.retryStrategy,
        }),
        prefix: config.redis.prefix,
      })
    : undefined;
  const store = new RedisStore(redis, config.redis.prefix);
  try {
    // Before anything is enqueued: a refused --date enqueues nothing, for any network.
    if (options.date) await checkRequestedAsOf(store, kind, networks, options.date);
    await events?.waitUntilReady();
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
    const timeoutMs = (options.timeout ?? 120) * 1000;
    const deadline = Date.now() + timeoutMs;
    const reports: JobReport[] = await Promise.all(
      jobs.map(async ({ network, job, joined }): Promise<JobReport> => {
        const base = { network: network.id, jobId: job.id ?? '', asOf: job.data.asOf ?? '' };
        if (!events) return { ...base, state: 'queued' };
        const result = await waitForJob<CheckOutcome>(job, events, timeoutMs);
        if (result.state !== 'completed')
          return { ...base, state: result.state, error: result.error };
        const outcome = joined ? asJoined(result.value) : result.value;
        const report: JobReport = { ...base, state: 'completed', outcome };
        if ((outcome.notificationIds ?? outcome.notifications).length > 0) {
          report.emails = await deliveryOf(store, outcome, deadline);
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
        (r.emails ?? []).some((e) => e.state === 'failed'),
    );
    return failed ? EXIT_FAILED : 0;
  } finally {
    await events?.close();
    await queue.close();
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
    else printLine(`${head}: ${describeOutcome(r.outcome, r.emails)}`);
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

export function describeOutcome(o: CheckOutcome, emails?: EmailReport[]): string {
  const parts: string[] = [
    o.status === 'already-done'
      ? 'already done for this date (use --force to run again)'
      : o.outcome === 'premium-inactive'
        ? 'premium inactive'
        : 'ok',
  ];
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
  return parts.join('; ');
}
