import type { Worker } from 'bullmq';
import { withTimeout } from '../with-timeout.js';
import { RECONNECT_MAX_DELAY_MS } from './connection.js';

/** How long a reconnecting worker connection is given to come back before a forced close. */
const BACK_WITHIN_MS = RECONNECT_MAX_DELAY_MS + 1_000;

/**
 * Closes a BullMQ worker, gracefully (its active jobs finish) unless its own connection does not
 * come back.
 *
 * BullMQ's close interrupts the worker's blocking command by disconnecting that connection and
 * waiting for it to end. Between two reconnection attempts (Redis just restarted, the next
 * attempt's timer pending) ioredis never says it ended: the timer is cleared and no socket is
 * left to close. The close then waited forever, and a worker stopped right after a Redis restart
 * hung until it was killed. So a connection that is reconnecting is first given its next attempt
 * (the longest wait between two is `RECONNECT_MAX_DELAY_MS`); one still not back after that is
 * closed by force, its active jobs left to their locks, as when Redis is gone.
 */
export async function closeWorker(worker: Worker, backWithinMs = BACK_WITHIN_MS): Promise<void> {
  const blocking = await within(worker.waitUntilReady(), backWithinMs);
  if (blocking?.status !== 'reconnecting') return worker.close(blocking === undefined);
  let settle = () => {};
  const settled = new Promise<true>((resolve) => (settle = () => resolve(true)));
  blocking.once('ready', settle).once('end', settle);
  const back = await within(settled, backWithinMs);
  blocking.off('ready', settle).off('end', settle);
  return worker.close(back !== true);
}

/** What `promise` gives within `ms`; undefined if it rejects or is late. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return withTimeout(promise, ms, 'worker connection').catch(() => undefined);
}
