import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../../src/config/secret.js';
import { ChannelError } from '../../../src/errors.js';
import { createLogger, silentLogger } from '../../../src/log.js';
import { parseConfig } from '../../../src/config/load.js';
import { dumpRedis } from '../../harness/dump-redis.js';
import { buildChannelDeliveries } from '../../../src/notify/channels/deliveries.js';
import { ChannelSender } from '../../../src/notify/channels/sender.js';
import { verifySignature } from '../../../src/notify/channels/signature.js';
import {
  createChannelTransport,
  type ChannelTransport,
} from '../../../src/notify/channels/transport.js';
import type { ChannelConfig } from '../../../src/config/load.js';
import { SecretSource } from '../../../src/config/secret-source.js';
import type { ChannelTarget } from '../../../src/notify/channels/target.js';
import type { ChannelDelivery } from '../../../src/notify/types.js';
import { buildNotification } from '../../../src/notify/notification.js';
import { RedisStore } from '../../../src/store/redis-store.js';
import { freePort, waitFor } from '../../harness/ports.js';
import { startReceiver, type TestReceiver } from '../../harness/receiver.js';
import { startRedis, type TestRedis } from '../../harness/redis.js';

const SECRET = 'whsec-test-0123456789';

/** A channel secret written in the config itself. */
const inline = (value: string) => new SecretSource('test', { value: new Secret(value) });
/** A secret path, as a Slack incoming-webhook URL has: it must reach no message. */
const SECRET_PATH = '/services/T000/B000/XXXXsecretXXXX';

function problemDelivery(
  asOf: string,
  channels: readonly Pick<ChannelConfig, 'type' | 'name' | 'kinds'>[],
): ChannelDelivery[] {
  const notification = buildNotification({
    networkId: 'acme',
    kind: 'problem',
    asOf,
    to: [],
    email: {
      subject: `[Traffic Health] Acme Network: monitoring problem (${asOf})`,
      text: 't',
      html: 'h',
    },
    events: [`problem|${asOf}`],
    from: 'alerts@thm.example',
    now: Date.now(),
  });
  return buildChannelDeliveries({
    notification,
    network: { id: 'acme', name: 'Acme Network' },
    channels,
    event: {
      kind: 'problem',
      problem: {
        kind: 'traffic-check',
        openedAt: 0,
        code: 'THM_API_AUTH',
        message: 'No Authentication Method Found',
      },
    },
  });
}

async function failure(promise: Promise<unknown>): Promise<ChannelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ChannelError) return error;
    throw error;
  }
  throw new Error('expected a ChannelError');
}

