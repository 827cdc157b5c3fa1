import { StringDecoder } from 'node:string_decoder';
import { Agent, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Config, NetworkConfig } from '../config/load.js';
import type { Secret } from '../config/secret.js';
import { ApiError, type ThmErrorCode } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import {
  errorCodeOf,
  errorForNetworkFailure,
  errorForStatus,
  remoteMessageOf,
  scrub,
  type StatusContext,
} from './error-mapping.js';
import {
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  parseRetryAfter,
  retryWait,
  type RetryPolicy,
} from './retry.js';
import {
  invoiceSummarySchema,
  trafficAccessSchema,
  type InvoiceSummary,
  type IspTrendsResponse,
  type TrafficAccess,
} from './schemas.js';
import { ResponseValidationError, parseIspTrendsResponse, parseWithSchema } from './validate.js';

/**
 * The partner API client of one network (docs/api-notes.md).
 *
 * Why undici's `Dispatcher.request` and not `fetch`: it gives the three timeouts explicitly
 * (connect on the Agent, headers and body per request) and hands back the body as a stream we
 * can cap and destroy. The body is decoded as it arrives, then parsed with `JSON.parse` and
 * validated with zod (validate.ts).
 *
 * Every exchange ends with its body consumed or destroyed, also on errors. The API key travels
 * only in the request header; it is read from the Secret when the headers are built and never
 * stored on the client, in a log line or in an error (see error-mapping.ts).
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiClientOptions {
  /** API base including the version segment, e.g. https://api.example.com/v1 or the sandbox. */
  baseUrl: string;
  apiKey: Secret;
  /** Network slug, for messages and logs. */
  networkId: string;
  /** Timeouts, size cap and retry settings: config section `api`. */
  http: Config['api'];
  logger?: Logger;
  /**
   * A shared dispatcher (e.g. one Agent for many networks). Its connect timeout is the
   * caller's; headers and body timeouts are still set per request. Not closed by `close()`.
   */
  dispatcher?: Dispatcher;
  /** Backoff tuning; tests shorten it. */
  retry?: { baseDelayMs?: number; maxDelayMs?: number; random?: () => number };
  /** Told about every HTTP exchange, retries included (metrics). Must not throw. */
  onRequest?: (event: ApiRequestEvent) => void;
}

/** One HTTP exchange of the client (an attempt: a retried request reports each attempt). */
export interface ApiRequestEvent {
  networkId: string;
  method: HttpMethod;
  /** Relative to the base URL, without the query, e.g. `/networks/traffic/access`. */
  path: string;
  seconds: number;
  /** The HTTP status, when an answer came (also for an answer whose body was invalid). */
  status?: number;
  /** The failure's code (THM_API_...), when the exchange failed. */
  errorCode?: ThmErrorCode;
  /** A failure without an answer: the socket's or undici's code, e.g. UND_ERR_HEADERS_TIMEOUT. */
  networkCode?: string;
  /** The client tries again after this exchange. */
  retrying: boolean;
}

export interface RequestOptions<T> {
  /** JSON body (POST, PUT, PATCH). */
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** Validates the parsed body; its errors name the field path. */
  schema?: z.ZodType<T>;
  /** A custom validator instead of a schema (used for the large isptrends body). */
  parse?: (value: unknown) => T;
  /**
   * Whether a transient failure may be retried. Default: true for GET, false otherwise (a
   * retried create could create twice); read-only POSTs (search, summary) pass true.
   */
  idempotent?: boolean;
  /** The endpoint needs the premium package (how its 401/402/403 are read). */
  premium?: boolean;
  /**
   * The one success status the spec states for the endpoint; another 2xx is an invalid
   * response. Absent: any 2xx (the spec does not show the others).
   */
  successStatus?: number;
  /**
   * The caller's own deadline (e.g. the whole run's); the request also keeps its own,
   * `api.requestTimeoutMs`. Its `reason`, when an Error, is the failure's message.
   */
  signal?: AbortSignal;
}

/** Per call: the caller's deadline (see RequestOptions.signal). */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface ApiClient {
  readonly networkId: string;
  /** GET /networks/traffic/access */
  getTrafficAccess(call?: CallOptions): Promise<TrafficAccess>;
  /** GET /networks/traffic/isptrends (premium); every entry validated. */
  getIspTrends(call?: CallOptions): Promise<IspTrendsResponse>;
  /** POST /networks/billings/affiliates/summary with {"filters":{"status": status}} */
  getInvoiceSummary(status: string, call?: CallOptions): Promise<InvoiceSummary>;
  /** Any endpoint; `path` is relative to the base URL (e.g. `/networks`). */
  request<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions<T>): Promise<T>;
  /** Closes the client's own connections (not an injected dispatcher). */
  close(): Promise<void>;
}

