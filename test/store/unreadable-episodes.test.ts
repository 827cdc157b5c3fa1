import { describe, expect, it } from 'vitest';
import { FIELD } from '../../src/store/keys.js';
import { NOW, effect, load, notification } from './fixtures.js';
import { useStoreRedis } from './store-redis.js';

const db = useStoreRedis();

describe('the episode of a network whose state is unreadable', () => {
  const episode = {
    kind: 'traffic-check' as const,
    openedAt: 5,
    code: 'THM_STORE' as const,
    message: 'x',
  };

  it('opens once with its notice; a second failure adds nothing', async () => {
    const { store } = db.freshStore();
    expect(await store.openUnreadableEpisode('acme', episode, [notification('p1')])).toBe(true);
    expect(await store.openUnreadableEpisode('acme', episode, [notification('p2')])).toBe(false);
    expect(await store.pendingNotificationIds(10, NOW)).toEqual(['p1']);
    expect(await store.unreadableEpisodeNetworks()).toEqual(['acme']);
  });

  it("hands over to the network's state as its open problem, and moves the revision on", async () => {
    const { store } = db.freshStore();
    await store.commitRun(effect());
    await store.openUnreadableEpisode('acme', episode, []);
    expect(await store.handOverUnreadableEpisode('acme')).toBe(true);
    const state = await load(store);
    expect(state).toMatchObject({ rev: 2, problem: episode });
    expect(await store.unreadableEpisodeNetworks()).toEqual([]);
    expect(await store.handOverUnreadableEpisode('acme')).toBe(false);
  });

  it('keeps a problem already open there; a deleted network gets the episode, no revision', async () => {
    const open = { ...episode, code: 'THM_API_AUTH' as const };
    const { store } = db.freshStore();
    await store.commitRun(effect({ problem: open }));
    await store.openUnreadableEpisode('acme', episode, []);
    await store.handOverUnreadableEpisode('acme');
    expect((await load(store)).problem).toEqual(open);

    const { store: fresh, prefix } = db.freshStore();
    await fresh.openUnreadableEpisode('acme', episode, []);
    await fresh.handOverUnreadableEpisode('acme');
    expect(await db.redis.hgetall(`${prefix}:store:net:acme`)).toEqual({
      problem: JSON.stringify(episode),
    });
  });

  it('an entry that is not an episode is dropped, never copied into the state', async () => {
    const { store, prefix } = db.freshStore();
    await store.commitRun(effect());
    await db.redis.hset(store.keys.unreadableEpisodes, 'acme', '{not json');
    expect(await store.handOverUnreadableEpisode('acme')).toBe(true);
    expect(await db.redis.hexists(`${prefix}:store:net:acme`, FIELD.problem)).toBe(0);
    expect((await load(store)).problem).toBeUndefined();
  });
});
