import { UnrecoverableError, type Job, type Processor } from 'bullmq';
import { formatIssues } from '../config/load.js';
import { localDate } from '../dates.js';
import { futureAsOfProblem } from './as-of.js';
import { checkJobDataSchema, type CheckJobData } from './job-data.js';
import { describeFailure, isFinalFailure, toBullMqError } from './failures.js';
import { heartbeatUrl, pingHeartbeat } from './heartbeat.js';
import { runInvoiceSnapshot } from './invoice-snapshot.js';
import { CHECK_KINDS, type CheckKind } from './names.js';
import type { Runtime } from './runtime.js';
import { recordTrafficFailure, runTrafficCheck, type CheckOutcome } from './traffic-check.js';

/**
 * The time a job stands for: a scheduled job's fire time (its creation plus its delay), which
 * stays the same across retries, so a run retried after midnight keeps its as-of date.
 */
export function scheduledTime(job: Pick<Job, 'timestamp' | 'opts'>): number {
  return job.timestamp + (job.opts.delay ?? 0);
}

/** How far another machine's clock (the CLI's that named a job's date) may run ahead. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** The BullMQ processor of the checks queue: validates the job, runs it, maps its failures. */
export function createCheckProcessor(rt: Runtime): Processor<CheckJobData, CheckOutcome> {
  return async (job, token) => {
    const parsed = checkJobDataSchema.safeParse(job.data);
    if (!parsed.success)
      throw new UnrecoverableError(`invalid job data: ${formatIssues(parsed.error.issues)}`);
    if (!CHECK_KINDS.includes(job.name as CheckKind))
      throw new UnrecoverableError(`unknown job kind "${job.name}"`);
    const kind = job.name as CheckKind;
    const data = parsed.data;
    let network;
    try {
      network = rt.network(data.networkId);
    } catch (error) {
      throw new UnrecoverableError(describeFailure(error).message);
    }
    // A date after today is refused before anything happens: no heartbeat, no run record, no
    // problem episode. (`thm run --date` refuses it too; this is for a job made some other way.)
    // Today as of a few minutes ahead: a CLI whose clock runs ahead of this machine's names
    // tomorrow's date a moment before midnight here.
    if (data.asOf !== undefined) {
      const today = localDate(rt.now() + CLOCK_SKEW_MS, network.timezone);
      const future = futureAsOfProblem(data.asOf, today);
      if (future)
        throw new UnrecoverableError(`as-of date ${data.asOf} of network ${network.id} ${future}`);
    }
    const asOf = data.asOf ?? localDate(scheduledTime(job), network.timezone);
    const log = rt.logger.child({ network: network.id, kind, jobId: job.id, asOf });
    const request = { networkId: network.id, asOf, force: data.force };
    const startedAt = rt.now();
    const heartbeat = heartbeatUrl(rt.config, network, kind);
    await pingHeartbeat(heartbeat, 'start', log);
    try {
      const outcome =
        kind === 'traffic-check'
          ? await runTrafficCheck(rt, request)
          : await runInvoiceSnapshot(rt, request);
      log.info(
        {
          status: outcome.status,
          outcome: outcome.outcome,
          counts: outcome.counts,
          emails: outcome.notifications.length,
        },
        `${kind} finished`,
      );
      await pingHeartbeat(heartbeat, 'success', log);
      return outcome;
    } catch (error) {
      const final = isFinalFailure(error, job);
      const failure = describeFailure(error);
      log[final ? 'error' : 'warn'](
        { code: failure.code, attempt: job.attemptsMade + 1, final },
        `${kind} failed: ${failure.message}`,
      );
      if (final) {
        if (kind === 'traffic-check') {
          await recordTrafficFailure(rt, request, error, startedAt).catch((recordError: unknown) =>
            log.error(
              { code: describeFailure(recordError).code },
              `could not record the failure: ${describeFailure(recordError).message}`,
            ),
          );
        }
        await pingHeartbeat(heartbeat, 'fail', log);
      }
      throw await toBullMqError(error, job, token);
    }
  };
}
