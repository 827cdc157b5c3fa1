import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Config } from '../config/load.js';
import { redactUrl } from '../config/secret.js';
import { SmtpError } from '../errors.js';
import type { Logger } from '../log.js';
import { headerValue } from './render/format.js';
import type { MailTransport, OutboxNotification, SendResult } from './types.js';
import { automatedHeaders } from './headers.js';

/**
 * Hands notifications to the mail system: SMTP when `mail.url` is set, else `.eml` files (plus
 * a browsable `.html`) in `mail.outboxDir`.
 *
 * SMTP choices:
 * - One connection per message, not a pool (see SmtpMailTransport's constructor): every
 *   failure comes back to the sender, whose outbox retries with backoff.
 * - Short, explicit timeouts from `mail.timeoutMs` for every step (nodemailer's defaults are
 *   minutes), so a hung server fails the attempt instead of a job.
 * - STARTTLS is used whenever the server offers it on smtp://, and required with
 *   `mail.requireTLS` (nothing is sent in clear); smtps:// is TLS from the start.
 */
/**
 * Where the worker's e-mails go, for its start line: `smtp://host:port` (never the user or the
 * password), or `outbox dir ./outbox` without `mail.url`.
 */
export function describeMailTransport(mail: Config['mail']): string {
  if (!mail.url) return `outbox dir ${mail.outboxDir}`;
  const url = new URL(mail.url.reveal());
  // nodemailer's default ports: 465 for TLS from the start, else 587.
  const port = url.port || (url.protocol === 'smtps:' ? '465' : '587');
  return `${url.protocol}//${url.hostname}:${port}`;
}

export function createMailTransport(mail: Config['mail'], logger: Logger): MailTransport {
  return mail.url
    ? new SmtpMailTransport(mail.url.reveal(), mail, logger)
    : new OutboxDirTransport(mail.outboxDir, logger);
}

/** The message as nodemailer takes it. Every header value is one line (headerValue). */
export function mailOptions(n: OutboxNotification, from: string): Mail.Options {
  const automated = automatedHeaders(n, from);
  return {
    from: headerValue(from, 300),
    to: n.to.map((address) => headerValue(address, 300)),
    subject: headerValue(n.subject),
    // multipart/alternative: the text part, then the HTML part, each encoded by nodemailer.
    text: n.text,
    html: n.html,
    // Quoted-printable, said once: otherwise nodemailer chooses per part (and header) by counting
    // the Latin letters of the whole text with a regular expression, which for a long alert
    // costs more than encoding it; the texts are mostly Latin, so it chose this anyway.
    textEncoding: 'quoted-printable',
    messageId: n.messageId,
    date: new Date(n.createdAt),
    // One thread per network and month: see headers.ts.
    inReplyTo: automated.threadRootId,
    references: automated.threadRootId,
    headers: { ...automated.headers, 'X-THM-Notification': headerValue(n.id, 64) },
    // Never follow a link or read a file named by content: the message is self-contained.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

interface NodemailerError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

const TRANSIENT_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ETLS',
  'EPROTOCOL',
]);

/**
 * Replaces the SMTP password (raw, URL-encoded, and inside the base64 AUTH PLAIN token) and any
 * URL credentials in a text that came from nodemailer or the server.
 */
