import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { unreachableFor, type RedisClient } from '../../src/redis/connection.js';

/**
 * The bound of a worker's stop without Redis (src/jobs/worker.ts) counts the time the
 * connection was not ready in all, not in a row. The connection here is a stand-in whose
 * status the test sets, as ioredis sets it while it reconnects; the real case (a worker left on
 * a node that became a replica) is test/observability/redis-role.test.ts's last one.
 */
function connection(status: string): { status: string } {
  return { status };
}

async function settlesWithin(gone: Promise<void>, ms: number): Promise<number | undefined> {
  const started = Date.now();
  const settled = await Promise.race([gone.then(() => true), sleep(ms).then(() => false)]);
  return settled ? Date.now() - started : undefined;
}

describe('unreachableFor', () => {
  it('resolves once the connection has been down for the bound', async () => {
    const client = connection('reconnecting');
    const after = await settlesWithin(unreachableFor(client as RedisClient, 300, 20).gone, 3_000);
    expect(after).toBeGreaterThanOrEqual(280);
  });

  it('counts a connection that keeps coming back for a moment as down, in all', async () => {
    const client = connection('reconnecting');
    // Ready for a moment every 60 ms, as a connection that reconnects at each READONLY is:
    // never down for 300 ms in a row, down most of the time.
    const flapping = setInterval(() => {
      client.status = 'ready';
      setTimeout(() => (client.status = 'reconnecting'), 15);
    }, 60);
    try {
      const after = await settlesWithin(unreachableFor(client as RedisClient, 300, 10).gone, 3_000);
      expect(after).toBeDefined();
      expect(after!).toBeGreaterThanOrEqual(290);
    } finally {
      clearInterval(flapping);
    }
  });

  it('does not resolve while the connection is ready, nor once cancelled', async () => {
    const ready = connection('ready');
    expect(await settlesWithin(unreachableFor(ready as RedisClient, 100, 10).gone, 400)).toBe(
      undefined,
    );
    const down = connection('reconnecting');
    const watch = unreachableFor(down as RedisClient, 200, 10);
    watch.cancel();
    expect(await settlesWithin(watch.gone, 500)).toBe(undefined);
  });

  it('resolves at once when the connection has ended for good, without waiting for a poll', async () => {
    const after = await settlesWithin(
      unreachableFor(connection('end') as RedisClient, 10_000, 5_000).gone,
      1_000,
    );
    expect(after).toBeLessThan(500);
    // Ended later: found at the next poll.
    const client = connection('ready');
    const watch = unreachableFor(client as RedisClient, 10_000, 20);
    client.status = 'end';
    expect(await settlesWithin(watch.gone, 1_000)).toBeLessThan(500);
  });
});