/** Error bodies are read only this far: enough for a message, and the rest is dropped. */
const ERROR_BODY_MAX = 64 * 1024;

type Attempt<T> =
  { ok: true; value: T; status: number } | { ok: false; error: ApiError; retryAfterMs?: number };

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { http, networkId } = options;
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const basePath = base.pathname.replace(/\/+$/, '');
  const logger = (options.logger ?? silentLogger).child({ network: networkId });
  const ownDispatcher = options.dispatcher ? undefined : createApiDispatcher(http);
  const dispatcher: Dispatcher = options.dispatcher ?? ownDispatcher!;
  const policy: RetryPolicy = {
    attempts: http.attempts,
    budgetMs: http.retryBudgetMs,
    baseDelayMs: options.retry?.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
    maxDelayMs: options.retry?.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
  };
  const random = options.retry?.random ?? Math.random;
  const secret = () => options.apiKey.reveal();

  async function attemptOnce<T>(
    method: HttpMethod,
    path: string,
    opts: RequestOptions<T>,
    ctx: StatusContext,
    deadline: Deadline,
  ): Promise<Attempt<T>> {
    const started = performance.now();
    const headers: Record<string, string> = {
      'x-service-api-key': secret(),
      accept: 'application/json',
      'user-agent': 'traffic-health-monitor',
    };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({
        origin,
        path: basePath + path + queryString(opts.query),
        method,
        headers,
        body: payload,
        headersTimeout: http.headersTimeoutMs,
        bodyTimeout: http.bodyTimeoutMs,
        signal: deadline.signal,
      });
    } catch (error) {
      return { ok: false, error: failureOf(error, ctx, deadline) };
    }

    const { statusCode, body } = response;
    const ok = statusCode >= 200 && statusCode < 300;
    if (!ok) {
      let read: ReadResult;
      try {
        read = await readCapped(body, ERROR_BODY_MAX, response.headers, { keepPrefix: true });
      } catch (error) {
        return { ok: false, error: failureOf(error, ctx, deadline) };
      }
      const ms = Math.round(performance.now() - started);
      const remote = remoteMessageOf(read.value ?? '', secret());
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now());
      const retryAt = retryAfterMs === undefined ? undefined : new Date(Date.now() + retryAfterMs);
      logger.debug(
        { endpoint: ctx.endpoint, status: statusCode, ms },
        'api answered with an error status',
      );
      const error = errorForStatus(statusCode, remote, ctx, retryAt);
      return retryAfterMs === undefined ? { ok: false, error } : { ok: false, error, retryAfterMs };
    }
    let read: ReadResult;
    try {
      read = await readCapped(body, http.maxResponseBytes, response.headers);
    } catch (error) {
      return { ok: false, error: failureOf(error, ctx, deadline) };
    }
    const ms = Math.round(performance.now() - started);
    if (opts.successStatus !== undefined && statusCode !== opts.successStatus) {
      const error = invalid(
        ctx,
        `status ${statusCode}, expected ${opts.successStatus}`,
        statusCode,
      );
      return { ok: false, error };
    }
    if (read.value === undefined) {
      const error = invalid(
        ctx,
        `body larger than api.maxResponseBytes (${http.maxResponseBytes} bytes)`,
        statusCode,
      );
      return { ok: false, error };
    }
    let value: unknown;
    try {
      value = JSON.parse(read.value);
    } catch (error) {
      const reason = scrub(error instanceof Error ? error.message : String(error), secret());
      return { ok: false, error: invalid(ctx, `not JSON (${reason.slice(0, 120)})`, statusCode) };
    }
    try {
      const result = opts.parse
        ? opts.parse(value)
        : opts.schema
          ? parseWithSchema(opts.schema, value)
          : (value as T);
      logger.debug(
        { endpoint: ctx.endpoint, status: statusCode, ms, bytes: read.bytes },
        'api response',
      );
      return { ok: true, value: result, status: statusCode };
    } catch (error) {
      if (!(error instanceof ResponseValidationError)) throw error;
      return { ok: false, error: invalid(ctx, scrub(error.message, secret()), statusCode) };
    }
  }

  /** A failure without a complete answer: the deadline's own words when it was that. */
  function failureOf(error: unknown, ctx: StatusContext, deadline: Deadline): ApiError {
    if (!deadline.signal.aborted) return errorForNetworkFailure(error, ctx, secret());
    return deadlineError(ctx, deadline.signal.reason);
  }

  /** The wait before trying again, or the error to throw. */
  function retryDecision(
    error: ApiError,
    retryAfterMs: number | undefined,
    attempt: number,
    waited: number,
    deadline: Deadline,
  ): number | ApiError {
    if (!error.retryable || deadline.signal.aborted) return error;
    const left = deadline.at - performance.now();
    if (retryAfterMs !== undefined) {
      if (retryAfterMs > Math.min(policy.budgetMs - waited, left))
        return retryLater(error, retryAfterMs);
      if (attempt >= policy.attempts) return error;
      return retryAfterMs;
    }
    if (attempt >= policy.attempts) return error;
    const delay = retryWait(attempt, policy, random);
    return delay > Math.min(policy.budgetMs - waited, left) ? error : delay;
  }

  function report(
    method: HttpMethod,
    path: string,
    started: number,
    outcome: Attempt<unknown>,
    retrying: boolean,
  ): void {
    if (!options.onRequest) return;
    const event: ApiRequestEvent = {
      networkId,
      method,
      path,
      seconds: (performance.now() - started) / 1000,
      retrying,
    };
    if (outcome.ok) event.status = outcome.status;
    else {
      event.errorCode = outcome.error.code;
      if (outcome.error.status !== undefined) event.status = outcome.error.status;
      else {
        const networkCode = errorCodeOf(outcome.error.cause);
        if (networkCode) event.networkCode = networkCode;
      }
    }
    try {
      options.onRequest(event);
    } catch (error) {
      // Metrics never break a request.
      logger.debug({ reason: String(error) }, 'onRequest hook threw');
    }
  }

  async function request<T = unknown>(
    method: HttpMethod,
    path: string,
    opts: RequestOptions<T> = {},
  ): Promise<T> {
    const endpoint = `${method} ${path}`;
    const ctx: StatusContext = {
      endpoint,
      label: `network ${networkId}: ${endpoint}`,
      premium: opts.premium ?? false,
    };
    const retryable = opts.idempotent ?? method === 'GET';
    const deadline = startDeadline(http.requestTimeoutMs, opts.signal);
    let waited = 0;
    try {
      for (let attempt = 1; ; attempt += 1) {
        const started = performance.now();
        const outcome = await attemptOnce(method, path, opts, ctx, deadline);
        if (outcome.ok) {
          report(method, path, started, outcome, false);
          return outcome.value;
        }
        const { error, retryAfterMs } = outcome;
        const next = retryable
          ? retryDecision(error, retryAfterMs, attempt, waited, deadline)
          : error;
        report(method, path, started, outcome, typeof next === 'number');
        if (typeof next !== 'number') throw next;
        const delay = next;
        logger.warn(
          {
            endpoint,
            attempt,
            of: policy.attempts,
            delayMs: delay,
            code: error.code,
            status: error.status,
            reason: error.message,
          },
          'transient API failure, retrying',
        );
        await sleep(delay);
        waited += delay;
      }
    } finally {
      deadline.clear();
    }
  }

  return {
    networkId,
    getTrafficAccess: (call = {}) =>
      request('GET', '/networks/traffic/access', { schema: trafficAccessSchema, ...call }),
    getIspTrends: (call = {}) =>
      request('GET', '/networks/traffic/isptrends', {
        ...call,
        parse: parseIspTrendsResponse,
        premium: true,
        // Only a successful, fully validated 200 may clear pairs (docs/design.md, guarantees).
        successStatus: 200,
      }),
    getInvoiceSummary: (status: string, call = {}) =>
      request('POST', '/networks/billings/affiliates/summary', {
        ...call,
        body: { filters: { status } },
        schema: invoiceSummarySchema,
        idempotent: true,
      }),
    request,
    async close() {
      await ownDispatcher?.close();
    },
  };
}

