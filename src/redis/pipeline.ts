import type { RedisClient } from './connection.js';

/** A pipeline's replies in order, or its first error thrown. */
export async function execPipeline(
  pipeline: ReturnType<RedisClient['pipeline']>,
): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
