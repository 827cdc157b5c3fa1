import { describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.js';
import { effect, notification } from './fixtures.js';
import { useStoreRedis } from './store-redis.js';

const db = useStoreRedis();

describe('outbox', () => {
  async function withPending(store: RedisStore, ...ids: string[]) {
    await store.commitRun(
      effect({ notifications: ids.map((id, i) => notification(id, { createdAt: 1000 + i })) }),
    );
  }

  it('pending -> attempt (due later) -> failed -> retried -> sent', async () => {
    const { store } = db.freshStore();
    await withPending(store, 'a', 'b');
    expect(await store.pendingNotificationIds(10, 5000)).toEqual(['a', 'b']);
    expect(await store.pendingNotificationIds(1, 5000)).toHaveLength(1);
    expect(await store.pendingNotificationIds(10, 999)).toEqual([]);

    await store.recordAttempt('a', '421 try later', 9000);
    expect(await store.pendingNotificationIds(10, 5000)).toEqual(['b']);
    const attempted = await store.getNotification('a');
    expect(attempted).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: '421 try later',
      nextAttemptAt: 9000,
    });
    expect(await store.pendingNotificationIds(10, 9000)).toEqual(['b', 'a']);

    await store.markFailed('a', '550 no such user', 9100);
    expect(await store.getNotification('a')).toMatchObject({
      state: 'failed',
      attempts: 2,
      lastError: '550 no such user',
      failedAt: 9100,
    });
    expect((await store.failedNotifications()).map((e) => e.notification.id)).toEqual(['a']);
    expect(await store.outboxCounts()).toEqual({ pending: 1, sent: 0, failed: 1 });
    // A failed entry is not retried by the sender ...
    expect(await store.pendingNotificationIds(10, 99_999)).toEqual(['b']);
    // ... until the operator says so.
    expect(await store.retryFailed('a', 9200)).toBe(true);
    expect(await store.retryFailed('a', 9200)).toBe(false);
    // A fresh start: the backoff and a channel's give-up bound count from the retry.
    expect(await store.getNotification('a')).toMatchObject({ state: 'pending', attempts: 0 });

    await store.markSent('a', 9300);
    await store.markSent('b', 9400);
    expect(await store.getNotification('a')).toMatchObject({
      state: 'sent',
      sentAt: 9300,
      attempts: 1,
    });
    expect(await store.outboxCounts()).toEqual({ pending: 0, sent: 2, failed: 0 });
    expect(await store.pendingNotificationIds(10, 99_999)).toEqual([]);
    // Late reports about a sent entry change nothing.
    await store.recordAttempt('a', 'late', 10_000);
    await store.markFailed('a', 'late', 10_000);
    expect(await store.getNotification('a')).toMatchObject({ state: 'sent', attempts: 1 });
    expect(await store.getNotification('nope')).toBeUndefined();
  });

  it('the delivery lease: one holder at a time, ended by a transition or its owner', async () => {
    const { store } = db.freshStore();
    const NOW_MS = 9_000;
    await withPending(store, 'a', 'b');
    const first = await store.claimNotification('a', 'one', 60_000, NOW_MS);
    expect(first).toMatchObject({ status: 'claimed', entry: { state: 'pending', attempts: 0 } });
    expect(first.status === 'claimed' && first.entry.notification.id).toBe('a');
    expect(await store.claimNotification('a', 'two', 60_000, NOW_MS)).toEqual({ status: 'busy' });
    expect(await store.claimNotification('a', 'one', 60_000, NOW_MS)).toEqual({ status: 'busy' });
    // Someone else's release does not end it; the owner's does.
    await store.releaseNotification('a', 'two');
    expect(await store.claimNotification('a', 'two', 60_000, NOW_MS)).toEqual({ status: 'busy' });
    await store.releaseNotification('a', 'one');
    expect((await store.claimNotification('a', 'two', 60_000, NOW_MS)).status).toBe('claimed');
    // A transition ends it, and the claim sees the new state.
    await store.recordAttempt('a', '451 later', 5000);
    // Not before its next attempt is due, whoever asks.
    expect(await store.claimNotification('a', 'three', 60_000, 4999)).toEqual({
      status: 'not-due',
      dueAt: 5000,
    });
    const again = await store.claimNotification('a', 'three', 60_000, NOW_MS);
    expect(again).toMatchObject({ status: 'claimed', entry: { attempts: 1, nextAttemptAt: 5000 } });
    await store.markSent('a', 6000);
    expect(await store.claimNotification('a', 'four', 60_000, NOW_MS)).toEqual({ status: 'sent' });
    await store.markFailed('b', '550 no', 6000);
    expect(await store.claimNotification('b', 'four', 60_000, NOW_MS)).toEqual({
      status: 'failed',
    });
    expect(await store.claimNotification('nope', 'four', 60_000, NOW_MS)).toEqual({
      status: 'missing',
    });
    // It expires by itself.
    await store.retryFailed('b', 7000);
    expect((await store.claimNotification('b', 'five', 50, NOW_MS)).status).toBe('claimed');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await store.claimNotification('b', 'six', 60_000, NOW_MS)).status).toBe('claimed');
  });

  it('sent entries are trimmed after 7 days', async () => {
    const { store } = db.freshStore();
    await withPending(store, 'old', 'new');
    await store.markSent('old', 1_000);
    const week = 7 * 24 * 60 * 60 * 1000;
    await store.markSent('new', 1_000 + week + 1);
    expect(await store.getNotification('old')).toBeUndefined();
    expect(await store.outboxCounts()).toEqual({ pending: 0, sent: 1, failed: 0 });
    expect(await db.redis.hlen(store.keys.outboxMeta)).toBe(1);
  });
});