describe('channel transport against a real HTTP receiver', () => {
  let receiver: TestReceiver;
  let transport: ChannelTransport;
  let webhook: ChannelTarget;

  beforeAll(async () => {
    receiver = await startReceiver();
    transport = createChannelTransport({
      outboxDir: '/nonexistent',
      logger: silentLogger,
      timeouts: { connectMs: 500, headersMs: 400, bodyMs: 400, totalMs: 1_500 },
    });
    webhook = {
      type: 'webhook',
      name: 'hook',
      url: new Secret(`${receiver.url}${SECRET_PATH}`),
      secret: new Secret(SECRET),
    };
  });
  afterEach(() => {
    receiver.requests.length = 0;
    receiver.answer = () => ({ status: 200, body: 'ok' });
  });
  afterAll(async () => {
    await transport.close();
    await receiver.close();
  });

  it('posts the stored body as is, with the notification id and a signature that verifies', async () => {
    const [d] = problemDelivery('2026-11-21', [webhook]);
    const result = await transport.post(d!, webhook);
    expect(result).toEqual({ status: 200, response: '200 ok' });
    const [req] = receiver.requests;
    expect(req).toMatchObject({ method: 'POST', path: SECRET_PATH, body: d!.body });
    expect(req!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req!.headers['x-thm-notification-id']).toBe(d!.notificationId);
    expect(verifySignature(SECRET, req!.raw, String(req!.headers['x-thm-signature']))).toBe(true);
    expect(verifySignature('another key', req!.raw, String(req!.headers['x-thm-signature']))).toBe(
      false,
    );
  });

  it('a Slack channel posts without the webhook headers', async () => {
    const slack: ChannelTarget = {
      type: 'slack',
      name: 'slack',
      url: new Secret(`${receiver.url}${SECRET_PATH}`),
    };
    const [d] = problemDelivery('2026-11-21', [slack]);
    await transport.post(d!, slack);
    expect(receiver.requests[0]!.headers['x-thm-signature']).toBeUndefined();
    expect(JSON.parse(receiver.requests[0]!.body)).toHaveProperty('blocks');
  });

  it.each([
    [503, 'THM_CHANNEL_TRANSIENT', { 'retry-after': '120' }, 120_000],
    [429, 'THM_CHANNEL_TRANSIENT', { 'retry-after': '7' }, 7_000],
    [500, 'THM_CHANNEL_TRANSIENT', {}, undefined],
    [408, 'THM_CHANNEL_TRANSIENT', {}, undefined],
    [400, 'THM_CHANNEL_REJECTED', { 'retry-after': '7' }, undefined],
    [404, 'THM_CHANNEL_REJECTED', {}, undefined],
    [410, 'THM_CHANNEL_REJECTED', {}, undefined],
    [301, 'THM_CHANNEL_REJECTED', { location: 'https://elsewhere.example/' }, undefined],
  ] as const)('%i is %s (Retry-After %j -> %s ms)', async (status, code, headers, retryAfterMs) => {
    receiver.answer = () => ({
      status,
      body: `reply ${status} invalid_payload`,
      headers: { ...headers },
    });
    const [d] = problemDelivery('2026-11-21', [webhook]);
    const error = await failure(transport.post(d!, webhook));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toBe(
      `webhook channel "hook" answered ${status}: reply ${status} invalid_payload`,
    );
    expect(error.retryAfterMs).toBe(retryAfterMs);
    expect(receiver.requests).toHaveLength(1);
  });

  it('reads only the first bytes of a huge reply', async () => {
    receiver.answer = () => ({ status: 400, body: 'x'.repeat(2_000_000) });
    const [d] = problemDelivery('2026-11-21', [webhook]);
    const error = await failure(transport.post(d!, webhook));
    expect(error.code).toBe('THM_CHANNEL_REJECTED');
    expect(error.remoteMessage!.length).toBeLessThanOrEqual(300);
  });

  it('an endpoint that never answers times out as transient, without the URL in the message', async () => {
    receiver.answer = () => ({ hang: true });
    const [d] = problemDelivery('2026-11-21', [webhook]);
    const started = Date.now();
    const error = await failure(transport.post(d!, webhook));
    expect(error.code).toBe('THM_CHANNEL_TRANSIENT');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(JSON.stringify([error.message, error.remoteMessage])).not.toContain('secret');
  });

  it('a dropped connection and nothing listening are transient, the URL in no message', async () => {
    receiver.answer = () => ({ destroy: true });
    const [d] = problemDelivery('2026-11-21', [webhook]);
    const dropped = await failure(transport.post(d!, webhook));
    expect(dropped.code).toBe('THM_CHANNEL_TRANSIENT');
    const port = await freePort();
    const closed: ChannelTarget = {
      ...webhook,
      url: new Secret(`http://127.0.0.1:${port}${SECRET_PATH}`),
    };
    const refused = await failure(transport.post(d!, closed));
    expect(refused.code).toBe('THM_CHANNEL_TRANSIENT');
    expect(refused.message).toMatch(/connection failed \(ECONNREFUSED\)/);
    for (const e of [dropped, refused])
      expect(`${e.message} ${e.remoteMessage}`).not.toContain('secret');
  });

  it('a channel without a URL writes the body as a .json file beside the e-mails, once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-channels-'));
    const files = createChannelTransport({ outboxDir: dir, logger: silentLogger });
    const dry: ChannelTarget = { type: 'slack', name: 'slack' };
    const [d] = problemDelivery('2026-11-21', [dry]);
    const result = await files.post(d!, dry);
    expect(result.response).toMatch(/^written: .*2026-11-21-acme-problem-[0-9a-f]{8}-slack\.json$/);
    expect((await files.post(d!, dry)).response).toMatch(/^already written/);
    const [file] = readdirSync(dir);
    expect(JSON.parse(readFileSync(path.join(dir, file!), 'utf8'))).toEqual(JSON.parse(d!.body));
    await files.close();
  });
});

