import { execPipeline } from '../redis/pipeline.js';
import type { RedisClient } from '../redis/connection.js';

/**
 * What `thm status` reads of the BullMQ queues, read straight from Redis: each queue's job
 * counts and each job scheduler's next time. Loading BullMQ for it would be a large part of a
 * status's start, and its per-scheduler reads a round trip per network and kind. This couples
 * status to BullMQ's key layout, pinned by the version in
 * package.json; test/jobs/queue-reads.test.ts compares every figure with BullMQ's own on real
 * queues, so an upgrade that moves a key fails there.
 *
 * The layout (BullMQ 5, `QueueKeys.toKey`): a queue's keys are `<prefix>:<queue>:<type>`.
 * `wait`, `paused` and `active` are lists; `delayed`, `prioritized`, `completed`, `failed` and
 * `waiting-children` are sorted sets; `repeat` is the sorted set of job schedulers, scored by
 * their next time in epoch milliseconds.
 */

/** The job states status reports, as BullMQ's `getJobCounts` names them. */
export const COUNTED_STATES = ['active', 'waiting', 'delayed', 'failed', 'completed'] as const;
export type CountedState = (typeof COUNTED_STATES)[number];

const LISTS = new Set(['wait', 'paused', 'active']);

/**
 * The states BullMQ's `getJobCounts(...states)` answers for, in its order: it adds `paused` to
 * `waiting` (a paused queue's waiting jobs), and reads `waiting` from the `wait` key.
 */
function reportedStates(states: readonly string[]): string[] {
  return [...new Set(states.includes('waiting') ? [...states, 'paused'] : states)];
}

/** BullMQ's key type of a state: `waiting` is kept in `wait`. */
const typeOf = (state: string): string => (state === 'waiting' ? 'wait' : state);

function keyOf(prefix: string, queue: string, state: string): string {
  return `${prefix}:${queue}:${typeOf(state)}`;
}

/**
 * Job counts per queue, the same object BullMQ's `queue.getJobCounts(...states)` gives, for
 * several queues in one round trip.
 */
export async function readJobCounts(
  redis: RedisClient,
  prefix: string,
  queues: readonly string[],
  states: readonly CountedState[] = COUNTED_STATES,
): Promise<Record<string, Record<string, number>>> {
  const reported = reportedStates(states);
  const pipeline = redis.pipeline();
  for (const queue of queues)
    for (const state of reported) {
      const key = keyOf(prefix, queue, state);
      if (LISTS.has(typeOf(state))) pipeline.llen(key);
      else pipeline.zcard(key);
    }
  const replies = await execPipeline(pipeline);
  const counts: Record<string, Record<string, number>> = {};
  queues.forEach((queue, q) => {
    counts[queue] = Object.fromEntries(
      reported.map((state, s) => [state, Number(replies[q * reported.length + s] ?? 0)]),
    );
  });
  return counts;
}

/** Every job scheduler of a queue and its next time (epoch ms), in one read. */
export async function readSchedulerNextTimes(
  redis: RedisClient,
  prefix: string,
  queue: string,
): Promise<Map<string, number>> {
  const flat = await redis.zrange(keyOf(prefix, queue, 'repeat'), 0, -1, 'WITHSCORES');
  const next = new Map<string, number>();
  for (let i = 0; i < flat.length; i += 2) next.set(flat[i]!, Number(flat[i + 1]));
  return next;
}
