import type { RedisClient } from './redis.js';

/**
 * A pipeline's replies in order, or its first error thrown. A module of its own, importing
 * redis.ts for its types only: the config's warnings reach schedulers.ts, and loading ioredis
 * with them would put it on every command's start (target P7, test/cli/startup.test.ts).
 */
export async function execPipeline(
  pipeline: ReturnType<RedisClient['pipeline']>,
): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
