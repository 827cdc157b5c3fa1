import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/connection.js';

/**
 * A server-side script run by EVALSHA (one command on the wire), falling back to EVAL once
 * when the server does not know it yet (after a restart or a SCRIPT FLUSH).
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(
    redis: RedisClient,
    keys: readonly string[],
    args: readonly (string | number | Buffer)[],
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
