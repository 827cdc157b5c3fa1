import { describe, expect, it } from 'vitest';
import { commandCalls } from './fixtures.js';
import { useStoreRedis } from './store-redis.js';

const db = useStoreRedis();

describe('scheduled since', () => {
  it('keeps the first time a network was scheduled, in one command for all', async () => {
    const { store } = db.freshStore();
    expect(await store.scheduledSince(['acme', 'globex'])).toEqual(new Map());
    const before = await commandCalls(db.redis);
    await store.markScheduled(['acme', 'globex'], 1_000);
    const after = await commandCalls(db.redis);
    expect(after - before).toBe(2); // the two HSETNX, pipelined
    await store.markScheduled(['acme', 'initech'], 2_000); // a restart: acme keeps 1,000
    expect(await store.scheduledSince(['acme', 'globex', 'initech', 'nope'])).toEqual(
      new Map([
        ['acme', 1_000],
        ['globex', 1_000],
        ['initech', 2_000],
      ]),
    );
    await expect(store.markScheduled(['Bad Id'], 1)).rejects.toThrow(/not a network id/);
  });
});
