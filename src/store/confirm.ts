import type { Redis } from 'ioredis';
import { ThmError } from '../errors.js';
import { connectionFor, type RedisClient } from '../redis/connection.js';
import { withTimeout } from '../with-timeout.js';

/**
 * Confirmed writes. Redis replicates asynchronously: a master acknowledges a write before any
 * replica has it, and a failover promotes a replica that may not. Worse, a Sentinel failover
 * leaves the old master accepting writes for a moment after its replica was promoted (until the
 * Sentinels demote it, or `min-replicas-max-lag` runs out): those writes are thrown away when
 * it resyncs. So a write that must not be taken back (a run's commit, the claim before an
 * e-mail goes out) waits for `replicas` replicas to have it (WAIT) before it counts.
 *
 * What can happen while waiting, and what it means:
 * - the replicas acknowledge: confirmed, the write survives a failover;
 * - the connection is lost, or the node says it is no longer master: the write is in doubt (it
 *   may or may not be on the new master). `WriteNotConfirmed` (retryable): the caller reads the
 *   state again from the new master and sees which;
 * - neither within `timeoutMs`, the node still master: no failover demoted it in that time (a
 *   failover window is shorter), so it is a master without a working replica (one node down,
 *   or cut off from it). The write stands, reported through `onUnconfirmed`: refusing every
 *   write while a replica is down would stop the monitor for want of a spare. Redis'
 *   `min-replicas-to-write` / `min-replicas-max-lag` (docs/operations.md) is what makes a
 *   cut-off master refuse writes before this timeout.
 */
export interface ConfirmOptions {
  /** Replicas that must have the write; 0 writes without waiting. */
  replicas: number;
  timeoutMs: number;
  /** A write kept without a replica's acknowledgement (the node still master after the wait). */
  onUnconfirmed?: (operation: string, why: string) => void;
}

export class WriteNotConfirmed extends ThmError {
  constructor(operation: string, why: string) {
    super('THM_STORE', `redis ${operation}: write not confirmed by a replica: ${why}`, {
      retryable: true,
    });
    this.name = 'WriteNotConfirmed';
  }
}

/** One WAIT at most this long, then ROLE: a node demoted meanwhile is noticed within it. */
const WAIT_STEP_MS = 500;

/**
 * Runs `write` (commands on `key`) and returns its result once confirmed. WAIT counts the
 * writes of the connection it is sent on, so it goes to the connection that carries `key`'s
 * commands, fixed before the write; a reconnect in between (a new connection has written
 * nothing) is a lost connection, not a confirmation.
 */
export async function writeConfirmed<T>(
  client: RedisClient,
  key: string,
  options: ConfirmOptions,
  operation: string,
  write: () => Promise<T>,
): Promise<T> {
  if (options.replicas <= 0) return write();
  const node = await connectionFor(client, key);
  const connected = connectionCount(node);
  const result = await write();
  const deadline = Date.now() + options.timeoutMs;
  let acked = 0;
  for (;;) {
    const step = Math.max(1, Math.min(WAIT_STEP_MS, deadline - Date.now()));
    try {
      acked = await withTimeout(node.wait(options.replicas, step), step + 2_000, 'redis');
      if (connectionCount(node) !== connected) throw new Error('the connection was lost');
      if (acked >= options.replicas) return result;
      const [role] = (await withTimeout(node.role(), 2_000, 'redis')) as [string];
      if (role !== 'master') throw new Error(`the node it went to is now a ${role}`);
    } catch (error) {
      throw new WriteNotConfirmed(
        operation,
        error instanceof Error ? error.message : String(error),
      );
    }
    if (Date.now() >= deadline) {
      options.onUnconfirmed?.(
        operation,
        `${acked} of ${options.replicas} replicas acknowledged within ${options.timeoutMs} ms; the node is still master, the write stands`,
      );
      return result;
    }
  }
}

/** How many times each node connection (re)connected, counted from the first look at it. */
const connects = new WeakMap<Redis, { count: number }>();

function connectionCount(node: Redis): number {
  let counter = connects.get(node);
  if (!counter) {
    const c = { count: 0 };
    node.on('connect', () => (c.count += 1));
    connects.set(node, c);
    counter = c;
  }
  return counter.count;
}
