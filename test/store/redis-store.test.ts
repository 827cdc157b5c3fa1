import { describe, expect, it } from 'vitest';
import { hashTag } from '../../src/config/schema.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { NOW, dump, effect, history, load, notification } from './fixtures.js';
import { useStoreRedis } from './store-redis.js';

const db = useStoreRedis();

describe('RedisStore: Redis stopped and restarted', () => {
  it('keeps everything (AOF), and the same client carries on', async () => {
    const { store, prefix } = db.freshStore();
    await store.commitRun(
      effect({ history: { upsert: history(10), remove: [] }, notifications: [notification('n')] }),
    );
    const before = await dump(db.redis, prefix);
    await db.server.stop();
    // Issued during the outage: the client holds it and sends it once Redis is back.
    const during = load(store);
    await db.server.start();
    const state = await during;
    expect(state.active).toHaveLength(10);
    expect(await dump(db.redis, prefix)).toEqual(before);
  }, 30_000);
});

describe('RedisStore: Redis Cluster hash tags', () => {
  it('with a "{thm}" prefix every key hashes to the same slot', async () => {
    const store = new RedisStore(db.redis, '{thm}');
    await store.commitRun(
      effect({
        notifications: [notification('c1')],
        invoiceSnapshot: {
          snapshot: { time: 1, status: 'unpaid', total_count: 0, balance: 0, billed: 0, paid: 0 },
          keep: 5,
        },
      }),
    );
    await store.addSilence({ networkId: 'acme', reason: 'r', expiresAt: NOW + 1 }, NOW);
    await store.markFailed('c1', 'x', NOW);
    await store.retryFailed('c1', NOW);
    await store.markSent('c1', NOW);
    const keys = await db.redis.keys('{thm}*');
    const k = store.keys;
    // pending and failed are empty again (Redis drops empty zsets); the rest must be there.
    for (const key of [k.network('acme'), k.invoices('acme'), k.networks, k.silenceIds]) {
      expect(keys).toContain(key);
    }
    for (const key of [k.outboxBody, k.outboxMeta, k.outboxSent]) expect(keys).toContain(key);
    expect(new Set(keys.map(hashTag))).toEqual(new Set(['thm']));
    expect(hashTag('thm:store:net:acme')).toBeUndefined();
  });
});
