import type { Redis } from 'ioredis';

/** Everything Redis holds, as text: every key of every type, with its values. */
export async function dumpRedis(redis: Redis): Promise<string> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      out.push(key);
      if (type === 'string') out.push((await redis.getBuffer(key))?.toString('latin1') ?? '');
      else if (type === 'hash')
        out.push(
          ...Object.entries(await redis.hgetallBuffer(key)).map(
            ([k, v]) => `${k}=${v.toString('latin1')}`,
          ),
        );
      else if (type === 'list') out.push(...(await redis.lrange(key, 0, -1)));
      else if (type === 'set') out.push(...(await redis.smembers(key)));
      else if (type === 'zset') out.push(...(await redis.zrange(key, 0, -1)));
      else if (type === 'stream') out.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
  } while (cursor !== '0');
  return out.join('\n');
}
