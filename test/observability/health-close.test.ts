import { createServer, connect, type Server, type Socket } from 'node:net';
import type { RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { startHealthCheck } from '../../src/observability/health.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

/**
 * A worker told to stop right after it started (SIGTERM just after "worker started") closes its
 * health check at once. The canary worker's own connection, still being set up then, used to
 * end with a rejection no handler was left for ("Connection is closed."): the process exited 1
 * instead of 0. Here that connection is made slow to set up, so the close always meets it.
 */
describe('a health check closed soon after it has started', () => {
  let redis: TestRedis;
  let slow: Server;
  const sockets: Socket[] = [];
  /** How late each reply reaches the canary worker's own connection. */
  const SLOW_MS = 300;

  beforeAll(async () => {
    redis = await startRedis();
    // A door to Redis whose replies arrive SLOW_MS late, in order.
    slow = createServer((socket) => {
      const upstream = connect(redis.port, '127.0.0.1');
      sockets.push(socket, upstream);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => setTimeout(() => socket.destroy(), SLOW_MS));
      socket.pipe(upstream);
      upstream.on('data', (chunk: Buffer) =>
        setTimeout(() => socket.destroyed || socket.write(chunk), SLOW_MS),
      );
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => slow.close(resolve));
    await redis.shutdown();
  });

  it('leaves no rejection unhandled, whenever it is closed', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const client = redis.client();
      await client.ping();
      // BullMQ gives a worker a connection of its own, a duplicate named after the worker: that
      // one goes through the slow door; the rest reach Redis at once.
      const duplicate = client.duplicate.bind(client);
      client.duplicate = (options?: Partial<RedisOptions>) =>
        duplicate(
          options?.connectionName === undefined
            ? options
            : { ...options, port: (slow.address() as { port: number }).port },
        );
      // Closed at once, or a little later: one of them while that connection is still being
      // set up (a few round trips), whatever their number.
      await Promise.all(
        [0, 1, 2, 3, 4, 5, 6, 7, 8].map(async (step) => {
          const health = await startHealthCheck({
            redis: client,
            prefix: 'thm-close',
            workers: [],
            queues: [],
            logger: silentLogger,
          });
          await new Promise((resolve) => setTimeout(resolve, (step * SLOW_MS) / 2));
          await health.close();
        }),
      );
      // A rejection is reported as unhandled once the microtasks after it have run.
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS * 2));
      expect(unhandled.map(String)).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
