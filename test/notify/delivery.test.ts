import net from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { SmtpError } from '../../src/errors.js';
import { createLogger, silentLogger, type Logger } from '../../src/log.js';
import { pairEvents } from '../../src/monitor/decide.js';
import { buildNotification } from '../../src/notify/notification.js';
import { renderAlertEmail } from '../../src/notify/render/alert.js';
import { classificationOf, exampleAlertInput, examplePair } from './example-alert.js';
import { NotificationSender } from '../../src/notify/sender.js';
import { createMailTransport } from '../../src/notify/transport.js';
import type { MailTransport, Notification } from '../../src/notify/types.js';
import { startSmtp, type TestSmtp } from '../harness/smtp.js';
import { startDroppingSmtp } from './dropping-smtp.js';
import { MemoryOutbox } from './memory-outbox.js';

const FROM = 'Traffic Health <alerts@thm.example>';
const TO = ['ops@acme.example', 'oncall@acme.example'];

function mailConfig(url: string | undefined, outboxDir = '/nonexistent') {
  return {
    url: url === undefined ? undefined : new Secret(url),
    from: FROM,
    outboxDir,
    timeoutMs: 2_000,
    requireTLS: false,
  };
}

let counter = 0;
/** A real alert notification; `tag` makes each one a distinct identity. */
function alertNotification(
  options: { name?: string; isps?: string[]; tag?: string; now?: number } = {},
): Notification {
  const example = exampleAlertInput();
  const tag = options.tag ?? `n${(counter += 1)}`;
  const pairs = options.isps
    ? options.isps.map((isp, i) =>
        examplePair({
          domainId: 100 + i,
          domainUrl: `https://d${i}.example.com`,
          isp,
          class: 'new',
          firstSeen: '2026-11-21',
          clicks: [10, 500, 500, 500],
        }),
      )
    : example.classification.pairs;
  const input = {
    ...example,
    network: { id: 'acme', name: options.name ?? 'Acme Network' },
    classification: classificationOf('2026-11-21', pairs, options.isps ? [] : [101]),
  };
  const email = renderAlertEmail(input);
  if (!email) throw new Error('no e-mail');
  return buildNotification({
    networkId: 'acme',
    kind: 'alert',
    asOf: '2026-11-21',
    to: TO,
    email,
    events: [...pairEvents(input.classification, { notifyCleared: true }), `test|${tag}`],
    from: FROM,
    now: options.now ?? Date.UTC(2026, 10, 21, 7, 0),
  });
}

interface Rig {
  store: MemoryOutbox;
  transport: MailTransport;
  sender: NotificationSender;
  clock: { now: number };
}

function rig(
  url: string | undefined,
  logger: Logger = silentLogger,
  store?: MemoryOutbox,
  clock = { now: 1_000_000 },
): Rig {
  const outbox = store ?? new MemoryOutbox(() => clock.now);
  const transport = createMailTransport(mailConfig(url), logger);
  const sender = new NotificationSender({
    store: outbox,
    transport,
    from: FROM,
    logger,
    now: () => clock.now,
    backoff: { baseMs: 1_000, maxMs: 60_000 },
  });
  return { store: outbox, transport, sender, clock };
}