describe('ChannelSender through the real outbox', () => {
  let redis: TestRedis;
  let receiver: TestReceiver;
  let store: RedisStore;
  let transport: ChannelTransport;
  let channels: ChannelConfig[];
  let day = 0;

  beforeAll(async () => {
    redis = await startRedis();
    receiver = await startReceiver();
    store = new RedisStore(redis.client(), `thmch${process.pid}`);
    transport = createChannelTransport({ outboxDir: '/nonexistent', logger: silentLogger });
    channels = [
      {
        type: 'webhook',
        name: 'webhook',
        url: inline(`${receiver.url}/hook`),
        secret: inline(SECRET),
      },
      { type: 'slack', name: 'slack', url: inline(`${receiver.url}${SECRET_PATH}`) },
    ];
  });
  afterEach(() => {
    receiver.requests.length = 0;
    receiver.answer = () => ({ status: 200, body: 'ok' });
  });
  afterAll(async () => {
    await transport.close();
    await receiver.close();
    await redis.shutdown();
  });

  /** Commits a failed run whose problem notification goes to `use` channels only. */
  async function decide(use: ChannelConfig[] = channels): Promise<ChannelDelivery[]> {
    day += 1;
    const asOf = `2026-10-${String(day).padStart(2, '0')}`;
    const deliveries = problemDelivery(asOf, use);
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
        notificationIds: [],
        runs: 1,
      },
      notifications: [],
      deliveries,
    });
    expect(result.committed).toBe(true);
    return deliveries;
  }

  function sender(options: Partial<ConstructorParameters<typeof ChannelSender>[0]> = {}) {
    return new ChannelSender({
      store,
      transport,
      channel: (networkId, name) =>
        networkId === 'acme' ? channels.find((c) => c.name === name) : undefined,
      logger: silentLogger,
      backoff: { baseMs: 20, maxMs: 100 },
      ...options,
    });
  }

  it('503 (Retry-After) then 200: one delivery sent, the retry the same body, id and signature', async () => {
    const [hook] = await decide([channels[0]!]);
    receiver.answer = (_req, i) =>
      i === 0
        ? { status: 503, body: 'busy', headers: { 'retry-after': '30' } }
        : { status: 200, body: 'ok' };
    const s = sender();
    const first = await s.attempt(hook!.id);
    expect(first.outcome).toBe('retry');
    // Retry-After (30 s) is longer than the backoff (at most 100 ms here): it wins.
    expect(first.retryAt! - Date.now()).toBeGreaterThan(28_000);
    const entry = await store.getNotification(hook!.id);
    expect(entry).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'webhook channel "webhook" answered 503: busy',
    });
    expect(await store.pendingNotificationIds(10, Date.now())).not.toContain(hook!.id);
    // Not before it is due, whoever asks; a sender whose clock says it is due posts it.
    expect(await s.attempt(hook!.id)).toEqual({ outcome: 'not-due', retryAt: first.retryAt });
    const later = sender({ now: () => first.retryAt! });
    expect((await later.attempt(hook!.id)).outcome).toBe('sent');
    expect((await later.attempt(hook!.id)).outcome).toBe('already-sent');
    expect(receiver.requests).toHaveLength(2);
    const [a, b] = receiver.requests;
    expect(b!.body).toBe(a!.body);
    expect(b!.headers['x-thm-notification-id']).toBe(a!.headers['x-thm-notification-id']);
    expect(b!.headers['x-thm-signature']).toBe(a!.headers['x-thm-signature']);
    expect((await store.getNotification(hook!.id))?.state).toBe('sent');
  });

  it('400 ends failed with the reply; retried (notify retry) it is sent', async () => {
    const [hook] = await decide([channels[0]!]);
    receiver.answer = (_req, i) =>
      i === 0 ? { status: 400, body: 'invalid_payload' } : { status: 200, body: 'ok' };
    const s = sender();
    expect((await s.attempt(hook!.id)).outcome).toBe('failed');
    const failed = await store.failedNotifications();
    expect(failed.find((e) => e.notification.id === hook!.id)?.lastError).toBe(
      'webhook channel "webhook" answered 400: invalid_payload',
    );
    expect(await store.retryFailed(hook!.id)).toBe(true);
    expect((await s.attempt(hook!.id)).outcome).toBe('sent');
    expect(receiver.requests).toHaveLength(2);
  });

  it('one channel down does not hold up the other: each delivery has its own state', async () => {
    const [hook, slack] = await decide();
    receiver.answer = (req) =>
      req.path === '/hook' ? { status: 503 } : { status: 200, body: 'ok' };
    const s = sender();
    const outcomes = await Promise.all([s.attempt(hook!.id), s.attempt(slack!.id)]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['retry', 'sent']);
  });

  it('an endpoint that hangs holds at most maxPerEndpoint posts; the rest wait unposted, the other endpoint goes on', async () => {
    // The channel's own deadline (timeoutMs) bounds the hanging posts.
    const slow: ChannelConfig = { ...channels[0]!, timeoutMs: 3_000 };
    const hooks = [];
    for (let i = 0; i < 4; i++) hooks.push((await decide([slow]))[0]!);
    const [slack] = await decide([channels[1]!]);
    receiver.answer = (req) =>
      req.path === '/hook' ? { hang: true } : { status: 200, body: 'ok' };
    const s = sender({
      channel: (_, name) => (name === 'webhook' ? slow : channels.find((c) => c.name === name)),
    });
    let settled = 0;
    const startedAt = Date.now();
    const hanging = hooks.map((d) => s.attempt(d.id).finally(() => (settled += 1)));
    await waitFor(() => receiver.requests.length >= 2 || undefined);
    // Two are held back at once, unposted and not counted as an attempt.
    await waitFor(() => settled >= 2 || undefined);
    expect(await s.attempt(slack!.id)).toEqual({ outcome: 'sent' });
    expect(settled).toBe(2); // the two posts still hang while Slack went through
    const outcomes = await Promise.all(hanging);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual([
      'endpoint-busy',
      'endpoint-busy',
      'retry',
      'retry',
    ]);
    expect(receiver.requests.filter((r) => r.path === '/hook')).toHaveLength(2);
    const busy = hooks.filter((_, i) => outcomes[i]!.outcome === 'endpoint-busy');
    for (const d of busy) {
      expect(await store.getNotification(d.id)).toMatchObject({ state: 'pending', attempts: 0 });
      const outcome = outcomes[hooks.indexOf(d)]!;
      // Due again after endpointBusyDelayMs (2 s by default, with jitter).
      expect(outcome.retryAt).toBeGreaterThanOrEqual(startedAt + 2_000);
    }
    // The lease was given back: the next attempt posts it.
    receiver.answer = () => ({ status: 200, body: 'ok' });
    expect((await s.attempt(busy[0]!.id)).outcome).toBe('sent');
  });

  it('transient failures give up after maxAttempts, listed as failed with the last reply', async () => {
    const [hook] = await decide([channels[0]!]);
    receiver.answer = () => ({ status: 502, body: 'bad gateway' });
    // A clock an hour ahead each time: every attempt is due (the backoff is at most 100 ms).
    let clock = Date.now();
    const s = sender({ maxAttempts: 3, now: () => (clock += 3_600_000) });
    expect((await s.attempt(hook!.id)).outcome).toBe('retry');
    expect((await s.attempt(hook!.id)).outcome).toBe('retry');
    expect((await s.attempt(hook!.id)).outcome).toBe('failed');
    expect((await store.getNotification(hook!.id))?.lastError).toBe(
      'gave up after 3 attempts: webhook channel "webhook" answered 502: bad gateway',
    );
    // Put back by `thm notify retry`: a fresh start, not failed again at the first 502.
    expect(await store.retryFailed(hook!.id)).toBe(true);
    expect((await s.attempt(hook!.id)).outcome).toBe('retry');
  });

  it('two replicas attempting the same delivery at once: posted once', async () => {
    const [hook] = await decide([channels[0]!]);
    receiver.answer = () =>
      new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: 'ok' }), 300));
    const replicas = [
      sender({ store: new RedisStore(redis.client(), `thmch${process.pid}`) }),
      sender(),
    ];
    const outcomes = await Promise.all(replicas.map((r) => r.attempt(hook!.id)));
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['in-flight', 'sent']);
    expect(receiver.requests).toHaveLength(1);
  });

  it('a channel no longer configured fails for good, saying so', async () => {
    const gone: ChannelConfig = {
      type: 'webhook',
      name: 'old-hook',
      url: inline(`${receiver.url}/x`),
      secret: inline('k'),
    };
    const [d] = await decide([gone]);
    expect((await sender().attempt(d!.id)).outcome).toBe('failed');
    expect((await store.getNotification(d!.id))?.lastError).toBe(
      'webhook channel "old-hook" of network acme is no longer configured',
    );
    expect(receiver.requests).toHaveLength(0);
  });

  it('a channel read from files: a rewritten file is used by the next delivery, one gone is retried naming the file, never a value', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-channel-files-'));
    const urlFile = path.join(dir, 'hook_url');
    const keyFile = path.join(dir, 'hook_key');
    writeFileSync(urlFile, `${receiver.url}/first-urltoken\n`);
    writeFileSync(keyFile, 'whsec-first-key\n');
    // As the config loads it, without reading either file.
    const config = parseConfig(
      {
        channels: [{ type: 'webhook', name: 'filed', urlFile: 'hook_url', secretFile: 'hook_key' }],
        networks: [
          {
            id: 'acme',
            baseUrl: 'https://api.example.com/v1',
            apiKeyEnv: 'ACME_API_KEY',
            recipients: [],
          },
        ],
      },
      { env: {}, source: path.join(dir, 'thm.yaml') },
    );
    const filed = config.networks[0]!.channels[0]!;
    const logged: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => logged.push(c.toString()));
    const logger = createLogger({ destination: stream, level: 'trace' });
    const s = sender({ channel: () => filed, logger });
    const post = async () => {
      const [d] = await decide([filed]);
      return { id: d!.id, outcome: (await s.attempt(d!.id)).outcome };
    };

    expect((await post()).outcome).toBe('sent');
    writeFileSync(urlFile, `${receiver.url}/second-urltoken`);
    writeFileSync(keyFile, 'whsec-second-key');
    expect((await post()).outcome).toBe('sent');
    const [first, second] = receiver.requests;
    expect([first!.path, second!.path]).toEqual(['/first-urltoken', '/second-urltoken']);
    expect(
      verifySignature('whsec-first-key', first!.raw, String(first!.headers['x-thm-signature'])),
    ).toBe(true);
    expect(
      verifySignature('whsec-second-key', second!.raw, String(second!.headers['x-thm-signature'])),
    ).toBe(true);

    rmSync(keyFile);
    const gone = await post();
    expect(gone.outcome).toBe('retry');
    expect((await store.getNotification(gone.id))?.lastError).toBe(
      `network acme: channels[0].secretFile: cannot read ${keyFile} (no such file)`,
    );
    writeFileSync(keyFile, 'whsec-second-key');
    writeFileSync(urlFile, 'http://hooks.example.com/third-urltoken');
    const plain = await post();
    expect(plain.outcome).toBe('retry');
    expect((await store.getNotification(plain.id))?.lastError).toBe(
      'network acme: channels[0].urlFile: the URL must be https:// (http is allowed only for loopback hosts)',
    );
    expect(receiver.requests).toHaveLength(2);

    const seen = (await dumpRedis(redis.client())) + logged.join('');
    expect(logged.join('')).toContain('channels[0].secretFile');
    for (const secret of ['urltoken', 'whsec-first-key', 'whsec-second-key'])
      expect(seen).not.toContain(secret);
  });

  it('Redis keeps no channel secret: not the URL, not the signing key', async () => {
    await decide();
    const dump = await redis.client().hgetall(`thmch${process.pid}:store:outbox:body`);
    const text = JSON.stringify(dump);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('secret');
    expect(text).not.toContain(receiver.url);
  });
});