export function makeSanitizer(url: string | undefined): (text: string) => string {
  const secrets: string[] = [];
  if (url) {
    try {
      const parsed = new URL(url);
      const user = decodeURIComponent(parsed.username);
      const pass = decodeURIComponent(parsed.password);
      if (pass) {
        secrets.push(pass, parsed.password, encodeURIComponent(pass));
        secrets.push(Buffer.from(`\u0000${user}\u0000${pass}`).toString('base64'));
        secrets.push(Buffer.from(pass).toString('base64'));
      }
    } catch {
      // Not a URL: nothing specific to hide beyond the generic URL rule below.
    }
  }
  const unique = [...new Set(secrets.filter((s) => s.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  return (text: string) => {
    let out = text.replace(/\b(smtps?:\/\/)[^\s@/]*@/gi, '$1redacted@');
    for (const secret of unique) out = out.split(secret).join('[redacted]');
    return out;
  };
}

/** nodemailer's error, as one of ours: 5xx rejected for good, the rest worth retrying. */
export function toSmtpError(error: unknown, sanitize: (text: string) => string): SmtpError {
  const e = (error instanceof Error ? error : new Error(String(error))) as NodemailerError;
  const reply = sanitize(headerValue(e.response ?? e.message ?? '', 500));
  const status = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const where = e.command ? ` (${sanitize(e.command)})` : '';
  const options = { ...(status === undefined ? {} : { status }), remoteMessage: reply };
  if (e.code === 'ETLS' && e.command === 'STARTTLS' && status !== undefined) {
    // requireTLS, and the server answered STARTTLS with an error (it does not offer it, or
    // something between strips it): for good, like any 5xx, until the server or the option
    // changes; a 4xx is tried again.
    return new SmtpError(
      status >= 500 ? 'THM_SMTP_REJECTED' : 'THM_SMTP_TRANSIENT',
      `SMTP server refused STARTTLS, and mail.requireTLS sends nothing in clear: ${reply}`,
      options,
    );
  }
  if (status !== undefined && status >= 500) {
    return new SmtpError(
      'THM_SMTP_REJECTED',
      `SMTP server rejected the message${where}: ${reply}`,
      options,
    );
  }
  if (status !== undefined && status >= 400) {
    return new SmtpError(
      'THM_SMTP_TRANSIENT',
      `SMTP server deferred the message${where}: ${reply}`,
      options,
    );
  }
  if (
    e.code &&
    !TRANSIENT_CODES.has(e.code) &&
    (e.code === 'EENVELOPE' || e.code === 'EAUTH' || e.code === 'EMESSAGE')
  ) {
    // A message or envelope nodemailer itself refuses (no recipients, no credentials): no
    // retry will change it.
    return new SmtpError(
      'THM_SMTP_REJECTED',
      `SMTP send refused${where}: ${sanitize(e.code)}: ${reply}`,
      options,
    );
  }
  // Connection errors, timeouts, a dropped connection, the pool giving up its requeues, and
  // anything unknown: retry. Losing an alert is worse than one more attempt.
  const code = e.code ? `${sanitize(e.code)}: ` : '';
  return new SmtpError(
    'THM_SMTP_TRANSIENT',
    `SMTP connection problem${where}: ${code}${reply}`,
    options,
  );
}

class SmtpMailTransport implements MailTransport {
  readonly #transporter: nodemailer.Transporter<SMTPTransport.SentMessageInfo>;
  readonly #sanitize: (text: string) => string;
  readonly #logger: Logger;
  readonly #target: string;

  constructor(
    url: string,
    { timeoutMs, requireTLS }: Pick<Config['mail'], 'timeoutMs' | 'requireTLS'>,
    logger: Logger,
  ) {
    this.#sanitize = makeSanitizer(url);
    this.#target = redactUrl(url);
    this.#logger = logger.child({ component: 'mail', smtp: this.#target });
    const parsed = new URL(url);
    const secure = parsed.protocol === 'smtps:';
    /*
     * Not pooled, on purpose: one connection per message, and every failure comes back to the
     * sender, which owns the retries and their backoff. A pool would requeue a message on a
     * dropped connection by itself (capped by maxRequeues), a second retry loop behind the
     * sender's back. At one e-mail per network per run the extra handshakes cost little next to
     * the checks themselves.
     */
    const options: SMTPTransport.Options = {
      host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
      secure,
      // STARTTLS before anything else, or the attempt fails (toSmtpError): not even EHLO's
      // successor, AUTH, goes out in clear.
      requireTLS: requireTLS && !secure,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      logger: false,
      debug: false,
    };
    if (parsed.username || parsed.password) {
      options.auth = {
        user: decodeURIComponent(parsed.username),
        pass: decodeURIComponent(parsed.password),
      };
    }
    this.#transporter = nodemailer.createTransport(options);
  }

  async send(n: OutboxNotification, from: string): Promise<SendResult> {
    let info: SMTPTransport.SentMessageInfo;
    try {
      info = await this.#transporter.sendMail(mailOptions(n, from));
    } catch (error) {
      const mapped = toSmtpError(error, this.#sanitize);
      this.#logger.warn(
        {
          notificationId: n.id,
          code: mapped.code,
          status: mapped.status,
          reason: mapped.remoteMessage,
        },
        'SMTP send failed',
      );
      throw mapped;
    }
    const response = this.#sanitize(headerValue(String(info.response ?? ''), 500));
    const accepted = Array.isArray(info.accepted) ? info.accepted.length : 0;
    const rejected = Array.isArray(info.rejected) ? info.rejected.map(String) : [];
    if (rejected.length > 0) {
      this.#logger.warn({ notificationId: n.id, rejected }, 'SMTP server rejected some recipients');
    }
    this.#logger.info(
      { notificationId: n.id, kind: n.kind, networkId: n.networkId, response },
      'e-mail accepted',
    );
    return { accepted: accepted > 0, response };
  }

  async close(): Promise<void> {
    this.#transporter.close();
  }
}

/**
 * No SMTP server: each message becomes `<asOf>-<network>-<kind>-<id8>.eml` (the full RFC 822
 * message as it would have been sent) and a `.html` of its HTML part beside it, for a browser.
 * Written to a temporary name and renamed, so a reader never sees half a file; a notification
 * already written is not written again.
 */
class OutboxDirTransport implements MailTransport {
  readonly #dir: string;
  readonly #logger: Logger;
  readonly #composer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
  });

  constructor(dir: string, logger: Logger) {
    this.#dir = path.resolve(dir);
    this.#logger = logger.child({ component: 'mail', outboxDir: this.#dir });
  }

  async send(n: OutboxNotification, from: string): Promise<SendResult> {
    const base = outboxFileBase(n);
    const eml = path.join(this.#dir, `${base}.eml`);
    if (existsSync(eml)) return { accepted: true, response: `already written: ${eml}` };
    try {
      mkdirSync(this.#dir, { recursive: true });
      const info = await this.#composer.sendMail(mailOptions(n, from));
      writeAtomically(path.join(this.#dir, `${base}.html`), n.html);
      // The .eml last: its existence is what says "written".
      writeAtomically(eml, info.message as Buffer);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SmtpError(
        'THM_SMTP_TRANSIENT',
        `cannot write to the outbox directory ${this.#dir}: ${reason}`,
        {
          cause: error,
        },
      );
    }
    this.#logger.info(
      { notificationId: n.id, kind: n.kind, networkId: n.networkId, file: eml },
      'e-mail written',
    );
    return { accepted: true, response: `written: ${eml}` };
  }

  async close(): Promise<void> {
    this.#composer.close();
  }
}

/** `2026-11-21-acme-alert-1a2b3c4d`, with anything outside [A-Za-z0-9._-] replaced. */
export function outboxFileBase(
  n: Pick<OutboxNotification, 'asOf' | 'networkId' | 'kind' | 'id'>,
): string {
  const safe = (value: string) => value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return `${safe(n.asOf)}-${safe(n.networkId)}-${safe(n.kind)}-${safe(n.id.slice(0, 8))}`;
}

/**
 * The file a channel delivery is written to without an endpoint (the demo's, and any channel
 * with an outbox directory): named as its notification's e-mail, plus the channel's name.
 */
export function channelFileName(
  d: Pick<OutboxNotification, 'asOf' | 'networkId' | 'kind'> & { notificationId: string },
  channelName: string,
): string {
  return `${outboxFileBase({ ...d, id: d.notificationId })}-${channelName}.json`;
}

function writeAtomically(file: string, content: string | Buffer): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}