/** The client of one configured network. */
/**
 * The connections of API clients: undici's Agent, a pool per origin (kept alive between
 * requests), with the config's connect, headers and body timeouts, and at most `connections`
 * to one origin (default: no limit). A client makes its own unless given one; the worker gives
 * every network's client the same (src/jobs/runtime.ts).
 */
export function createApiDispatcher(http: Config['api'], connections?: number): Agent {
  return new Agent({
    connect: { timeout: http.connectTimeoutMs },
    headersTimeout: http.headersTimeoutMs,
    bodyTimeout: http.bodyTimeoutMs,
    ...(connections === undefined ? {} : { connections }),
  });
}

/** A network's client, with its key as read by the caller (`ApiKey.read`). */
export function createNetworkApiClient(
  network: Pick<NetworkConfig, 'id' | 'baseUrl'> & { apiKey: Secret },
  http: Config['api'],
  extra: Pick<ApiClientOptions, 'logger' | 'dispatcher' | 'onRequest'> = {},
): ApiClient {
  return createApiClient({
    baseUrl: network.baseUrl,
    apiKey: network.apiKey,
    networkId: network.id,
    http,
    ...extra,
  });
}

/**
 * The deadline of one request: aborts at `api.requestTimeoutMs` from its start, or earlier
 * when the caller's own signal fires. `at` is on the performance.now() clock.
 */
