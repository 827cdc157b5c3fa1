import { Redis, type RedisOptions } from 'ioredis';
import type { Secret } from '../config/secret.js';
import type { Logger } from '../log.js';

/**
 * Redis connections for BullMQ and the store. `maxRetriesPerRequest: null` is what BullMQ
 * workers require; reconnects retry forever with a capped delay, so an outage ends with the
 * worker processing again, not with a crashed process. rediss:// (TLS) and user:password@
 * come from the URL.
 */
export function connectRedis(url: Secret, logger: Logger, extra: RedisOptions = {}): Redis {
  const redis = new Redis(url.reveal(), {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(200 * times, 5_000),
    ...extra,
  });
  let down = false;
  redis.on('error', (error: Error & { code?: string }) => {
    if (!down) logger.warn({ code: error.code }, `redis connection problem: ${error.message}`);
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis connection restored');
    down = false;
  });
  return redis;
}

/** BullMQ needs `noeviction`: with any other policy Redis may silently drop jobs and state. */
export async function checkEvictionPolicy(
  redis: Redis,
  logger: Logger,
): Promise<string | undefined> {
  try {
    const info = await redis.info('memory');
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