describe('delivery over real SMTP', () => {
  let smtp: TestSmtp;
  const open: MailTransport[] = [];
  const track = (r: Rig) => (open.push(r.transport), r);

  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
    smtp.messages.length = 0;
    smtp.faults.length = 0;
    smtp.attempts = 0;
  });
  afterAll(async () => {
    await smtp.close();
  });

  it('sends a multipart/alternative message with subject, recipients, Message-ID and id header', async () => {
    const { store, sender } = track(rig(smtp.url));
    const n = alertNotification();
    store.add(n);
    expect(await sender.deliver(n.id)).toBe('sent');
    const [mail] = await smtp.waitForMessages(1);
    const parsed = mail!.parsed;
    expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
    expect(parsed.subject).toBe(
      '[Traffic Health] Acme Network: 6 new, 1 worse, 1 reminder, 2 cleared (2026-11-21)',
    );
    expect(parsed.messageId).toBe(n.messageId);
    expect(parsed.messageId).toMatch(/^<[0-9a-f]{32}@thm\.example>$/);
    expect(parsed.headers.get('x-thm-notification')).toBe(n.id);
    expect(parsed.date?.getTime()).toBe(n.createdAt);
    expect(mail!.envelope).toEqual({ from: 'alerts@thm.example', to: TO });
    expect(parsed.text).toContain('1 domain looks blocked: https://trk.acme-offers.com');
    expect(parsed.html).toContain('Looks blocked: 6 ISPs together');
    expect(parsed.text).toContain('Charter Communications'); // non-ASCII: see the hostile-strings test
    // What every automated sender sets: no auto-replies, a per-network list id, one thread
    // per network and month, and the "-- " signature separator kept through the encoding.
    expect(parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(parsed.headers.get('x-auto-response-suppress')).toBe('All');
    expect(mail!.raw).toMatch(/\r\nList-Id: <acme\.thm\.example>\r\n/i);
    expect(parsed.inReplyTo).toBe('<thm-thread.acme.2026-11@thm.example>');
    expect(parsed.references).toBe('<thm-thread.acme.2026-11@thm.example>');
    expect(parsed.text).toMatch(/\n-- \nTraffic Health Monitor, network acme/);
    expect(store.entry(n.id)).toMatchObject({ state: 'sent', sentAt: 1_000_000 });
    // Delivered once: a second call does not send again.
    expect(await sender.deliver(n.id)).toBe('already-sent');
    expect(smtp.attempts).toBe(1);
  });

  it('hostile API strings: no injected header, no extra recipient, escaped HTML, non-ASCII intact', async () => {
    const { store, sender } = track(rig(smtp.url));
    const n = alertNotification({
      name: 'Acme\r\nBcc: victim@evil.example\r\nX-Evil: 1',
      isps: [
        '<script>alert(1)</script>',
        'Evil\r\nBcc: victim2@evil.example',
        'Telefónica',
        '中国电信',
        'L'.repeat(3000),
      ],
    });
    store.add(n);
    expect(await sender.deliver(n.id)).toBe('sent');
    const [mail] = await smtp.waitForMessages(1);
    const parsed = mail!.parsed;
    expect(mail!.envelope.to).toEqual(TO);
    expect(parsed.headers.has('bcc')).toBe(false);
    expect(parsed.headers.has('x-evil')).toBe(false);
    // No header line of the message or of its parts (body lines may say anything).
    for (const block of headerBlocks(mail!.raw)) expect(block).not.toMatch(/^(Bcc|X-Evil):/im);
    expect(parsed.subject).toBe(
      '[Traffic Health] Acme Bcc: victim@evil.example X-Evil: 1: 5 new (2026-11-21)',
    );
    expect(parsed.html).not.toContain('<script>');
    expect(parsed.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    for (const part of [parsed.text ?? '', parsed.html || '']) {
      expect(part).toContain('Telefónica');
      expect(part).toContain('中国电信');
      expect(part).not.toContain('L'.repeat(200));
    }
  });

  it('451 then accepted: retried with backoff, exactly one delivery', async () => {
    const { store, sender, clock } = track(rig(smtp.url));
    const n = alertNotification();
    store.add(n);
    smtp.faults.push({ type: 'reply', code: 451, message: 'Try again later' });
    expect(await sender.deliver(n.id)).toBe('retry');
    const entry = store.entry(n.id);
    expect(entry).toMatchObject({ state: 'pending', attempts: 1 });
    expect(entry.lastError).toContain('451');
    expect(entry.nextAttemptAt).toBeGreaterThanOrEqual(clock.now + 500);
    expect(entry.nextAttemptAt).toBeLessThanOrEqual(clock.now + 1_000);
    // Not due yet.
    expect((await sender.deliverDue()).due).toBe(0);
    clock.now = entry.nextAttemptAt!;
    expect(await sender.deliverDue()).toMatchObject({ due: 1, sent: 1 });
    expect(await sender.deliver(n.id)).toBe('already-sent');
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.attempts).toBe(2);
  });

  it('smtp-server connection destroyed mid-DATA: retried, then exactly one accepted', async () => {
    const { store, sender, clock } = track(rig(smtp.url));
    const n = alertNotification();
    store.add(n);
    smtp.faults.push({ type: 'drop' });
    let outcome = await sender.deliver(n.id);
    expect(outcome).toBe('retry');
    for (let i = 0; i < 3 && outcome === 'retry'; i++) {
      clock.now = store.entry(n.id).nextAttemptAt ?? clock.now;
      outcome = await sender.deliver(n.id);
    }
    expect(outcome).toBe('sent');
    expect(smtp.attempts).toBe(2);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.parsed.messageId).toBe(n.messageId);
  });

  it.each([1, 3])(
    'TCP connection cut mid-DATA %i time(s): retried, then exactly one accepted',
    async (drops) => {
      const dropping = await startDroppingSmtp(drops);
      const r = track(rig(dropping.url));
      try {
        const n = alertNotification();
        r.store.add(n);
        const outcomes: string[] = [];
        for (let i = 0; i < 5; i++) {
          const outcome = await r.sender.deliver(n.id);
          outcomes.push(outcome);
          if (outcome !== 'retry') break;
          r.clock.now = r.store.entry(n.id).nextAttemptAt ?? r.clock.now;
        }
        expect(outcomes.at(-1)).toBe('sent');
        expect(outcomes.at(-2)).not.toBe('sent');
        expect(dropping.attempts).toBe(drops + 1);
        expect(dropping.accepted).toHaveLength(1);
        expect(dropping.accepted[0]).toContain(`Message-ID: ${n.messageId}`);
        // The pool requeues a cut message once by itself; beyond that the outbox retries.
        if (drops > 1) expect(outcomes).toContain('retry');
      } finally {
        await r.transport.close();
        await dropping.close();
      }
    },
  );

  it('550: marked failed with the server reply, the others still delivered', async () => {
    const { store, sender } = track(rig(smtp.url));
    const [a, b, c] = [
      alertNotification({ now: 1 }),
      alertNotification({ now: 2 }),
      alertNotification({ now: 3 }),
    ];
    for (const n of [a!, b!, c!]) store.add(n);
    smtp.faults.push({
      type: 'reply',
      code: 550,
      message: 'Mailbox unavailable: policy rejection',
    });
    const summary = await sender.deliverDue();
    expect(summary).toMatchObject({ due: 3, sent: 2, failed: 1, retry: 0 });
    expect(store.entry(a!.id)).toMatchObject({ state: 'failed', failedAt: 1_000_000 });
    expect(store.entry(a!.id).lastError).toMatch(/550.*Mailbox unavailable: policy rejection/);
    expect(store.entry(b!.id).state).toBe('sent');
    expect(store.entry(c!.id).state).toBe('sent');
    expect(smtp.messages.map((m) => m.parsed.messageId).sort()).toEqual(
      [b!.messageId, c!.messageId].sort(),
    );
    // Failed is final: not due, not re-sent.
    expect(await sender.deliver(a!.id)).toBe('failed');
    expect((await sender.deliverDue()).due).toBe(0);
    expect(smtp.attempts).toBe(3);
  });

  it('a restarted sender delivers what the previous one left pending', async () => {
    const clock = { now: 1_000_000 };
    const first = track(rig(smtp.url, silentLogger, undefined, clock));
    const pending = [
      alertNotification({ now: 1 }),
      alertNotification({ now: 2 }),
      alertNotification({ now: 3 }),
    ];
    for (const n of pending) first.store.add(n);
    smtp.faults.push({ type: 'reply', code: 421, message: 'Service shutting down' });
    expect(await first.sender.deliver(pending[0]!.id)).toBe('retry');
    await first.transport.close(); // the process goes away

    const second = track(rig(smtp.url, silentLogger, first.store, clock));
    clock.now += 120_000;
    expect(await second.sender.deliverDue()).toMatchObject({ due: 3, sent: 3 });
    expect(smtp.messages.map((m) => m.parsed.messageId).sort()).toEqual(
      pending.map((n) => n.messageId).sort(),
    );
    expect(await second.sender.deliverDue()).toMatchObject({ due: 0 });
  });
});

