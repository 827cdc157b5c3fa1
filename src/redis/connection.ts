import type { Cluster, ClusterOptions, Redis, RedisOptions, SentinelConnector } from 'ioredis';
import { loadIoredis } from '../cjs-packages.js';
import type { RedisConfig } from '../config/load.js';
import { redactUrl } from '../config/secret.js';
import type { Logger } from '../log.js';

/**
 * Every Redis connection of the product is made here (worker, CLI, store, health, demo): one
 * node (`redis.url`), a Sentinel-managed master (`redis.sentinel`) or a Cluster
 * (`redis.cluster`), as BullMQ documents them. The rest of the code sees a `RedisClient` and
 * uses the helpers below where a Cluster differs (SCAN per master, duplicate, readiness).
 */
export type RedisClient = Redis | Cluster;

/** ioredis's classes, required (see cjs-packages.ts). */
const ioredis = loadIoredis();

/**
 * `maxRetriesPerRequest: null` is what BullMQ workers require; reconnects retry forever with a
 * capped delay, so an outage ends with the worker processing again, not with a crashed
 * process. `extra` overrides per use (the CLI fails fast); on a Cluster, `retryStrategy` is
 * the Cluster's reconnect rule and the rest applies to each node's connection.
 */
/** What connecting reads of `redis.*`: where and how, not the prefix or the confirmation. */
export type RedisEndpoint = Pick<RedisConfig, 'url' | 'sentinel' | 'cluster'>;

export function connectRedis(
  config: RedisEndpoint,
  logger: Logger,
  extra: RedisOptions = {},
): RedisClient {
  const client = config.cluster
    ? new ioredis.Cluster(config.cluster.nodes.map(hostPort), clusterOptions(config, extra))
    : new ioredis.Redis(nodeOptions(config, extra));
  let down = false;
  client.on('error', (error: Error & { code?: string }) => {
    if (!down) logger.warn({ code: error.code }, `redis connection problem: ${error.message}`);
    down = true;
  });
  client.on('ready', () => {
    if (down) logger.info('redis connection restored');
    down = false;
  });
  return client;
}

/** Where the config points, for messages (no secrets). */
export function describeRedis(config: RedisConfig): string {
  if (config.cluster) return `the Redis Cluster at ${config.cluster.nodes.join(', ')}`;
  if (config.sentinel) {
    return `the Redis master "${config.sentinel.name}" of the Sentinels at ${config.sentinel.nodes.join(', ')}`;
  }
  return `Redis at ${redactUrl(config.url.reveal())}`;
}

/**
 * A `READONLY` reply means this connection reached a node that is no longer master (a
 * failover demoted it, or a DNS name still points at it): reconnect, which asks the Sentinels
 * again, and resend the command there (2). Nothing was written by the refused command.
 */
