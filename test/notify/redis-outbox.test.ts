import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/log.js';
import { buildNotification } from '../../src/notify/notification.js';
import { renderProblemEmail } from '../../src/notify/render/problem.js';
import { NotificationSender } from '../../src/notify/sender.js';
import { createMailTransport } from '../../src/notify/transport.js';
import type { Notification } from '../../src/notify/types.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { waitFor } from '../harness/ports.js';
import { startSmtp, type TestSmtp } from '../harness/smtp.js';

/** The sender through the real store: the outbox survives the sender, 4xx retried, 5xx kept. */
describe('NotificationSender with RedisStore', () => {
  let redis: TestRedis;
  let smtp: TestSmtp;
  let store: RedisStore;
  const FROM = 'Traffic Health <alerts@thm.example>';

  beforeAll(async () => {
    redis = await startRedis();
    smtp = await startSmtp();
    store = new RedisStore(redis.client(), `thmtest${process.pid}`);
  });
  afterAll(async () => {
    await smtp.close();
    await redis.shutdown();
  });

  function problemNotification(asOf: string): Notification {
    const email = renderProblemEmail({
      network: { id: 'acme', name: 'Acme Network' },
      asOf,
      problem: {
        kind: 'traffic-check',
        openedAt: Date.now(),
        code: 'THM_API_AUTH',
        message: 'No Authentication Method Found',
      },
    });
    return buildNotification({
      networkId: 'acme',
      kind: 'problem',
      asOf,
      to: ['ops@acme.example'],
      email,
      events: [`problem|${asOf}`],
      from: FROM,
      now: Date.now(),
    });
  }

  async function record(notifications: Notification[], asOf: string): Promise<void> {
    const now = Date.now();
    const state = await store.loadNetworkState('acme', { asOf, kind: 'traffic-check', now });
    const result = await store.commitRun({
      networkId: 'acme',
      expectedRev: state.rev,
      run: {
        networkId: 'acme',
        kind: 'traffic-check',
        asOf,
        outcome: 'failed',
        startedAt: now,
        finishedAt: now,
        notificationIds: notifications.map((n) => n.id),
        runs: 1,
        error: { code: 'THM_API_AUTH', message: 'No Authentication Method Found' },
      },
      notifications,
    });
    expect(result.committed).toBe(true);
  }

  function sender(): { sender: NotificationSender; close: () => Promise<void> } {
    const transport = createMailTransport(
      { url: new Secret(smtp.url), from: FROM, outboxDir: '/nonexistent', timeoutMs: 2_000 },
      silentLogger,
    );
    return {
      sender: new NotificationSender({
        store,
        transport,
        from: FROM,
        logger: silentLogger,
        backoff: { baseMs: 20, maxMs: 100 },
      }),
      close: () => transport.close(),
    };
  }

  it('451 retried until accepted, 550 kept as failed, and a new sender picks up what is pending', async () => {
    const a = problemNotification('2026-11-21');
    const b = problemNotification('2026-11-22');
    await record([a], '2026-11-21');
    await record([b], '2026-11-22');

    smtp.faults.push({ type: 'reply', code: 451, message: 'Greylisted, try again' });
    smtp.faults.push({ type: 'reply', code: 550, message: 'No such mailbox' });
    const first = sender();
    expect(await first.sender.deliver(a.id)).toBe('retry');
    expect(await first.sender.deliver(b.id)).toBe('failed');
    await first.close(); // "restart"

    const second = sender();
    const summary = await waitFor(
      async () => {
        const s = await second.sender.deliverDue();
        return s.sent > 0 ? s : undefined;
      },
      { what: 'the pending notification to be delivered' },
    );
    expect(summary).toMatchObject({ sent: 1, failed: 0 });
    await second.close();

    expect(await store.getNotification(a.id)).toMatchObject({ state: 'sent', attempts: 2 });
    const failed = await store.getNotification(b.id);
    expect(failed?.state).toBe('failed');
    expect(failed?.lastError).toMatch(/550.*No such mailbox/);
    expect(smtp.messages.map((m) => m.parsed.messageId)).toEqual([a.messageId]);
    expect(await store.pendingNotifications()).toEqual([]);
  });
});
