import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/ports.js';
import { startReceiver, type TestReceiver } from '../harness/receiver.js';
import { spawnWorkerProcess } from '../harness/worker-process.js';
import { completed, startJobStack, type JobStack } from './stack.js';

const HOOK_SECRET = 'whsec-crash-3e8d0a5c19';
const HOOK_PATH = '/hook/crashtoken-c0ffee1234';

/**
 * At least once across a crash: a `thm worker` process killed (SIGKILL) right after its post
 * reached the endpoint, before it could record it. Another worker posts it again once the lease
 * has expired, with the same X-Thm-Notification-Id, body and signature: the endpoint, keyed on
 * that id, has one notification.
 */
describe('a channel delivery across a worker killed after sending', () => {
  let stack: JobStack;
  let receiver: TestReceiver;
  let env: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    // A short deadline: the lease is 3 x 1 s, at least 5 s.
    const channels = [
      { type: 'webhook', urlEnv: 'ACME_HOOK_URL', secretEnv: 'ACME_HOOK_SECRET', timeoutMs: 1_000 },
    ];
    const channelEnv = {
      ACME_HOOK_URL: `${receiver.url}${HOOK_PATH}`,
      ACME_HOOK_SECRET: HOOK_SECRET,
    };
    stack = await startJobStack(
      ['acme'],
      {},
      {
        env: channelEnv,
        rawNetworks: (sbx) => [sbx.rawNetwork('acme', { name: 'Acme Network', channels })],
      },
    );
    env = stack.processEnv({
      worker: { ...stack.config.worker, lockDurationMs: 2000, stalledIntervalMs: 1000 },
      networks: [stack.sbx.rawNetwork('acme', { name: 'Acme Network', channels })],
      env: channelEnv,
      logLevel: 'debug',
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await stack.close();
    await receiver.close();
  });

  it('posted again after the lease expired, with the same id, body and signature; sent once recorded', async () => {
    const w = spawnWorkerProcess(env, children);
    const { child, exited } = w;
    await w.started();

    // The first post reaches the endpoint; the worker dies before it hears the answer.
    receiver.answer = (_req, index) => {
      if (index > 0) return { status: 200, body: 'ok' };
      child.kill('SIGKILL');
      return new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: 'ok' }), 200));
    };
    stack.sbx.sandbox.setDay('2026-11-15');
    const running = stack.run('traffic-check', 'acme', '2026-11-15', { timeoutMs: 30_000 });
    await exited;
    expect(receiver.requests).toHaveLength(1);

    // Another worker: the stalled deliver job finds the lease still held; the sweep hands the
    // delivery out again once it has expired.
    const worker = await stack.startWorker();
    const outcome = completed(await running);
    const id = outcome.deliveryIds[0]!;
    expect(id).toBe(`${outcome.notificationIds[0]}-webhook`);
    await waitFor(
      async () => (await worker.runtime.store.getNotification(id))?.state === 'sent' || undefined,
      { timeoutMs: 20_000, what: 'the webhook delivery recorded as sent' },
    );
    await new Promise((r) => setTimeout(r, 1_000));

    const [first, second, ...more] = receiver.requests;
    expect(more).toEqual([]);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['x-thm-notification-id']).toBe(first!.headers['x-thm-notification-id']);
    expect(second!.headers['x-thm-signature']).toBe(first!.headers['x-thm-signature']);
    expect(second!.headers['x-thm-signature']).toBe(
      `sha256=${createHmac('sha256', HOOK_SECRET).update(second!.raw).digest('hex')}`,
    );
    // Keyed on its idempotency key, the endpoint has one notification.
    expect(new Set(receiver.requests.map((r) => r.headers['x-thm-notification-id'])).size).toBe(1);
    // The dead worker's logs carry neither the URL's secret part nor the signing key.
    expect(w.stderr()).toContain('"msg":"worker started; e-mails go to smtp://127.0.0.1:');
    expect(w.stderr()).not.toContain('crashtoken-c0ffee1234');
    expect(w.stderr()).not.toContain(HOOK_SECRET);
  }, 60_000);
});
