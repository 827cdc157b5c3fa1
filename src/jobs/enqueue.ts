import { randomUUID } from 'node:crypto';
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { NetworkConfig } from '../config/load.js';
import { localDate } from '../dates.js';
import type { CheckJobData } from './job-data.js';
import type { CheckOutcome } from './traffic-check.js';
import { manualJobId, type CheckKind } from './names.js';

export interface ManualTrigger {
  kind: CheckKind;
  network: NetworkConfig;
  /** Default: today in the network's time zone. */
  asOf?: string;
  force?: boolean;
  attempts: number;
  backoffMs: number;
  now?: number;
}

/**
 * Enqueue a run by hand into the queue the schedulers use. Triggers of the same network, kind
 * and date share a job id, so simultaneous ones do the work once; the run record makes a later
 * one a no-op that returns the first result. `force` gets a job of its own.
 */
export interface EnqueuedRun {
  job: Job<CheckJobData>;
  /**
   * The same network, kind and date had a job already (waiting, running, or finished within the
   * hour): this trigger joins it instead of doing the work again.
   */
  joined: boolean;
}

export async function enqueueManualRun(
  queue: Queue<CheckJobData>,
  trigger: ManualTrigger,
): Promise<EnqueuedRun> {
  const asOf = trigger.asOf ?? localDate(trigger.now ?? Date.now(), trigger.network.timezone);
  const forceToken = trigger.force ? randomUUID().slice(0, 8) : undefined;
  const jobId = manualJobId(trigger.kind, trigger.network.id, asOf, forceToken);
  const joined = (await queue.getJob(jobId)) !== undefined;
  const job = await queue.add(
    trigger.kind,
    { networkId: trigger.network.id, asOf, force: trigger.force || undefined, trigger: 'manual' },
    {
      jobId,
      attempts: trigger.attempts,
      backoff: { type: 'exponential', delay: trigger.backoffMs, jitter: 0.5 },
      removeOnComplete: { age: 3_600 },
      // A failed trigger must not make the next one (after a fix) a no-op.
      removeOnFail: true,
    },
  );
  return { job, joined };
}

/** What a trigger that joined a finished job reports: the first result, marked as such. */
export function asJoined(outcome: CheckOutcome): CheckOutcome {
  return outcome.status === 'done'
    ? { ...outcome, status: 'already-done', notifications: [] }
    : outcome;
}

export type WaitResult<T> =
  { state: 'completed'; value: T } | { state: 'failed' | 'timeout'; error: string };

/** Follow an enqueued job to its end (QueueEvents must be ready before the job was added). */
export async function waitForJob<T>(
  job: Job,
  events: QueueEvents,
  timeoutMs: number,
): Promise<WaitResult<T>> {
  try {
    return { state: 'completed', value: (await job.waitUntilFinished(events, timeoutMs)) as T };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/timed out/i.test(message))
      return {
        state: 'timeout',
        error: `no outcome within ${Math.round(timeoutMs / 1000)} s (is a worker running?)`,
      };
    return { state: 'failed', error: message };
  }
}
