import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectStatus } from '../../src/cli/commands/status.js';
import { deliverJobId } from '../../src/jobs/names.js';
import { createLogger } from '../../src/log.js';
import type { WebhookPayload } from '../../src/notify/channels/webhook-payload.js';
import { builtinScenario, type Scenario } from '../../src/sandbox/index.js';
import { runThmAsync } from '../harness/cli.js';
import { dumpRedis } from '../harness/dump-redis.js';
import { waitFor } from '../harness/ports.js';
import { startReceiver, type ReceivedRequest, type TestReceiver } from '../harness/receiver.js';
import { valueOf } from '../observability/scrape.js';
import { completed, startJobStack, type JobStack } from './stack.js';

/** The webhook's signing key and the secret parts of both URLs: none may leak anywhere. */
const HOOK_SECRET = 'whsec-integration-7f3a9c41d2';
const HOOK_PATH = '/hook/urltoken-5b1e0c9a77';
const SLACK_PATH = '/services/T0THM/B0THM/slacktoken-90ac3e51f4';
const SECRETS = [HOOK_SECRET, 'urltoken-5b1e0c9a77', 'slacktoken-90ac3e51f4'];

/** Where the webhook is documented for the people who receive it. */
const WEBHOOK_DOC = 'docs/configuration.md';

/**
 * What a receiver does: docs/configuration.md "The webhook" shows it in a few lines of Node,
 * and that very code is run here (the key from THM_HOOK_SECRET, as it says), so the doc stays
 * true.
 */
function verify(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  const doc = readFileSync(WEBHOOK_DOC, 'utf8');
  const code = /Verify the signature[^]*?```js\n([^]*?)```/.exec(doc)?.[1];
  if (!code)
    throw new Error(`${WEBHOOK_DOC}: no verification snippet after "Verify the signature"`);
  const verified = new Function('require', 'process', `${code}\nreturn verified;`)(
    createRequire(import.meta.url),
    { env: { THM_HOOK_SECRET: secret } },
  ) as (body: Buffer, header: unknown) => boolean;
  return verified(raw, header);
}

/** Every string anywhere in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/** The demo story, plus a network whose ISP names try to ping the channel and make links. */
function scenario(): Scenario {
  const demo = builtinScenario('demo');
  return {
    ...demo,
    networks: [
      ...demo.networks,
      {
        id: 'evil',
        premium: true,
        days: {
          '2026-11-20': {
            entries: [
              { domain: 7, isp: '<!channel> AT&T', clicks: [10, 900, 900, 900] },
              { domain: 7, isp: '<http://x|y>', clicks: [5, 800, 800, 800] },
              { domain: 8, isp: '<@U0123> & <!here|here>', clicks: [1, 700, 700, 700] },
            ],
          },
        },
      },
    ],
  } as Scenario;
}

/**
 * Channels in the running worker, every part real: the sandbox API, Redis, SMTP and an HTTP
 * receiver on loopback standing for the webhook endpoint and Slack.
 */
