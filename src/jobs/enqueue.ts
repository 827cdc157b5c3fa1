import { randomUUID } from 'node:crypto';
import type { Job, Queue, QueueEvents } from 'bullmq';
import { loadBullmq } from '../cjs-packages.js';
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
  const existing = await queue.getJob(jobId);
  // A failed trigger must not make the next one (after a fix) a no-op: it is removed first.
  const failedBefore = existing !== undefined && (await existing.isFailed());
  if (failedBefore) await existing.remove().catch(() => undefined);
  const joined = existing !== undefined && !failedBefore;
  const job = await queue.add(
    trigger.kind,
    { networkId: trigger.network.id, asOf, force: trigger.force || undefined, trigger: 'manual' },
    {
      jobId,
      attempts: trigger.attempts,
      backoff: { type: 'exponential', delay: trigger.backoffMs, jitter: 0.5 },
      removeOnComplete: { age: 3_600 },
      // Kept a while, so a waiter (thm run --wait) reads the failure's reason from the job
      // rather than BullMQ's "Missing key for job" when the failure beat it to the job.
      removeOnFail: { age: 3_600 },
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
  { state: 'completed'; value: T } | { state: 'failed' | 'timeout' | 'delayed'; error: string };

/** BullMQ's own words when waitUntilFinished gives up (an API's "timed out" is a failure). */
const WAIT_TIMED_OUT = /^Job wait .* timed out before finishing/;

/**
 * Follow an enqueued job of `queue` to its end (QueueEvents must be ready before the job was
 * added).
 */
export async function waitForJob<T>(
  queue: Queue,
  job: Job,
  events: QueueEvents,
  timeoutMs: number,
): Promise<WaitResult<T>> {
  // A job the worker moved to delayed (the API's Retry-After lies beyond the retry budget) has
  // no outcome yet: the waiter says until when, and stops waiting when that is past its time.
  let delayedUntil: number | undefined;
  let stopWaiting: (() => void) | undefined;
  const deadline = Date.now() + timeoutMs;
  const onDelayed = ({ jobId, delay }: { jobId: string; delay: number | string }) => {
    if (jobId !== job.id) return;
    delayedUntil = Number(delay);
    if (delayedUntil > deadline) stopWaiting?.();
  };
  events.on('delayed', onDelayed);
  const delayed = new Promise<'delayed'>((resolve) => (stopWaiting = () => resolve('delayed')));
  // The event can be missed (a job delayed before the event stream's first read): the poll
  // sees the delayed state too.
  const polled = pollUntilFinished<T>(queue, job.id ?? '', timeoutMs, (until) =>
    onDelayed({ jobId: job.id ?? '', delay: until }),
  );
  try {
    const result = await Promise.race([
      job.waitUntilFinished(events, timeoutMs),
      delayed,
      polled.finished,
    ]);
    if (result !== 'delayed' || delayedUntil === undefined)
      return { state: 'completed', value: result as T };
    return delayedResult(delayedUntil);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!WAIT_TIMED_OUT.test(message)) return { state: 'failed', error: message };
    if (delayedUntil !== undefined && delayedUntil > Date.now()) return delayedResult(delayedUntil);
    return {
      state: 'timeout',
      error: `no outcome within ${Math.round(timeoutMs / 1000)} s (is a worker running?)`,
    };
  } finally {
    events.off('delayed', onDelayed);
    polled.stop();
  }
}

/**
 * Asks for the job's state every `intervalMs`, beside the event stream: an event written in a
 * Redis master's last moments before a failover can be lost, the job's own state is what the
 * new master has. Redis errors (away for a moment) are asked through; it never rejects, and
 * resolves only with a finished job (a failure as the same rejection waitUntilFinished gives).
 * A delayed job is reported to `onDelayed` with until when, as the 'delayed' event would.
 */
function pollUntilFinished<T>(
  queue: Queue,
  jobId: string,
  timeoutMs: number,
  onDelayed: (until: number) => void,
  intervalMs = 2_000,
): { finished: Promise<T>; stop: () => void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const finished = new Promise<T>((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const poll = async () => {
      if (stopped || Date.now() > deadline) return;
      try {
        // The state first, then the job: its return value (or failure reason) is written in the
        // same step as the move to completed (failed), so a job read after that state has it. Read
        // the other way round, a job that finishes in between is 'completed' with a null value.
        const state = await queue.getJobState(jobId);
        if (state === 'completed' || state === 'failed') {
          const current = await loadBullmq().Job.fromId(queue, jobId);
          if (current && state === 'completed') return resolve(current.returnvalue as T);
          if (current) return reject(new Error(current.failedReason || 'failed'));
        }
        if (state === 'delayed') {
          // Until when: the delayed set's score, BullMQ's timestamp * 0x1000 + a counter.
          const client = await queue.client;
          const score = await client.zscore(queue.toKey('delayed'), jobId);
          if (score !== null) onDelayed(Math.floor(Number(score) / 0x1000));
        }
      } catch {
        // Redis restarting or failing over: the next poll asks again.
      }
      if (!stopped) timer = setTimeout(() => void poll(), intervalMs);
    };
    timer = setTimeout(() => void poll(), intervalMs);
  });
  return {
    finished,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function delayedResult(until: number): { state: 'delayed'; error: string } {
  return {
    state: 'delayed',
    error: `delayed until ${new Date(until).toISOString()} (the API asked to retry later); a worker runs it then`,
  };
}
