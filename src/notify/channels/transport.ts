import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { parseRetryAfter } from '../../api/retry.js';
import { ChannelError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { displayText } from '../render/format.js';
import { channelFileName } from '../transport.js';
import { NOTIFICATION_ID_HEADER, SIGNATURE_HEADER, signBody } from './signature.js';
import type { ChannelDelivery } from '../types.js';
import type { ChannelTarget } from './target.js';

/**
 * Posts channel deliveries: an HTTPS POST of the stored body (webhooks signed), or, for a
 * channel without a URL, a `.json` file in the outbox directory beside the e-mails.
 *
 * Every request is bounded: connect, headers and body timeouts plus a deadline for the whole
 * exchange, and only the first `maxResponseBytes` of the answer are read (for the reply shown
 * by `thm notify failed`); the rest is dropped with the connection. Redirects are not followed
 * (a moved endpoint is a configuration to fix, not something to chase with a signed body).
 *
 * The outcome is classified once, here: 2xx delivered; 408, 429 (with its Retry-After), 5xx,
 * timeouts and connection errors THM_CHANNEL_TRANSIENT; any other status THM_CHANNEL_REJECTED.
 * Messages never carry the URL or the secret (both may be secrets), only the channel's name.
 */
export interface ChannelTransport {
  post(delivery: ChannelDelivery, channel: ChannelTarget): Promise<ChannelPostResult>;
  close(): Promise<void>;
}

export interface ChannelPostResult {
  /** HTTP status, or 0 for a file written. */
  status: number;
  /** The endpoint's reply (cut short), or where the file was written. */
  response: string;
}

export interface ChannelTimeouts {
  /** @defaultValue 5000 */
  connectMs: number;
  /** Until the response headers. @defaultValue 10000 */
  headersMs: number;
  /** Between body chunks. @defaultValue 10000 */
  bodyMs: number;
  /** The whole exchange, connect to the last byte read. @defaultValue 20000 */
  totalMs: number;
}

export const DEFAULT_CHANNEL_TIMEOUTS: ChannelTimeouts = {
  connectMs: 5_000,
  headersMs: 10_000,
  bodyMs: 10_000,
  totalMs: 20_000,
};

/** Enough of a reply to show why it failed; endpoints answer "ok" or a short error. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4_096;

export interface ChannelTransportOptions {
  /** Where a channel without a URL writes its bodies (mail.outboxDir). */
  outboxDir: string;
  logger: Logger;
  timeouts?: Partial<ChannelTimeouts>;
  maxResponseBytes?: number;
  /** Tests: a dispatcher of their own. */
  dispatcher?: Dispatcher;
}

export function createChannelTransport(options: ChannelTransportOptions): ChannelTransport {
  const timeouts = { ...DEFAULT_CHANNEL_TIMEOUTS, ...options.timeouts };
  const cap = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const logger = options.logger.child({ component: 'channels' });
  const own = options.dispatcher
    ? undefined
    : new Agent({
        connect: { timeout: timeouts.connectMs },
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
      });
  const dispatcher = options.dispatcher ?? own!;
  const dir = path.resolve(options.outboxDir);

  async function postHttp(d: ChannelDelivery, channel: ChannelTarget, url: string) {
    const what = `${channel.type} channel "${channel.name}"`;
    const secrets = [url, channel.secret?.reveal()].filter((s): s is string => !!s);
    const clean = (text: string) => scrub(text, secrets);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'traffic-health-monitor',
    };
    if (channel.type === 'webhook') {
      headers[NOTIFICATION_ID_HEADER] = d.notificationId;
      if (channel.secret) headers[SIGNATURE_HEADER] = signBody(channel.secret.reveal(), d.body);
    }
    const target = new URL(url);
    // A channel's own deadline bounds every step too: none outlasts the whole exchange.
    const totalMs = channel.timeoutMs ?? timeouts.totalMs;
    let status: number;
    let reply: string;
    let retryAfter: string | string[] | undefined;
    try {
      const response = await dispatcher.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers,
        body: d.body,
        headersTimeout: Math.min(timeouts.headersMs, totalMs),
        bodyTimeout: Math.min(timeouts.bodyMs, totalMs),
        signal: AbortSignal.timeout(totalMs),
      });
      status = response.statusCode;
      retryAfter = response.headers['retry-after'];
      reply = await readPrefix(response.body, cap);
    } catch (error) {
      throw new ChannelError(
        'THM_CHANNEL_TRANSIENT',
        `${what}: ${clean(describeNetworkError(error))}`,
        { remoteMessage: clean(describeNetworkError(error)) },
      );
    }
    const text = clean(displayText(reply, 300));
    if (status >= 200 && status < 300) return { status, response: `${status} ${text}`.trim() };
    const transient = status === 408 || status === 429 || status >= 500;
    const retryAfterMs = transient ? parseRetryAfter(retryAfter, Date.now()) : undefined;
    throw new ChannelError(
      transient ? 'THM_CHANNEL_TRANSIENT' : 'THM_CHANNEL_REJECTED',
      `${what} answered ${status}${text ? `: ${text}` : ''}`,
      {
        status,
        remoteMessage: text,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
    );
  }

  function writeFile(d: ChannelDelivery, channel: ChannelTarget): ChannelPostResult {
    const file = path.join(dir, channelFileName(d, channel.name));
    if (existsSync(file)) return { status: 0, response: `already written: ${file}` };
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(JSON.parse(d.body), null, 2)}\n`);
      renameSync(tmp, file);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ChannelError(
        'THM_CHANNEL_TRANSIENT',
        `cannot write to the outbox directory ${dir}: ${reason}`,
      );
    }
    return { status: 0, response: `written: ${file}` };
  }

  return {
    async post(delivery, channel) {
      const result = channel.url
        ? await postHttp(delivery, channel, channel.url.reveal())
        : writeFile(delivery, channel);
      logger.info(
        {
          notificationId: delivery.notificationId,
          channel: channel.name,
          networkId: delivery.networkId,
          kind: delivery.kind,
          response: result.response,
        },
        'channel delivery accepted',
      );
      return result;
    },
    async close() {
      await own?.close();
    },
  };
}

/** Reads at most `cap` bytes of a body as text, then drops the rest with the connection. */
async function readPrefix(body: Dispatcher.ResponseData['body'], cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk.subarray(0, cap - bytes));
    bytes += Math.min(chunk.length, cap - bytes);
    if (bytes >= cap) {
      body.on('error', () => undefined);
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

/** A failure without an answer, by its code (undici's or the socket's), never its URL. */
function describeNetworkError(error: unknown): string {
  const e = error as { code?: string; name?: string; message?: string };
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_ABORTED')
    return 'no complete answer in time (request deadline)';
  switch (e?.code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'no answer in time (headers timeout)';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'answer stalled (body timeout)';
    case 'UND_ERR_SOCKET':
      return 'connection closed by the endpoint';
    default:
      return e?.code
        ? `connection failed (${e.code})`
        : `request failed (${displayText(String(e?.message ?? error), 200)})`;
  }
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}
