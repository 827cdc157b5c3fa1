import { ApiError, type ThmErrorCode } from '../errors.js';

/**
 * From an HTTP answer (or a failure to get one) to one ApiError of the family in src/errors.ts.
 * Callers branch on `code`; `retryable` says whether trying again can help.
 *
 * Secrets: nothing here sees the request headers. Texts that come from the remote side or from
 * undici pass through `scrub` with the key, and undici errors are never attached as they are
 * (an undici error may hold the request it failed on); `cause` is a new plain Error carrying
 * only the name, code and scrubbed message.
 */

export const AUTH_MESSAGE = 'No Authentication Method Found';
export const REALM_MESSAGE = 'Out of realm';
const REMOTE_MESSAGE_MAX = 200;

/** Replaces every occurrence of the secret in a text. */
export function scrub(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}

/**
 * The API's own message: `{"error": ...}`, `{"Error": ...}`, `{"message": ...}` (a string, or an
 * object with a string `message`), else the text body, on one line and cut short.
 */
export function remoteMessageOf(body: string, secret?: string): string | undefined {
  let text: string | undefined;
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as Record<string, unknown>;
      for (const field of ['error', 'Error', 'message', 'Message']) {
        const value = parsed[field];
        if (typeof value === 'string' && value.trim()) {
          text = value;
          break;
        }
        if (value && typeof value === 'object') {
          const nested = (value as Record<string, unknown>).message;
          if (typeof nested === 'string' && nested.trim()) {
            text = nested;
            break;
          }
        }
      }
    } catch {
      // not JSON after all: the text itself is the message
    }
  }
  text ??= trimmed;
  text = scrub(text.replace(/\s+/g, ' ').trim(), secret);
  if (!text) return undefined;
  return text.length > REMOTE_MESSAGE_MAX ? `${text.slice(0, REMOTE_MESSAGE_MAX - 1)}…` : text;
}

export interface StatusContext {
  /** e.g. `GET /networks/traffic/isptrends` */
  endpoint: string;
  /** Prefix of every message, e.g. `network acme: GET /networks/traffic/isptrends` */
  label: string;
  /** The endpoint needs the Traffic Health Premium package. */
  premium: boolean;
}

/** The documented texts, tolerant of case and punctuation around them. */
const sameText = (remote: string | undefined, documented: string) =>
  remote !== undefined && remote.toLowerCase().includes(documented.toLowerCase());

/**
 * The premium authorization error has no documented status or message (seed: "Status code of
 * the premium authorization error: not shown"). Our reading, robust to any of them:
 * - any 401/402/403 whose message mentions "premium" is it, on any endpoint;
 * - on an endpoint documented as premium (isptrends), a 402 is it, and so is a 401 or 403
 *   whose message is present and is neither the documented 401 nor the documented 403 text.
 * A 401 or 403 with the documented texts keeps its documented meaning (auth, realm) everywhere.
 */
export function isPremiumRequired(
  status: number,
  remote: string | undefined,
  premiumEndpoint: boolean,
): boolean {
  if (status !== 401 && status !== 402 && status !== 403) return false;
  if (remote && /premium/i.test(remote)) return true;
  if (!premiumEndpoint) return false;
  if (status === 402) return true;
  if (!remote) return false;
  return !sameText(remote, AUTH_MESSAGE) && !sameText(remote, REALM_MESSAGE);
}

export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** The error for a non-2xx answer. `retryAt` only when the answer carried a Retry-After. */
export function errorForStatus(
  status: number,
  remote: string | undefined,
  ctx: StatusContext,
  retryAt?: Date,
): ApiError {
  const said = remote ? `: ${remote}` : '';
  const make = (code: ThmErrorCode, what: string, retryable = false) =>
    new ApiError(code, ctx.endpoint, `${ctx.label}: ${what} (HTTP ${status}${said})`, {
      status,
      retryable,
      ...(remote !== undefined ? { remoteMessage: remote } : {}),
      ...(retryAt ? { retryAt } : {}),
    });

  if (isPremiumRequired(status, remote, ctx.premium)) {
    return make(
      'THM_API_PREMIUM_REQUIRED',
      'the network does not have the Traffic Health Premium package',
    );
  }
  if (status === 401) {
    return make('THM_API_AUTH', 'the API key was not accepted (missing, wrong or revoked)');
  }
  if (status === 403 && sameText(remote, REALM_MESSAGE)) {
    return make('THM_API_REALM', 'the API key belongs to another portal (use a network key)');
  }
  if (isTransientStatus(status)) {
    const what = status === 429 ? 'rate limited' : 'temporary server error';
    return make('THM_API_TRANSIENT', what, true);
  }
  return make('THM_API_HTTP', 'unexpected HTTP status');
}

/** What a failed exchange (no complete answer) was, in words and as a retryable error. */
const NETWORK_REASONS: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response headers',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response body',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_ABORTED: 'request aborted',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  ETIMEDOUT: 'connect timeout',
  EPIPE: 'connection broken',
};

export function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A network-level failure as THM_API_TRANSIENT. The undici error is replaced by a sanitised
 * copy (name, code, scrubbed message): never the original object.
 */
export function errorForNetworkFailure(
  error: unknown,
  ctx: StatusContext,
  secret: string | undefined,
): ApiError {
  const code = errorCodeOf(error);
  const raw = error instanceof Error ? error.message : String(error);
  const message = scrub(raw, secret).slice(0, 300);
  const reason = (code && NETWORK_REASONS[code]) ?? message;
  const cause = new Error(message);
  cause.name = error instanceof Error ? error.name : 'Error';
  if (code) Object.assign(cause, { code });
  return new ApiError(
    'THM_API_TRANSIENT',
    ctx.endpoint,
    `${ctx.label}: ${reason}${code ? ` (${code})` : ''}`,
    {
      retryable: true,
      cause,
    },
  );
}
