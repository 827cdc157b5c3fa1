import type { Redis } from 'ioredis';
import { loadIoredis } from '../cjs-packages.js';
import { connectionFor, type RedisClient } from './connection.js';

/**
 * Which Redis node a connection writes to, asked of the node itself (ROLE), for `/healthz` and
 * `thm status`. A failover can leave a connection on the wrong node while Redis still answers
 * PING: a demoted master (now a replica, refusing writes), or on a Cluster a node that no longer
 * owns the slot of the monitor's keys. Said within one check, not after the canary's minutes.
 */
export interface RedisRole {
  /** "host:port" of the node the monitor's keys are written to. */
  node: string;
  /** `master`, `slave` (a replica), ... as ROLE says. */
  role: string;
  /** Replicas connected to it (a master's ROLE lists them). */
  replicas: number;
  /** One line per problem, starting with "redis: " (empty when none). */
  problems: string[];
}

/**
 * `key` is one of the monitor's keys (all share one slot on a Cluster); `confirmReplicas` is
 * `redis.confirmReplicas`: fewer replicas connected means commits cannot be confirmed. A
 * Cluster client found routing to a node that no longer owns the slot is told to refresh its
 * slot map (the next command would have been redirected anyway).
 */
export async function checkRedisRole(
  client: RedisClient,
  key: string,
  confirmReplicas: number,
): Promise<RedisRole> {
  const node = await connectionFor(client, key);
  const address = nodeAddress(node);
  const reply = (await node.role()) as unknown[];
  const role = String(reply[0]);
  const problems: string[] = [];
  let replicas = 0;
  if (role === 'master') {
    replicas = Array.isArray(reply[2]) ? reply[2].length : 0;
    if (client instanceof loadIoredis().Cluster) {
      const owner = await slotOwner(node, key);
      if (owner !== undefined && owner !== address) {
        problems.push(
          `redis: ${address} no longer owns the slot of the monitor's keys (${owner} does); the client is refreshing its slot map`,
        );
      }
    }
    if (replicas < confirmReplicas)
      problems.push(
        `redis: ${address} has ${replicas} of ${confirmReplicas} replicas connected: commits are not confirmed (redis.confirmReplicas), each waits redis.confirmTimeoutMs`,
      );
  } else {
    const of = role === 'slave' ? ` of ${String(reply[1])}:${String(reply[2])}` : '';
    problems.push(
      `redis: connected to ${address}, which is a ${role === 'slave' ? 'replica' : role}${of}: writes are refused until the connection moves to the master`,
    );
  }
  // The next command would be redirected anyway; refreshing now makes the next check true.
  if (problems.length > 0 && client instanceof loadIoredis().Cluster) client.refreshSlotsCache();
  return { node: address, role, replicas, problems };
}

/** The master of `key`'s slot as `node` itself sees the Cluster (CLUSTER SLOTS). */
async function slotOwner(node: Redis, key: string): Promise<string | undefined> {
  const slot = (await node.cluster('KEYSLOT', key)) as number;
  const ranges = (await node.cluster('SLOTS')) as unknown as Array<
    [number, number, [string, number]]
  >;
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  return range ? `${range[2][0]}:${range[2][1]}` : undefined;
}

/**
 * Where the connection really goes: its socket's peer (with Sentinels, `options` hold no
 * address: the Sentinels gave it), else the configured host and port.
 */
function nodeAddress(node: Redis): string {
  const socket = node.stream as { remoteAddress?: string; remotePort?: number } | undefined;
  if (socket?.remoteAddress && socket.remotePort)
    return `${socket.remoteAddress.replace(/^::ffff:/, '')}:${socket.remotePort}`;
  return `${node.options.host}:${node.options.port}`;
}
