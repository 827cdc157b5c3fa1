import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

/**
 * A Redis of the test file's own, started before its tests and shut down after them, and a store
 * per test under a prefix of its own: tests cannot see each other's data.
 */
export function useStoreRedis(): {
  readonly server: TestRedis;
  readonly redis: Redis;
  freshStore(): { store: RedisStore; prefix: string };
} {
  let server: TestRedis | undefined;
  let redis: Redis | undefined;
  let prefixCounter = 0;
  beforeAll(async () => {
    server = await startRedis();
    redis = server.client();
    // A test that stops Redis makes a real outage; the client reconnects by itself.
    redis.on('error', () => undefined);
  });
  afterAll(async () => {
    await server?.shutdown();
  });
  return {
    get server() {
      if (!server) throw new Error('the test Redis has not started');
      return server;
    },
    get redis() {
      if (!redis) throw new Error('the test Redis has not started');
      return redis;
    },
    freshStore() {
      const prefix = `t${++prefixCounter}`;
      return { store: new RedisStore(this.redis, prefix), prefix };
    },
  };
}
