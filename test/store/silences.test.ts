import { describe, expect, it } from 'vitest';
import { FIELD } from '../../src/store/keys.js';
import { EXPIRED_SILENCE_RETENTION_MS } from '../../src/store/retention.js';
import { DAY, NOW, effect, load } from './fixtures.js';
import { useStoreRedis } from './store-redis.js';

const db = useStoreRedis();

describe('silences', () => {
  it('add, list, remove; ids are 8 hex characters', async () => {
    const { store } = db.freshStore();
    const a = await store.addSilence(
      { networkId: 'acme', domainId: 5, isp: 'Com*', reason: 'known', expiresAt: NOW + 60_000 },
      NOW,
    );
    const b = await store.addSilence(
      { networkId: 'other', reason: 'all', expiresAt: NOW + 60_000 },
      NOW + 1,
    );
    expect(a.id).toMatch(/^[0-9a-f]{8}$/);
    expect(a).toMatchObject({ createdAt: NOW, domainId: 5, isp: 'Com*', reason: 'known' });
    expect(await store.listSilences('acme', NOW)).toEqual([a]);
    expect(await store.listSilences(undefined, NOW)).toEqual([a, b]);
    expect((await load(store)).silences).toEqual([a]);
    expect(await store.removeSilence(a.id, NOW)).toBe(true);
    expect(await store.removeSilence(a.id, NOW)).toBe(false);
    expect(await store.removeSilence('deadbeef', NOW)).toBe(false);
    expect(await store.listSilences(undefined, NOW)).toEqual([b]);
  });

  it('expire for real, stay listable as expired for a while, then are dropped from storage', async () => {
    const { store } = db.freshStore();
    const short = await store.addSilence(
      { networkId: 'acme', isp: 'x', reason: 'short', expiresAt: Date.now() + 300 },
      Date.now(),
    );
    expect((await store.listSilences('acme')).map((s) => s.id)).toEqual([short.id]);
    expect(await store.listSilences('acme', Date.now(), { expired: true })).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await store.listSilences('acme')).toEqual([]);
    expect(
      (await store.listSilences('acme', Date.now(), { expired: true })).map((s) => s.id),
    ).toEqual([short.id]);
    const state = await store.loadNetworkState('acme', {
      asOf: DAY,
      kind: 'traffic-check',
      now: Date.now(),
    });
    expect(state.silences).toEqual([]);
    // Past the retention of expired silences, the next write drops it.
    const later = Date.now() + EXPIRED_SILENCE_RETENTION_MS + 1000;
    const long = await store.addSilence(
      { networkId: 'acme', reason: 'long', expiresAt: later + 60_000 },
      later,
    );
    const raw = await db.redis.hget(store.keys.network('acme'), FIELD.silences);
    expect(raw?.split('\n').map((l) => JSON.parse(l).id)).toEqual([long.id]);
    expect(await db.redis.hkeys(store.keys.silenceIds)).toEqual([long.id]);
    expect(await store.removeSilence(short.id, later)).toBe(false);
  });

  it('a silence that starts later is listed but not in force until it starts', async () => {
    const { store } = db.freshStore();
    const later = await store.addSilence(
      { networkId: 'acme', reason: 'window', startsAt: NOW + 1000, expiresAt: NOW + 2000 },
      NOW,
    );
    expect(await store.listSilences('acme', NOW)).toEqual([later]);
    expect((await load(store)).silences).toEqual([]);
    await expect(
      store.addSilence(
        { networkId: 'acme', reason: 'r', startsAt: NOW + 5, expiresAt: NOW + 5 },
        NOW,
      ),
    ).rejects.toThrow(/start before it ends/);
  });

  it('a silence must expire in the future', async () => {
    const { store } = db.freshStore();
    await expect(
      store.addSilence({ networkId: 'acme', reason: 'r', expiresAt: NOW }, NOW),
    ).rejects.toMatchObject({ code: 'THM_STORE' });
  });

  it('adding a silence does not disturb a run in progress (no revision change)', async () => {
    const { store } = db.freshStore();
    const state = await load(store);
    await store.addSilence({ networkId: 'acme', reason: 'r', expiresAt: NOW + 1 }, NOW);
    expect(await store.commitRun(effect({ expectedRev: state.rev }))).toMatchObject({
      committed: true,
    });
    expect(await store.listSilences('acme', NOW)).toHaveLength(1);
  });
});
