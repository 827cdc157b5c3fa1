import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { createDeliverProcessor } from '../../src/jobs/deliver.js';
import type { DeliverJobData } from '../../src/jobs/job-data.js';
import { MAIL_QUEUE } from '../../src/jobs/names.js';
import { enqueueDeliveries } from '../../src/jobs/runtime.js';
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

  const attemptsSeen: Array<{ outcome: string; at: number }> = [];

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

  /** A sender, as one replica would have it: on `on` (its own connection), leases of `leaseMs`. */
  function sender(
    options: {
      on?: RedisStore;
      leaseMs?: number;
      backoff?: { baseMs: number; maxMs: number };
      random?: () => number;
    } = {},
  ): {
    sender: NotificationSender;
    close: () => Promise<void>;
  } {
    const transport = createMailTransport(
      {
        url: new Secret(smtp.url),
        from: FROM,
        outboxDir: '/nonexistent',
        timeoutMs: 2_000,
        requireTLS: false,
      },
      silentLogger,
    );
    return {
      sender: new NotificationSender({
        store: options.on ?? store,
        transport,
        ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
        from: FROM,
        logger: silentLogger,
        backoff: options.backoff ?? { baseMs: 20, maxMs: 100 },
        ...(options.random ? { random: options.random } : {}),
        onOutcome: (_n, outcome) => attemptsSeen.push({ outcome, at: Date.now() }),
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
    expect(await store.pendingNotificationIds(100, Date.now())).toEqual([]);
  });

  it('the deliver job keeps the sender schedule: after a 451 it waits until nextAttemptAt, then one e-mail', async () => {
    const n = problemNotification('2026-12-01');
    await record([n], '2026-12-01');
    const before = smtp.messages.length;
    attemptsSeen.length = 0;
    smtp.faults.push({ type: 'reply', code: 451, message: 'Greylisted, try again' });
    // Due again exactly 3 s after the 451 (6 s step, equal jitter at its floor). BullMQ's own
    // backoff used to retry the job after 1..2 s, whatever the outbox said.
    const rig = sender({ backoff: { baseMs: 6_000, maxMs: 6_000 }, random: () => 0 });
    const prefix = `dq${process.pid}`;
    const queue = new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis.client(), prefix });
    const worker = new Worker<DeliverJobData, string>(
      MAIL_QUEUE,
      createDeliverProcessor(rig.sender, silentLogger),
      { connection: redis.client(), prefix },
    );
    try {
      await enqueueDeliveries(queue, [n.id]);
      await waitFor(
        async () => ((await store.getNotification(n.id))?.state === 'sent' ? true : undefined),
        { what: 'the notification to be sent', timeoutMs: 10_000 },
      );
      expect(attemptsSeen.map((a) => a.outcome)).toEqual(['retry', 'sent']);
      expect(await store.getNotification(n.id)).toMatchObject({ attempts: 2 });
      const [first, second] = attemptsSeen;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_950);
      // Nothing tried in between: the claim refuses an entry before its nextAttemptAt.
      expect(smtp.messages.slice(before).map((m) => m.parsed.messageId)).toEqual([n.messageId]);
    } finally {
      await worker.close();
      await queue.close();
      await rig.close();
    }
  });

  it('a claim before nextAttemptAt is refused, whoever asks', async () => {
    const n = problemNotification('2026-12-02');
    await record([n], '2026-12-02');
    smtp.faults.push({ type: 'reply', code: 451, message: 'Greylisted, try again' });
    const rig = sender({ backoff: { baseMs: 60_000, maxMs: 60_000 } });
    try {
      expect(await rig.sender.deliver(n.id)).toBe('retry');
      const attempts = smtp.attempts;
      expect(await rig.sender.deliver(n.id)).toBe('not-due');
      expect(await rig.sender.deliverDue()).toMatchObject({ due: 0 });
      expect(smtp.attempts).toBe(attempts);
      const due = await rig.sender.dueAt(n.id);
      expect(due).toBe((await store.getNotification(n.id))?.nextAttemptAt);
      expect(due).toBeGreaterThan(Date.now() + 25_000);
    } finally {
      await rig.close();
    }
  });

  /** Two replicas: each its own Redis connection, store and SMTP transport. */
  async function replicas(leaseMs?: number, backoff?: { baseMs: number; maxMs: number }) {
    const connections = [redis.client(), redis.client()];
    const senders = connections.map((connection) =>
      sender({ on: new RedisStore(connection, `thmtest${process.pid}`), leaseMs, backoff }),
    );
    return {
      a: senders[0]!.sender,
      b: senders[1]!.sender,
      close: async () => {
        await Promise.all(senders.map((s) => s.close()));
        connections.forEach((c) => c.disconnect());
      },
    };
  }

  it('two replicas delivering the same notification at once send it exactly once', async () => {
    const n = problemNotification('2026-11-23');
    await record([n], '2026-11-23');
    const before = smtp.messages.length;
    const attemptsBefore = smtp.attempts;
    // A slow server keeps the first send in flight while the second replica tries.
    smtp.faults.push({ type: 'delay', ms: 400 }, { type: 'delay', ms: 400 });
    const { a, b, close } = await replicas();
    try {
      const outcomes = await Promise.all([a.deliver(n.id), b.deliver(n.id)]);
      expect(outcomes.sort()).toEqual(['in-flight', 'sent']);
      expect(await a.deliver(n.id)).toBe('already-sent');
      expect(await b.deliver(n.id)).toBe('already-sent');
    } finally {
      smtp.faults.length = 0;
      await close();
    }
    expect(smtp.attempts - attemptsBefore).toBe(1);
    expect(smtp.messages.slice(before).map((m) => m.parsed.messageId)).toEqual([n.messageId]);
    expect(await store.getNotification(n.id)).toMatchObject({ state: 'sent', attempts: 1 });
  });

  it('two replicas sweeping the same due notifications at once: each e-mail once', async () => {
    const batch = ['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'].map((asOf) =>
      problemNotification(asOf),
    );
    for (const n of batch) await record([n], n.asOf);
    const before = smtp.messages.length;
    smtp.faults.push(...batch.flatMap(() => [{ type: 'delay' as const, ms: 100 }]));
    const { a, b, close } = await replicas();
    try {
      const [sa, sb] = await Promise.all([a.deliverDue(), b.deliverDue()]);
      expect(sa.sent + sb.sent).toBe(batch.length);
      expect(sa.errors + sb.errors + sa.retry + sb.retry).toBe(0);
    } finally {
      smtp.faults.length = 0;
      await close();
    }
    const ids = smtp.messages.slice(before).map((m) => m.parsed.messageId);
    expect(ids.sort()).toEqual(batch.map((n) => n.messageId).sort());
  });

  it('a replica that died holding the lease blocks the others only until it expires', async () => {
    const n = problemNotification('2026-11-28');
    await record([n], '2026-11-28');
    const before = smtp.messages.length;
    // The dead replica: it claimed the notification, then never sent or released it.
    const claim = await store.claimNotification(n.id, 'dead-host:1:abc', 300, Date.now());
    expect(claim.status).toBe('claimed');
    const { a, close } = await replicas();
    try {
      expect(await a.deliver(n.id)).toBe('in-flight');
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(await a.deliver(n.id)).toBe('sent');
    } finally {
      await close();
    }
    expect(smtp.messages.slice(before).map((m) => m.parsed.messageId)).toEqual([n.messageId]);
  });

  it('a send that fails transiently gives the lease back with the retry', async () => {
    const n = problemNotification('2026-11-29');
    await record([n], '2026-11-29');
    smtp.faults.push({ type: 'reply', code: 451, message: 'Try later' });
    // Due again 1..2 s later: long enough to ask before it is due on a loaded machine.
    const { a, b, close } = await replicas(undefined, { baseMs: 2_000, maxMs: 2_000 });
    try {
      expect(await a.deliver(n.id)).toBe('retry');
      // Not held by a (that would be 'in-flight'), only not due before its next attempt; then
      // the other replica's delivery goes ahead.
      expect(await b.deliver(n.id)).toBe('not-due');
      const due = (await store.getNotification(n.id))?.nextAttemptAt ?? 0;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 5));
      expect(await b.deliver(n.id)).toBe('sent');
    } finally {
      await close();
    }
    expect(await store.getNotification(n.id)).toMatchObject({ state: 'sent', attempts: 2 });
  });
});
