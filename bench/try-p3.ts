import { Redis } from 'ioredis';
import { startPrivateRedis } from '../src/demo/private-redis.js';
import { measureFleet } from './fleet.js';
const pr = await startPrivateRedis();
const redis = new Redis(pr.url);
try {
  console.log(
    JSON.stringify(await measureFleet(redis, pr.url, Number(process.argv[2] ?? 200), 2000)),
  );
} finally {
  redis.disconnect();
  await pr.shutdown();
}
