import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq';
import type { JobOutcomeLabel, WorkerMetrics } from '../observability/metrics.js';
import type { CheckJobData } from './job-data.js';
import { CHECK_KINDS, type CheckKind } from './names.js';
import type { CheckOutcome } from './traffic-check.js';

/**
 * Metrics around the check processors, as wrappers: the processors stay as they are, and what
 * a job did is read from what it returned or threw. Deliveries are counted by the senders
 * themselves (their `onOutcome`), which have the notification's kind and channel at hand.
 */

/** The `outcome` label of a check job that threw: tried again later, or failed for good. */
export function failedJobOutcome(
  error: unknown,
  job: Pick<Job, 'attemptsMade' | 'opts'>,
): JobOutcomeLabel {
  if (error instanceof DelayedError) return 'delayed';
  if (error instanceof UnrecoverableError) return 'failed';
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1) ? 'failed' : 'retry';
}

export function doneJobOutcome(outcome: CheckOutcome): JobOutcomeLabel {
  return outcome.status === 'already-done' ? 'already-done' : outcome.outcome;
}

export function observeCheckJobs(
  processor: Processor<CheckJobData, CheckOutcome>,
  metrics: WorkerMetrics,
): Processor<CheckJobData, CheckOutcome> {
  return async (job, token) => {
    const kind = CHECK_KINDS.includes(job.name as CheckKind) ? job.name : 'unknown';
    const networkId = (job.data as Partial<CheckJobData> | undefined)?.networkId;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    let outcome: CheckOutcome;
    try {
      outcome = await processor(job, token);
    } catch (error) {
      metrics.recordJob(kind, networkId, failedJobOutcome(error, job), seconds());
      throw error;
    }
    metrics.recordJob(kind, networkId, doneJobOutcome(outcome), seconds());
    if (outcome.status === 'done') {
      for (const n of outcome.notifications)
        metrics.recordNotification(networkId, n.kind, 'decided');
      for (const d of outcome.deliveries)
        metrics.recordNotification(networkId, d.kind, 'decided', d.channel);
    }
    return outcome;
  };
}
