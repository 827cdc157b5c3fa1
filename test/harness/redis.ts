import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, waitFor } from './ports.js';

/**
 * A private redis-server per test file, on a free port, with its data in a temp dir (AOF on,
 * so a stop/restart keeps the data, as a production Redis with persistence does). Never touches
 * the machine's shared Redis.
 */
export interface TestRedis {
  port: number;
  url: string;
  /** A new client; closed by `shutdown`. */
  client(): Redis;
  /** Stop the server (SIGTERM; SIGKILL with { kill: true }). Clients see a real outage. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Start it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stop and delete everything. */
  shutdown(): Promise<void>;
}

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

export async function startRedis(): Promise<TestRedis> {
  if (!redisServerAvailable()) {
    throw new Error(
      'redis-server is not installed: the tests start their own. Install it (Debian: apt-get install -y redis-server).',
    );
  }
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-redis-'));
  const clients: Redis[] = [];
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--maxmemory-policy',
        'noeviction',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
        const probe = new Redis(port, '127.0.0.1', {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        try {
          await probe.connect();
          const loading = await probe.info('persistence');
          return loading.includes('loading:0') ? true : undefined;
        } catch {
          return undefined;
        } finally {
          probe.disconnect();
        }
      },
      { what: `redis-server on port ${port}` },
    );
  };

  const stop = async ({ kill = false } = {}): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill(kill ? 'SIGKILL' : 'SIGTERM');
    await exited;
    child = undefined;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    client() {
      const c = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: null });
      // Fault tests stop the server on purpose: reconnecting is the expected behaviour.
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    },
    stop,
    start,
    async shutdown() {
      for (const c of clients) c.disconnect();
      await stop({ kill: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