describe('channels beside e-mail, through the worker', () => {
  let stack: JobStack;
  let receiver: TestReceiver;
  let logs = '';
  const hooks = () => receiver.requests.filter((r) => r.path === HOOK_PATH);
  const slacks = () => receiver.requests.filter((r) => r.path === SLACK_PATH);
  const mailsOf = (asOf: string) =>
    stack.smtp.messages.filter((m) => m.parsed.subject?.includes(`(${asOf})`));
  const scrapeMetrics = async () =>
    (await fetch(`${stack.workers[0]!.monitoring!.server.url}/metrics`)).text();
  const outboxGauge = (text: string, state: 'pending' | 'failed', channel: string) =>
    valueOf(text, `thm_outbox_${state}`, { channel });

  beforeAll(async () => {
    receiver = await startReceiver();
    const channels = [
      { type: 'webhook', urlEnv: 'ACME_HOOK_URL', secretEnv: 'ACME_HOOK_SECRET', timeoutMs: 2_000 },
      { type: 'slack', urlEnv: 'ACME_SLACK_URL', kinds: ['alert', 'problem', 'restored'] },
    ];
    stack = await startJobStack(
      ['acme', 'evil'],
      {},
      {
        scenario: scenario(),
        env: {
          ACME_HOOK_URL: `${receiver.url}${HOOK_PATH}`,
          ACME_HOOK_SECRET: HOOK_SECRET,
          ACME_SLACK_URL: `${receiver.url}${SLACK_PATH}`,
        },
        rawNetworks: (sbx) => [
          sbx.rawNetwork('acme', { name: 'Acme Network', channels }),
          sbx.rawNetwork('evil', { name: 'Evil Network', recipients: [], channels: [channels[1]] }),
        ],
      },
    );
    const stream = new PassThrough();
    stream.on('data', (d: Buffer) => (logs += d.toString()));
    // Monitoring on a free port: /metrics is read over HTTP, as Prometheus does.
    await stack.startWorker(
      { monitoring: { port: 0 } },
      createLogger({ destination: stream, level: 'trace' }),
    );
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  it('an alert goes to the e-mail, the webhook and Slack, each once; the webhook is signed and carries the e-mail identity', async () => {
    stack.sbx.sandbox.setDay('2026-11-15');
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-15'));
    expect(outcome.deliveries.map((d) => d.channel).sort()).toEqual(['slack', 'webhook']);
    await waitFor(
      () => (hooks().length && slacks().length && mailsOf('2026-11-15').length) || undefined,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks()).toHaveLength(1);
    expect(slacks()).toHaveLength(1);
    expect(mailsOf('2026-11-15')).toHaveLength(1);

    const [hook] = hooks();
    const email = mailsOf('2026-11-15')[0]!;
    expect(verify(HOOK_SECRET, hook!.raw, hook!.headers['x-thm-signature'])).toBe(true);
    expect(verify('another key', hook!.raw, hook!.headers['x-thm-signature'])).toBe(false);
    expect(hook!.headers['content-type']).toBe('application/json; charset=utf-8');
    const payload = JSON.parse(hook!.body) as WebhookPayload;
    expect(hook!.headers['x-thm-notification-id']).toBe(payload.notificationId);
    expect(payload).toMatchObject({
      version: 1,
      notificationId: outcome.notifications[0]!.id,
      messageId: email.parsed.messageId,
      kind: 'alert',
      network: { id: 'acme', name: 'Acme Network' },
      asOf: '2026-11-15',
      title: email.parsed.subject,
      counts: { new: 2 },
    });
    expect(payload.pairs).toHaveLength(2);
    // The documented example has the fields of the real one, no more, no fewer.
    const example = JSON.parse(
      /An alert, as `thm demo` writes it:\s*```json\n([^]*?)```/.exec(
        readFileSync(WEBHOOK_DOC, 'utf8'),
      )![1]!,
    ) as WebhookPayload;
    expect(Object.keys(example).sort()).toEqual(Object.keys(payload).sort());
    expect(Object.keys(example.pairs![0]!).sort()).toEqual(Object.keys(payload.pairs![0]!).sort());
    expect(Object.keys(example.domains![0]!).sort()).toEqual(
      Object.keys(payload.domains![0]!).sort(),
    );
    expect(payload.pairs![0]).toMatchObject({
      class: 'new',
      clicks: { yesterday: expect.any(Number) },
    });

    const slack = JSON.parse(slacks()[0]!.body) as { text: string; blocks: unknown[] };
    expect(slack.text).toContain('2 new');
    expect(slacks()[0]!.headers['x-thm-signature']).toBeUndefined();

    const metrics = await stack.workers[0]!.metrics.render();
    for (const channel of ['email', 'webhook', 'slack']) {
      expect(metrics).toContain(
        `thm_notifications_total{network="acme",kind="alert",channel="${channel}",state="decided"} 1`,
      );
      expect(metrics).toContain(
        `thm_notifications_total{network="acme",kind="alert",channel="${channel}",state="sent"} 1`,
      );
    }
    const status = await collectStatus(
      stack.config,
      stack.workers[0]!.runtime.store,
      stack.redis.client(),
    );
    expect(status.outbox.channels).toMatchObject({
      email: { sent: 1, pending: 0, failed: 0 },
      webhook: { sent: 1, pending: 0, failed: 0 },
      slack: { sent: 1, pending: 0, failed: 0 },
    });
  });

  it('503 then 200: the webhook is posted again with the same id, body and signature, once sent; the e-mail and Slack did not wait', async () => {
    receiver.requests.length = 0;
    let refused = 0;
    receiver.answer = (req) =>
      req.path === HOOK_PATH && refused++ === 0
        ? { status: 503, body: 'maintenance', headers: { 'retry-after': '1' } }
        : { status: 200, body: 'ok' };
    stack.sbx.sandbox.setDay('2026-11-16');
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-16'));
    const hookId = outcome.deliveries.find((d) => d.channel === 'webhook')!.id;
    await waitFor(() => (slacks().length && mailsOf('2026-11-16').length) || undefined);
    // The e-mail and Slack are through while the webhook waits for its retry (5 s or more).
    expect(await stack.workers[0]!.runtime.store.getNotification(hookId)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'webhook channel "webhook" answered 503: maintenance',
    });
    // Its job waits in the channels queue meanwhile: the job data, as all of Redis, holds the
    // delivery's id and nothing of the channel's URL or key.
    const waiting = await stack.redis.client().keys(`${stack.config.redis.prefix}:channels:*`);
    expect(waiting.length).toBeGreaterThan(0);
    const redisText = await dumpRedis(stack.redis.client());
    expect(redisText).toContain(`{"notificationId":"${hookId}"}`);
    for (const secret of SECRETS) expect(redisText).not.toContain(secret);
    await waitFor(
      async () =>
        (await stack.workers[0]!.runtime.store.getNotification(hookId))?.state === 'sent' ||
        undefined,
      { timeoutMs: 20_000, what: 'the webhook delivered after the 503' },
    );
    await new Promise((r) => setTimeout(r, 500));
    const [first, second, ...more] = hooks();
    expect(more).toEqual([]);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['x-thm-notification-id']).toBe(first!.headers['x-thm-notification-id']);
    expect(second!.headers['x-thm-signature']).toBe(first!.headers['x-thm-signature']);
    expect(verify(HOOK_SECRET, second!.raw, second!.headers['x-thm-signature'])).toBe(true);
    expect(new Set(hooks().map((r) => r.headers['x-thm-notification-id'])).size).toBe(1);
    expect(slacks()).toHaveLength(1);
    expect(mailsOf('2026-11-16')).toHaveLength(1);
    receiver.answer = () => ({ status: 200, body: 'ok' });
  }, 40_000);

  it('a 400 ends failed with the reply: thm notify failed lists it, thm notify retry posts it again', async () => {
    receiver.requests.length = 0;
    receiver.answer = (req) =>
      req.path === HOOK_PATH
        ? { status: 400, body: 'invalid_payload: unknown field' }
        : { status: 200, body: 'ok' };
    stack.sbx.sandbox.setDay('2026-11-17');
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-17'));
    const hookId = outcome.deliveries.find((d) => d.channel === 'webhook')!.id;
    const store = stack.workers[0]!.runtime.store;
    await waitFor(
      async () => (await store.getNotification(hookId))?.state === 'failed' || undefined,
    );
    expect(hooks()).toHaveLength(1);

    const env = cliEnv();
    const failed = await runThmAsync(['notify', 'failed', '--json'], { env });
    expect(failed.code).toBe(0);
    const rows = (JSON.parse(failed.stdout) as { failed: Array<Record<string, string>> }).failed;
    expect(rows).toContainEqual(
      expect.objectContaining({
        id: hookId,
        network: 'acme',
        kind: 'alert',
        channel: 'webhook',
        asOf: '2026-11-17',
        error: 'webhook channel "webhook" answered 400: invalid_payload: unknown field',
      }),
    );
    const table = await runThmAsync(['notify', 'failed'], { env });
    expect(table.stdout).toMatch(/CHANNEL/);
    expect(table.stdout).toContain('answered 400: invalid_payload');

    const status = await runThmAsync(['status', '--json'], { env });
    const report = JSON.parse(status.stdout) as {
      healthy: boolean;
      outbox: { channels: Record<string, { failed: number }> };
      failedNotifications: Array<{ id: string; channel: string }>;
    };
    expect(report.healthy).toBe(false);
    expect(report.outbox.channels.webhook?.failed).toBe(1);
    expect(report.failedNotifications).toContainEqual(
      expect.objectContaining({ id: hookId, channel: 'webhook' }),
    );
    // /metrics says which channel is stuck (its Redis-read figures are cached a few seconds).
    const stuck = await waitFor(
      async () => {
        const text = await scrapeMetrics();
        return outboxGauge(text, 'failed', 'webhook') === 1 ? text : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(outboxGauge(stuck, 'failed', 'email')).toBe(0);
    expect(outboxGauge(stuck, 'failed', 'slack')).toBe(0);

    receiver.answer = () => ({ status: 200, body: 'ok' });
    const retry = await runThmAsync(['notify', 'retry', hookId], { env });
    expect(retry.stdout.trim()).toBe(`${hookId}: pending again; a running worker delivers it`);
    await waitFor(async () => (await store.getNotification(hookId))?.state === 'sent' || undefined);
    expect(hooks()).toHaveLength(2);
    expect(hooks()[1]!.body).toBe(hooks()[0]!.body);
    expect(mailsOf('2026-11-17')).toHaveLength(1);
  }, 60_000);

  it('the problem and restored notices go to the channels too (Slack takes them by its kinds)', async () => {
    receiver.requests.length = 0;
    stack.sbx.sandbox.setDay('2026-11-18');
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'access', status: 401, times: 1 });
    const failed = await stack.run('traffic-check', 'acme', '2026-11-18');
    expect(failed.state).toBe('failed');
    await waitFor(() => (hooks().length >= 1 && slacks().length >= 1) || undefined);
    completed(await stack.run('traffic-check', 'acme', '2026-11-18'));
    const kind = (r: ReceivedRequest) => (JSON.parse(r.body) as { kind?: string }).kind;
    await waitFor(() => hooks().some((r) => kind(r) === 'restored') || undefined);
    await waitFor(() => slacks().length >= 2 || undefined);
    await new Promise((r) => setTimeout(r, 500));
    // Each notice once: problem first (its own run), then restored (and the day's alert, if any).
    expect(kind(hooks()[0]!)).toBe('problem');
    expect(
      hooks()
        .map(kind)
        .filter((k) => k !== 'alert')
        .sort(),
    ).toEqual(['problem', 'restored']);
    const problem = JSON.parse(hooks()[0]!.body) as WebhookPayload;
    expect(problem.problem).toMatchObject({ code: 'THM_API_AUTH' });
    expect(slacks()[0]!.body).toMatch(/problem/i);
    expect(slacks().filter((r) => /restored/i.test(r.body))).toHaveLength(1);
  }, 40_000);

  it('Slack text with hostile ISP names stays inert: no mention, no link, every & escaped', async () => {
    receiver.requests.length = 0;
    stack.sbx.sandbox.setDay('2026-11-20');
    const outcome = completed(await stack.run('traffic-check', 'evil', '2026-11-20'));
    // No recipients: the alert goes to Slack only.
    expect(outcome.notifications).toEqual([]);
    expect(outcome.deliveries.map((d) => d.channel)).toEqual(['slack']);
    await waitFor(() => slacks().length || undefined);
    const body = JSON.parse(slacks()[0]!.body) as unknown;
    const texts = strings(body);
    const all = texts.join('\n');
    expect(all).toContain('&lt;!channel&gt; AT&amp;T');
    expect(all).toContain('&lt;http://x|y&gt;');
    expect(all).toContain('&lt;@U0123&gt; &amp; &lt;!here|here&gt;');
    for (const text of texts) {
      expect(text).not.toMatch(/<[!@#]|<https?:/);
      expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    }
  });

  it('two replicas, and a second job for the same delivery while the first posts: each channel posted once', async () => {
    receiver.requests.length = 0;
    const second = await stack.startWorker();
    receiver.answer = () =>
      new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: 'ok' }), 1_000));
    stack.sbx.sandbox.setDay('2026-11-19');
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-19'));
    await waitFor(() => hooks().length || undefined);
    // As if a sweep of another replica had handed it out again under another job id.
    for (const d of outcome.deliveries)
      await second.runtime.channelsQueue!.add(
        'deliver',
        { notificationId: d.id },
        {
          jobId: `${deliverJobId(d.id)}.race`,
          removeOnComplete: true,
        },
      );
    const store = second.runtime.store;
    await waitFor(async () => {
      const states = await Promise.all(outcome.deliveries.map((d) => store.getNotification(d.id)));
      return states.every((e) => e?.state === 'sent') || undefined;
    });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hooks()).toHaveLength(1);
    expect(slacks()).toHaveLength(1);
    receiver.answer = () => ({ status: 200, body: 'ok' });
    await second.close();
    stack.workers.splice(stack.workers.indexOf(second), 1);
  }, 30_000);

  it("a channel's kinds filter: premium-lost goes to the e-mail and the webhook, not to Slack; /metrics counts it per channel", async () => {
    receiver.requests.length = 0;
    stack.sbx.sandbox.setDay('2026-11-20');
    stack.sbx.sandbox.setPremium('acme', false);
    try {
      const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-20'));
      const premium = outcome.deliveries.filter((d) => d.kind === 'premium-lost');
      expect(premium.map((d) => d.channel)).toEqual(['webhook']);
      await waitFor(() => hooks().some((r) => r.body.includes('"premium-lost"')) || undefined);
      await waitFor(
        () => stack.smtp.messages.some((m) => /premium/i.test(m.parsed.subject ?? '')) || undefined,
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(slacks().filter((r) => /premium/i.test(r.body))).toEqual([]);

      const metrics = await scrapeMetrics();
      const count = (channel: string, state: string) =>
        Number(
          new RegExp(
            `^thm_notifications_total\\{network="acme",kind="premium-lost",channel="${channel}",state="${state}"\\} (\\d+)$`,
            'm',
          ).exec(metrics)?.[1] ?? 0,
        );
      expect(count('webhook', 'decided')).toBe(1);
      expect(count('webhook', 'sent')).toBe(1);
      expect(count('email', 'sent')).toBe(1);
      expect(count('slack', 'decided')).toBe(0);
      expect(metrics).toMatch(
        /^thm_notifications_total\{network="acme",kind="alert",channel="slack",state="sent"\} [1-9]/m,
      );
    } finally {
      stack.sbx.sandbox.setPremium('acme', true);
    }
  });

  it('a network whose stored state is unreadable: its problem notice still goes to its channel', async () => {
    receiver.requests.length = 0;
    const admin = stack.redis.client();
    const key = stack.workers[0]!.runtime.store.keys.network('evil');
    const saved = await admin.dumpBuffer(key);
    await admin.del(key);
    await admin.set(key, 'a string, not a hash');
    try {
      const failed = await stack.run('traffic-check', 'evil', '2026-11-21');
      expect(failed.state === 'failed' ? failed.error : '').toContain('WRONGTYPE');
      await waitFor(() => slacks().length || undefined);
      expect(slacks()[0]!.body).toMatch(/problem/i);
      expect(slacks()[0]!.body).toContain('WRONGTYPE');
    } finally {
      await admin.del(key);
      if (saved) await admin.restore(key, 0, saved);
    }
  });

  it('no channel secret in logs, Redis (outbox, job data) or CLI output', async () => {
    const env = cliEnv();
    const outputs = await Promise.all(
      [
        ['status'],
        ['status', '--json'],
        ['notify', 'failed', '--json'],
        ['config', 'check'],
        ['config', 'check', '--json'],
      ].map((args) => runThmAsync(args, { env })),
    );
    expect(outputs.find((o) => o.stdout.includes('channels'))).toBeDefined(); // config check shows them
    // thm status counts the outbox per channel.
    for (const channel of ['email', 'webhook', 'slack'])
      expect(outputs[0]!.stdout).toMatch(
        new RegExp(`^  ${channel}: \\d+ pending, [1-9]\\d* sent, \\d+ failed$`, 'm'),
      );
    const redisText = await dumpRedis(stack.redis.client());
    expect(redisText).toContain('"channel":{"type":"webhook","name":"webhook"}'); // read the outbox
    const everything = [logs, redisText, ...outputs.flatMap((o) => [o.stdout, o.stderr])].join(
      '\n',
    );
    expect(logs).toContain('channel delivery sent');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });

  let configFile: string | undefined;
  /** The CLI's environment: a config file of the same networks and channels. */
  function cliEnv(): NodeJS.ProcessEnv {
    if (!configFile) {
      const dir = mkdtempSync(path.join(tmpdir(), 'thm-channels-'));
      configFile = path.join(dir, 'thm.json');
      const channels = [
        { type: 'webhook', urlEnv: 'ACME_HOOK_URL', secretEnv: 'ACME_HOOK_SECRET' },
        { type: 'slack', urlEnv: 'ACME_SLACK_URL', kinds: ['alert', 'problem', 'restored'] },
      ];
      writeFileSync(
        configFile,
        JSON.stringify({
          redis: { url: stack.redis.url, prefix: stack.config.redis.prefix },
          networks: [
            stack.sbx.rawNetwork('acme', { channels }),
            stack.sbx.rawNetwork('evil', { recipients: [], channels: [channels[1]] }),
          ],
        }),
      );
    }
    return {
      ...stack.sbx.env,
      THM_CONFIG: configFile,
      ACME_HOOK_URL: `${receiver.url}${HOOK_PATH}`,
      ACME_HOOK_SECRET: HOOK_SECRET,
      ACME_SLACK_URL: `${receiver.url}${SLACK_PATH}`,
    };
  }
});
