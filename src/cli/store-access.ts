import type { Config } from '../config/load.js';
import { ThmError } from '../errors.js';
import { connectRedis, describeRedis, type RedisClient } from '../jobs/redis.js';
import { silentLogger } from '../log.js';
import type { RedisStore } from '../store/redis-store.js';

/**
 * A short-lived store connection for one CLI command: fails fast with one line when Redis
 * cannot be reached (a daemon retries forever; a person at a terminal wants to know now).
 */
export async function withStore<T>(
  config: Config,
  work: (store: RedisStore, redis: RedisClient) => Promise<T>,
): Promise<T> {
  // The one-line error below says it all: no connection-problem log lines on a terminal.
  const redis = connectRedis(config.redis, silentLogger, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => (times > 2 ? null : 100),
    connectTimeout: 3_000,
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new ThmError(
      'THM_STORE',
      `cannot reach ${describeRedis(config.redis)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { RedisStore } = await import('../store/redis-store.js');
  try {
    return await work(new RedisStore(redis, config.redis.prefix), redis);
  } finally {
    redis.disconnect();
  }
}
