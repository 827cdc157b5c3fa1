import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/redis/connection.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { WriteNotConfirmed } from '../../src/store/confirm.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { waitFor } from '../harness/ports.js';
import { startReplicated, type TestReplicated } from '../harness/topologies.js';
import { notification } from '../store/fixtures.js';
import { startTopologyStack, type TopologyStack } from './topology-stack.js';

/**
 * Confirmed writes against a real master and replica: the replica is frozen (SIGSTOP), so
 * nothing written to the master reaches it, exactly as in the moment of a failover when the
 * old master's replica has just been promoted away.
 */
describe('writes that must survive a failover wait for a replica (master + replica on loopback)', () => {
  let pair: TestReplicated;
  let stack: TopologyStack;
  const prefix = 'thmw';
  const log: string[] = [];

  beforeAll(async () => {
    pair = await startReplicated();
    stack = await startTopologyStack({
      url: `redis://${pair.master.address}`,
      prefix,
      confirmReplicas: 1,
      confirmTimeoutMs: 30_000,
    });
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => log.push(c.toString()));
    await stack.startWorker({}, createLogger({ destination: stream, level: 'info' }));
  }, 60_000);
  afterAll(async () => {
    pair?.replica.resume();
    await stack?.close();
    await pair?.shutdown();
  });

  it('a run is not reported done while no replica has its commit; it is once one does', async () => {
    stack.sbx.sandbox.setDay('2026-11-15');
    pair.replica.pause();
    const running = stack.run('acme', '2026-11-15');
    const master = pair.master.client();
    const field = 'run:traffic-check:2026-11-15';
    // Committed on the master, and held: the job stays active while the replica is frozen.
    await waitFor(async () => (await master.hexists(`${prefix}:store:net:acme`, field)) === 1, {
      timeoutMs: 15_000,
      what: 'the commit on the master',
    });
    // Held while the replica stays frozen (it cannot be confirmed, however long it waits).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await stack.queue.getActiveCount()).toBe(1);
    expect(await stack.queue.getCompletedCount()).toBe(0);
    expect(stack.smtp.messages).toHaveLength(0);

    pair.replica.resume();
    const result = await running;
    // Its own commit, found again and confirmed: done, not "already done".
    expect(result).toMatchObject({ state: 'completed', value: { status: 'done' } });
    await stack.smtp.waitForMessages(1);
    const replica = pair.replica.client();
    expect(await replica.hexists(`${prefix}:store:net:acme`, field)).toBe(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(stack.smtp.messages).toHaveLength(1);
  }, 60_000);

  it('a master with no working replica keeps the write once the wait is over, and says so', async () => {
    const redis = connectRedis(stack.config.redis, silentLogger);
    const said: string[] = [];
    const store = new RedisStore(redis, 'thmclaim', {
      replicas: 1,
      timeoutMs: 500,
      onUnconfirmed: (operation, why) => said.push(`${operation}: ${why}`),
    });
    try {
      const n = notification('confirm-claim-1');
      await store.addToOutbox([n]);
      pair.replica.pause();
      const claim = await store.claimNotification(n.id, 'test-owner', 60_000, Date.now());
      expect(claim.status).toBe('claimed');
      expect(said).toEqual([
        'claim: 0 of 1 replicas acknowledged within 500 ms; the node is still master, the write stands',
      ]);
    } finally {
      pair.replica.resume();
      redis.disconnect();
    }
  });

  // Last: it leaves the pair demoted.
  it('a claim whose node is demoted while it waits is refused: nothing is sent on it', async () => {
    const redis = connectRedis(stack.config.redis, silentLogger);
    const store = new RedisStore(redis, 'thmclaim', { replicas: 1, timeoutMs: 20_000 });
    try {
      const n = notification('confirm-claim-2');
      await store.addToOutbox([n]);
      pair.replica.pause();
      const claiming = store
        .claimNotification(n.id, 'test-owner', 60_000, Date.now())
        .catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      // A failover's last step on the old master: it becomes a replica of the promoted one.
      await pair.master.client().call('REPLICAOF', '127.0.0.1', String(pair.replica.port));
      const refused = await claiming;
      expect(refused).toBeInstanceOf(WriteNotConfirmed);
      expect(refused).toMatchObject({ code: 'THM_STORE', retryable: true });
      expect((refused as Error).message).toMatch(
        /^redis claim: write not confirmed by a replica: /,
      );
    } finally {
      pair.replica.resume();
      redis.disconnect();
    }
  });
});
