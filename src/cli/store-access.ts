import type { Config } from '../config/load.js';
import type { RedisClient } from '../redis/connection.js';
import { silentLogger } from '../log.js';
import type { RedisStore } from '../store/redis-store.js';

/**
 * How long a CLI connection's disconnect waits for its socket to close. ioredis's default, 2 s,
 * is a timer it also starts for a socket that is closed already (Redis refused the connection):
 * every `thm` command that could not reach Redis stayed alive 2 s after saying so.
 */
export const CLI_DISCONNECT_TIMEOUT_MS = 200;

/** How long a command other than `thm run --wait` keeps trying to reach Redis. */
export const CLI_CONNECT_TIMEOUT_MS = 3_000;

/**
 * A short-lived store connection for one CLI command: fails fast with one line when Redis
 * cannot be reached (a daemon retries forever; a person at a terminal wants to know now),
 * naming the address it used and why (refused, timed out, authentication), code THM_REDIS.
 */
export async function withStore<T>(
  config: Config,
  work: (store: RedisStore, redis: RedisClient) => Promise<T>,
): Promise<T> {
  // Loaded here, not at the top: `thm --help` and commands without Redis start without ioredis.
  const [{ connectRedis, describeRedis }, { watchReach }] = await Promise.all([
    import('../redis/connection.js'),
    import('../redis/reach.js'),
  ]);
  // The one-line error below says it all: no connection-problem log lines on a terminal.
  const redis = connectRedis(config.redis, silentLogger, {
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => (times > 2 ? null : 100),
    connectTimeout: CLI_CONNECT_TIMEOUT_MS,
    disconnectTimeout: CLI_DISCONNECT_TIMEOUT_MS,
    // A command's reads go out together: `thm status` asks several keys of every network at
    // once, and one write of them all costs less than one per command.
    enableAutoPipelining: true,
  });
  const reach = watchReach(redis, describeRedis(config.redis));
  try {
    // The store's code loads while the connection is made.
    const [{ RedisStore }] = await Promise.all([
      import('../store/redis-store.js'),
      reach.ready(CLI_CONNECT_TIMEOUT_MS),
    ]);
    return await work(new RedisStore(redis, config.redis.prefix), redis);
  } catch (error) {
    throw reach.explain(error);
  } finally {
    reach.stop();
    redis.disconnect();
  }
}
