import { Redis } from 'ioredis';
import { redisServerAvailable, startPrivateRedis } from '../../src/demo/private-redis.js';

export { redisServerAvailable };

/**
 * A private redis-server per test file, on a free port, with AOF on so a stop/restart keeps
 * the data. Never touches the machine's shared Redis.
 */
export interface TestRedis {
  port: number;
  url: string;
  /** A new client; closed by `shutdown`. */
  client(): Redis;
  /** Stop the server (SIGTERM; SIGKILL with { kill: true }). Clients see a real outage. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Start it again on the same port with the same data (nothing to do when it runs). */
  start(): Promise<void>;
  /** Stop and delete everything. */
  shutdown(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  if (!redisServerAvailable()) {
    throw new Error(
      'redis-server is not installed: the tests start their own. Install it (Debian: apt-get install -y redis-server).',
    );
  }
  const server = await startPrivateRedis({ persist: true });
  const clients: Redis[] = [];
  return {
    port: server.port,
    url: server.url,
    client() {
      const c = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: null });
      // Fault tests stop the server on purpose: reconnecting is the expected behaviour.
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    },
    stop: server.stop,
    start: server.start,
    async shutdown() {
      for (const c of clients) c.disconnect();
      await server.shutdown();
    },
  };
}