describe('SMTP auth', () => {
  const PASSWORD = 'S3cr3t-P@ss:w/rd';
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp({ auth: { user: 'mailer', pass: PASSWORD } });
  });
  afterAll(async () => {
    await smtp.close();
  });

  function capture(): { logger: Logger; output: () => string } {
    const chunks: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    return {
      logger: createLogger({ destination: stream, level: 'debug' }),
      output: () => chunks.join(''),
    };
  }

  it('user:password from the URL works, and the password reaches no log line', async () => {
    const { logger, output } = capture();
    const r = rig(smtp.url, logger);
    const n = alertNotification();
    r.store.add(n);
    expect(await r.sender.deliver(n.id)).toBe('sent');
    await r.transport.close();
    expect(smtp.messages).toHaveLength(1);
    expect(output()).toContain('notification sent');
    expect(output()).not.toContain(PASSWORD);
    expect(output()).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('a wrong password is rejected (535) without the password in the error or the logs', async () => {
    const { logger, output } = capture();
    const wrong = 'Wr0ng-P@ss:w/rd';
    const url = smtp.url.replace(encodeURIComponent(PASSWORD), encodeURIComponent(wrong));
    const r = rig(url, logger);
    const n = alertNotification();
    r.store.add(n);
    let thrown: unknown;
    try {
      await r.transport.send(n, FROM);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SmtpError);
    expect((thrown as SmtpError).code).toBe('THM_SMTP_REJECTED');
    expect((thrown as SmtpError).status).toBe(535);
    expect(await r.sender.deliver(n.id)).toBe('failed');
    await r.transport.close();
    const everything = [
      output(),
      (thrown as Error).message,
      String((thrown as SmtpError).remoteMessage),
      r.store.entry(n.id).lastError,
    ].join('\n');
    for (const secret of [
      wrong,
      encodeURIComponent(wrong),
      Buffer.from(`\u0000mailer\u0000${wrong}`).toString('base64'),
    ]) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe('mail.requireTLS against a server that offers no STARTTLS', () => {
  const auth = { user: 'thm', pass: 'smtp-pass-in-clear' };
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp({ auth });
  });
  afterAll(() => smtp.close());

  it('refuses to send in clear: no login, no message, rejected for good with a clear reason', async () => {
    const before = { logins: smtp.logins, attempts: smtp.attempts, messages: smtp.messages.length };
    const transport = createMailTransport(
      { ...mailConfig(smtp.url), requireTLS: true },
      silentLogger,
    );
    try {
      const error = await transport.send(alertNotification(), FROM).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SmtpError);
      expect(error).toMatchObject({ code: 'THM_SMTP_REJECTED', retryable: false });
      expect((error as Error).message).toMatch(
        /^SMTP server refused STARTTLS, and mail\.requireTLS sends nothing in clear: 5\d\d /,
      );
      expect((error as Error).message).not.toContain(auth.pass);
    } finally {
      await transport.close();
    }
    expect({
      logins: smtp.logins,
      attempts: smtp.attempts,
      messages: smtp.messages.length,
    }).toEqual(before);
  });

  it('without it, the same server gets the login and the message in clear', async () => {
    const before = { logins: smtp.logins, messages: smtp.messages.length };
    const transport = createMailTransport(mailConfig(smtp.url), silentLogger);
    try {
      await expect(transport.send(alertNotification(), FROM)).resolves.toMatchObject({
        accepted: true,
      });
    } finally {
      await transport.close();
    }
    expect({ logins: smtp.logins, messages: smtp.messages.length }).toEqual({
      logins: before.logins + 1,
      messages: before.messages + 1,
    });
  });
});

describe('connection problems', () => {
  it('a server that never greets times out as a transient error', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const transport = createMailTransport(
      { ...mailConfig(`smtp://127.0.0.1:${port}`), timeoutMs: 300 },
      silentLogger,
    );
    try {
      await expect(transport.send(alertNotification(), FROM)).rejects.toMatchObject({
        code: 'THM_SMTP_TRANSIENT',
        retryable: true,
      });
    } finally {
      await transport.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('nothing listening: transient', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const transport = createMailTransport(mailConfig(`smtp://127.0.0.1:${port}`), silentLogger);
    try {
      await expect(transport.send(alertNotification(), FROM)).rejects.toMatchObject({
        code: 'THM_SMTP_TRANSIENT',
      });
    } finally {
      await transport.close();
    }
  });
});

describe('without an SMTP URL: .eml and .html files in outboxDir', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'thm-outbox-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a real RFC 822 message and a browsable HTML, once per notification', async () => {
    const transport = createMailTransport(mailConfig(undefined, dir), silentLogger);
    const n = alertNotification({ name: 'Acme\r\nBcc: victim@evil.example' });
    const result = await transport.send(n, FROM);
    expect(result.accepted).toBe(true);
    const base = `2026-11-21-acme-alert-${n.id.slice(0, 8)}`;
    expect(readdirSync(dir).sort()).toEqual([`${base}.eml`, `${base}.html`]);

    const raw = readFileSync(path.join(dir, `${base}.eml`), 'utf8');
    expect(raw).toContain('\r\n'); // RFC 822 line ends
    const parsed = await simpleParser(raw);
    expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
    expect(parsed.messageId).toBe(n.messageId);
    expect(parsed.subject).toBe(n.subject);
    expect(parsed.headers.has('bcc')).toBe(false);
    expect(
      (parsed.to as { value: Array<{ address: string }> }).value.map((v) => v.address),
    ).toEqual(TO);
    expect(parsed.text).toContain('Charter Communications');
    expect(readFileSync(path.join(dir, `${base}.html`), 'utf8')).toBe(n.html);

    // Idempotent: the same notification again writes nothing new.
    expect((await transport.send(n, FROM)).response).toContain('already written');
    expect(readdirSync(dir)).toHaveLength(2);
    await transport.close();
  });

  it('the sender marks it sent', async () => {
    const r = rig(undefined);
    // rig() uses /nonexistent; point a fresh transport at the temp dir through the sender.
    const transport = createMailTransport(mailConfig(undefined, dir), silentLogger);
    const sender = new NotificationSender({
      store: r.store,
      transport,
      from: FROM,
      logger: silentLogger,
      now: () => 5,
    });
    const n = alertNotification();
    r.store.add(n);
    expect(await sender.deliver(n.id)).toBe('sent');
    expect(r.store.entry(n.id)).toMatchObject({ state: 'sent', sentAt: 5 });
    expect(readdirSync(dir).filter((f) => f.includes(n.id.slice(0, 8)))).toHaveLength(2);
  });

  it('an unwritable directory is a transient error (retried, not lost)', async () => {
    // A directory under a regular file (ENOTDIR). Not a /proc path: Node's recursive mkdir
    // loops forever there (ENOENT from procfs, EEXIST from its parent, again).
    const file = path.join(dir, 'not-a-directory');
    writeFileSync(file, '');
    const transport = createMailTransport(
      mailConfig(undefined, path.join(file, 'outbox')),
      silentLogger,
    );
    await expect(transport.send(alertNotification(), FROM)).rejects.toMatchObject({
      code: 'THM_SMTP_TRANSIENT',
    });
  });
});

/** The header block of a raw message and of each of its MIME parts. */
function headerBlocks(raw: string): string[] {
  const blocks = [raw.slice(0, raw.indexOf('\r\n\r\n'))];
  const boundary = /boundary="([^"]+)"/.exec(blocks[0]!)?.[1];
  if (boundary) {
    for (const part of raw.split(`--${boundary}\r\n`).slice(1)) {
      blocks.push(part.slice(0, part.indexOf('\r\n\r\n')));
    }
  }
  expect(blocks.length).toBeGreaterThan(2);
  return blocks;
}
