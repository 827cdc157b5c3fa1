import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Secret } from '../config/secret.js';
import { connectRedis, type RedisClient } from '../redis/connection.js';
import { silentLogger } from '../log.js';

/**
 * A private `redis-server` on a free loopback port, its data in a temp dir: for the demo when
 * no Redis answers, and for every test file (which can stop and start it for fault tests; AOF
 * keeps the data across a restart, as a production Redis with persistence does).
 */
export interface PrivateRedis {
  port: number;
  url: string;
  /** Stop the server (SIGTERM; SIGKILL with { kill: true }). */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Start it again on the same port with the same data (nothing to do when it runs). */
  start(): Promise<void>;
  /** Stop it and delete its data. */
  shutdown(): Promise<void>;
}

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/**
 * A loopback port nothing listens on, for a server about to be started. A port the kernel hands
 * out for port 0 comes from its ephemeral range, from which every outgoing connection takes its
 * own port too: between this check and the server's bind, any connection of a busy machine can
 * take it (a cluster node once failed to start so). Below that range only an explicit bind takes
 * a port, so on Linux the port is drawn from there; elsewhere the kernel picks.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralRangeStart();
  if (low !== undefined && low > PORT_FLOOR + 1_000) {
    for (let tries = 0; tries < 50; tries++) {
      const port = PORT_FLOOR + Math.floor(Math.random() * (low - PORT_FLOOR));
      if ((await listenOnce(port)) !== undefined) return port;
    }
  }
  const port = await listenOnce(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}

/** Below this, well-known services' ports are many; above it, few listen. */
const PORT_FLOOR = 10_000;

/** The first port of Linux's ephemeral range, or undefined where there is none to read. */
function ephemeralRangeStart(): number | undefined {
  try {
    const low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s/)[0],
    );
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` of 127.0.0.1 and closes again: the port it got, or undefined if taken. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.on('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const got = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(got));
    });
  });
}

export async function startPrivateRedis(
  options: { persist?: boolean } = {},
): Promise<PrivateRedis> {
  if (!redisServerAvailable()) {
    throw new Error('redis-server is not installed (Debian: apt-get install -y redis-server)');
  }
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-redis-'));
  let child: ChildProcess | undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.persist ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];

  const start = async (): Promise<void> => {
    // Started already: a second server would fail to bind and take `child`'s place, and the
    // running one would outlive shutdown().
    if (child && child.exitCode === null && child.signalCode === null) return;
    const proc = spawn('redis-server', args, { stdio: 'ignore' });
    child = proc;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
      if (await answers(port)) return;
      if (Date.now() > deadline)
        throw new Error(`redis-server on port ${port} did not answer within 10 s`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const stop = async ({ kill = false } = {}): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill(kill ? 'SIGKILL' : 'SIGTERM');
    await exited;
    child = undefined;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async shutdown() {
      await stop({ kill: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether a Redis answers on this port and has finished loading its data. */
async function answers(port: number): Promise<boolean> {
  return probe(`redis://127.0.0.1:${port}`, async (r) =>
    (await r.info('persistence')).includes('loading:0'),
  );
}

/** Whether the Redis at `url` answers a PING within a second. */
export async function redisAnswers(url: string): Promise<boolean> {
  return probe(url, async (r) => (await r.ping()) === 'PONG');
}

/** One short-lived connection that never retries: true when `check` passes. */
async function probe(
  url: string,
  check: (redis: RedisClient) => Promise<boolean>,
): Promise<boolean> {
  const redis = connectRedis({ url: new Secret(url) }, silentLogger, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1_000,
    reconnectOnError: null,
  });
  try {
    await redis.connect();
    return await check(redis);
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