interface Deadline {
  signal: AbortSignal;
  at: number;
  clear(): void;
}

function startDeadline(ms: number, outer: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new Error(`no complete answer within api.requestTimeoutMs (${ms} ms), retries included`),
      ),
    ms,
  );
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    at: performance.now() + ms,
    clear() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

/**
 * A deadline that passed: transient (the job layer may try again later), with a code of its
 * own on the cause so metrics count it as a timeout.
 */
function deadlineError(ctx: StatusContext, reason: unknown): ApiError {
  const why = reason instanceof Error ? reason.message : 'deadline passed';
  const cause = Object.assign(new Error(why), { code: 'THM_DEADLINE_TIMEOUT' });
  return new ApiError('THM_API_TRANSIENT', ctx.endpoint, `${ctx.label}: ${why}`, {
    retryable: true,
    cause,
  });
}

function retryLater(error: ApiError, retryAfterMs: number): ApiError {
  const retryAt = new Date(Date.now() + retryAfterMs);
  return new ApiError(
    'THM_API_RETRY_LATER',
    error.endpoint,
    `${error.message}; the API asks to retry after ${Math.ceil(retryAfterMs / 1000)} s, ` +
      `beyond the in-process retry budget: retry at ${retryAt.toISOString()}`,
    {
      retryable: true,
      retryAt,
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.remoteMessage !== undefined ? { remoteMessage: error.remoteMessage } : {}),
    },
  );
}

function invalid(ctx: StatusContext, reason: string, status: number): ApiError {
  return new ApiError(
    'THM_API_INVALID_RESPONSE',
    ctx.endpoint,
    `${ctx.label}: invalid response: ${reason}`,
    {
      status,
    },
  );
}

interface ReadResult {
  /** The body as text; undefined when it exceeded the cap (then it was destroyed, not read). */
  value: string | undefined;
  bytes: number;
}

/**
 * Reads a body as UTF-8 text up to `cap` bytes, decoding each chunk as it arrives (a character
 * split between chunks is decoded whole). Over the cap, the stream is destroyed at once (the
 * connection is dropped rather than drained: draining 1 GB to reuse a socket is worse) and the
 * value is undefined, or with `keepPrefix` (error bodies, read for their message) the first
 * `cap` bytes are read. A declared Content-Length over the cap is refused before reading.
 */
function readCapped(
  body: Dispatcher.ResponseData['body'],
  cap: number,
  headers: Dispatcher.ResponseData['headers'],
  { keepPrefix = false } = {},
): Promise<ReadResult> {
  const declared = Number(headers['content-length']);
  if (!keepPrefix && Number.isFinite(declared) && declared > cap) {
    cancel(body);
    return Promise.resolve({ value: undefined, bytes: declared });
  }
  const decoder = new StringDecoder('utf8');
  let text = '';
  let bytes = 0;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (bytes + chunk.length <= cap) {
        bytes += chunk.length;
        text += decoder.write(chunk);
        return;
      }
      body.off('data', onData);
      body.off('end', onEnd);
      cancel(body);
      if (keepPrefix) {
        text += decoder.write(chunk.subarray(0, cap - bytes));
        resolve({ value: text + decoder.end(), bytes: cap });
      } else {
        resolve({ value: undefined, bytes: bytes + chunk.length });
      }
    };
    const onEnd = () => resolve({ value: text + decoder.end(), bytes });
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', (error: Error) => {
      cancel(body);
      reject(error);
    });
  });
}

/** Destroys a body we stop reading; undici then reports an abort, which nobody needs to hear. */
function cancel(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function queryString(query: RequestOptions<unknown>['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
