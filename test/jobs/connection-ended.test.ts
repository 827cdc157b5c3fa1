import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../harness/ports.js';
import { startJobStack, type JobStack } from './stack.js';

/**
 * A worker whose Redis connection ends for good, other than by its own close(), cannot process
 * again (ioredis no longer reconnects it): it says so and tells its owner, which for `thm worker`
 * means exiting 1 so that its supervisor starts a worker that can work.
 */
describe('a worker whose Redis connection ends for good', () => {
  let stack: JobStack;

  beforeAll(async () => {
    stack = await startJobStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('logs it once and tells its owner; a worker closed normally does neither', async () => {
    const log: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => log.push(c.toString()));
    let ended = 0;
    const worker = await stack.startWorker(
      { onConnectionEnded: () => (ended += 1) },
      createLogger({ destination: stream, level: 'info' }),
    );
    // The connection ends without close(), as when ioredis stops reconnecting.
    worker.redis.disconnect();
    await waitFor(() => ended === 1 || undefined, { what: 'the owner told' });
    const lines = log.filter((line) => line.includes('has ended for good'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50 });
    // Closing it does not wait for a Redis that connection will never reach again.
    await worker.close();
    expect(log.some((line) => line.includes('stopping: the Redis connection has ended'))).toBe(
      true,
    );

    const normal = await stack.startWorker({ onConnectionEnded: () => (ended += 1) });
    await normal.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(ended).toBe(1);
  }, 30_000);
});