export function reconnectOnReadonly(error: Error): boolean | 1 | 2 {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/**
 * Replies that mean the node answering is not (or not yet, or no longer) the one to write to:
 * a failover is under way or just happened. Nothing was written by the refused command, and
 * the same command succeeds on the new master: worth retrying. MOVED and ASK are followed by a
 * Cluster client itself; they reach us only from a plain connection pointed at a Cluster node.
 */
const FAILOVER_REPLIES =
  /^(READONLY|MOVED|ASK|CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|NOREPLICAS)\b/;

export function isFailoverReply(error: unknown): boolean {
  return error instanceof Error && FAILOVER_REPLIES.test(error.message);
}

/** The longest wait between two attempts to reconnect (200 ms more at each attempt). */
export const RECONNECT_MAX_DELAY_MS = 5_000;

const defaults: RedisOptions = {
  maxRetriesPerRequest: null,
  enableReadyCheck: true,
  retryStrategy: (times) => Math.min(200 * times, RECONNECT_MAX_DELAY_MS),
  reconnectOnError: reconnectOnReadonly,
};

/** Credentials, TLS and database from `redis.url`; with a Sentinel, the master's address from it. */
function urlOptions(config: RedisEndpoint): RedisOptions {
  const url = new URL(config.url.reveal());
  const db = Number(url.pathname.replace(/^\//, '') || 0);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 6379),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db ? { db } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * ioredis's Sentinel connector, with one fix: when a connection starts again, the failover
 * detector of the connection that dropped is let go first.
 *
 * ioredis leaves that detector subscribed to the Sentinels' `+switch-master` after its
 * connection is gone. After a kill -9 of the master the client reconnects, asking the Sentinels
 * where the master is, again and again until they have promoted a replica; if their
 * `+switch-master` arrives while one of those attempts is under way, the old detector aborts it,
 * and ioredis ends the client for good (status "end", every command "Connection is closed.").
 * A worker then never processed again. The tests caught it in about 1 of 4 full-suite runs,
 * where a loaded machine makes the attempts slower (docs/design.md, "Failovers"). A detector is
 * of no use to a connection that is already being made again: it finds the current master
 * anyway, and the connection it makes gets a detector of its own.
 */
class ReconnectingSentinelConnector extends ioredis.SentinelConnector {
  override connect(...args: Parameters<SentinelConnector['connect']>) {
    const self = this as unknown as { failoverDetector: { cleanup(): void } | null };
    self.failoverDetector?.cleanup();
    self.failoverDetector = null;
    return super.connect(...args);
  }
}

function nodeOptions(config: RedisEndpoint, extra: RedisOptions): RedisOptions {
  const options: RedisOptions = { ...defaults, ...urlOptions(config), ...extra };
  const sentinel = config.sentinel;
  if (!sentinel) return options;
  const { host: _host, port: _port, ...rest } = options;
  return {
    ...rest,
    name: sentinel.name,
    role: 'master',
    sentinels: sentinel.nodes.map(hostPort),
    ...(sentinel.password ? { sentinelPassword: sentinel.password.reveal() } : {}),
    // rediss:// is for the data nodes the Sentinels point at.
    ...(options.tls ? { enableTLSForSentinelMode: true } : {}),
    // Subscribes to the Sentinels' +switch-master: a failover moves the connection at once,
    // not when the old master first refuses a write.
    failoverDetector: true,
    // ioredis constructs it with the connection's options, as its own (typed `unknown` there).
    Connector: ReconnectingSentinelConnector as unknown as RedisOptions['Connector'],
    ...(extra.retryStrategy ? { sentinelRetryStrategy: extra.retryStrategy } : {}),
  };
}

function clusterOptions(config: RedisEndpoint, extra: RedisOptions): ClusterOptions {
  const { host: _host, port: _port, db: _db, ...node } = urlOptions(config);
  const { retryStrategy, lazyConnect, enableOfflineQueue, ...perNode } = extra;
  return {
    redisOptions: {
      maxRetriesPerRequest: defaults.maxRetriesPerRequest,
      reconnectOnError: reconnectOnReadonly,
      ...node,
      ...perNode,
    },
    clusterRetryStrategy: retryStrategy ?? defaults.retryStrategy,
    enableReadyCheck: true,
    // Writes and reads both go to the slot's master: the monitor reads what it just wrote.
    scaleReads: 'master',
    // A failover briefly leaves the slot without a master: wait, refresh the slot map, retry.
    retryDelayOnFailover: 300,
    retryDelayOnClusterDown: 300,
    retryDelayOnMoved: 100,
    maxRedirections: 64,
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
  };
}

function hostPort(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(value.slice(at + 1)) };
}

/**
 * A second connection to the same Redis with some options changed. On a Cluster the options
 * go to each node's connection (`Cluster.duplicate(nodes, options)` would take them as
 * startup nodes and silently ignore them).
 */
export function duplicateRedis(client: RedisClient, overrides: RedisOptions = {}): RedisClient {
  if (client instanceof ioredis.Cluster) {
    const { retryStrategy, ...perNode } = overrides;
    return client.duplicate(undefined, {
      redisOptions: { ...client.options.redisOptions, ...perNode },
      ...(retryStrategy !== undefined ? { clusterRetryStrategy: retryStrategy } : {}),
    });
  }
  return client.duplicate(overrides);
}

/**
 * The node connection that carries the commands on `key`: a Cluster's master of the key's slot
 * (as the client's slot map says now), else the one connection.
 */
export async function connectionFor(client: RedisClient, key: string): Promise<Redis> {
  if (!(client instanceof ioredis.Cluster)) return client;
  const slot = await keySlot(client, key);
  const address = client.slots[slot]?.[0];
  const node = client
    .nodes('master')
    .find((n) => `${n.options.host}:${n.options.port}` === address);
  if (!node) throw new Error(`CLUSTERDOWN no known master for slot ${slot}`);
  return node;
}

/**
 * A key's slot never changes: asked once per key and client, not before every confirmed
 * commit and claim (the keys are the store's, a few per network).
 */
const slots = new WeakMap<Cluster, Map<string, number>>();

async function keySlot(client: Cluster, key: string): Promise<number> {
  let known = slots.get(client);
  if (!known) slots.set(client, (known = new Map()));
  let slot = known.get(key);
  if (slot === undefined) {
    slot = (await client.cluster('KEYSLOT', key)) as number;
    known.set(key, slot);
  }
  return slot;
}

/** Connected and answering (a Cluster is ready once it knows the slot map). */
export function isReady(client: RedisClient): boolean {
  return (
    client.status === 'ready' || (client instanceof ioredis.Cluster && client.status === 'connect')
  );
}

/**
 * Resolves once `client` has been unreachable (not ready) for `ms` in all since the call, or as
 * soon as it has ended for good (ioredis no longer reconnects it: waiting cannot help; already
 * ended at the call, it resolves before any other work can finish); `cancel` stops watching. Polls the connection's status, which ioredis keeps while it
 * reconnects.
 *
 * In all, not in a row: a connection left on a node that became a replica reconnects at each
 * READONLY reply (`reconnectOnReadonly`) and is ready for a moment each time. Counted in a row,
 * a worker stopping there waited 10 s on a quiet machine and 20-27 s on a busy one, where the
 * polls catch more of those moments.
 */
export function unreachableFor(
  client: RedisClient,
  ms: number,
  pollMs = 250,
): { gone: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let down = 0;
  let last = Date.now();
  const gone = new Promise<void>((resolve) => {
    if (client.status === 'end') return resolve();
    timer = setInterval(() => {
      const now = Date.now();
      if (!isReady(client)) down += now - last;
      last = now;
      if (down >= ms || client.status === 'end') {
        clearInterval(timer);
        resolve();
      }
    }, pollMs);
    timer.unref();
  });
  return { gone, cancel: () => clearInterval(timer) };
}

/** The node connections that hold data: the Cluster's masters, else the one connection. */
export function masters(client: RedisClient): Redis[] {
  return client instanceof ioredis.Cluster ? client.nodes('master') : [client];
}

/** SCAN MATCH on every master (a Cluster's keys are spread over its masters). */
export async function scanKeys(
  client: RedisClient,
  pattern: string,
  onKeys: (keys: string[], node: Redis) => Promise<void>,
  count = 500,
): Promise<void> {
  for (const node of masters(client)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) await onKeys(keys, node);
    } while (cursor !== '0');
  }
}

/** Closes politely (QUIT), or at once when Redis is not there to answer. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (!isReady(client)) {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

/** BullMQ needs `noeviction`: with any other policy Redis may silently drop jobs and state. */
export async function checkEvictionPolicy(
  client: RedisClient,
  logger: Logger,
): Promise<string | undefined> {
  try {
    const info = await client.info('memory');
    const policy = /maxmemory_policy:(\S+)/.exec(info)?.[1];
    if (policy && policy !== 'noeviction') {
      logger.warn(
        { policy },
        `Redis maxmemory-policy is "${policy}": set it to "noeviction", or Redis may evict queued jobs and alert history`,
      );
    }
    return policy;
  } catch {
    return undefined;
  }
}
