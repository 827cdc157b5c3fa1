/**
 * The error family. Every failure a caller may want to branch on has a stable `code` (never
 * parse a message) and says whether retrying can help. The CLI maps them to exit codes and one
 * line of text; the job layer maps `retryable: false` to BullMQ's UnrecoverableError.
 *
 * Messages never contain secrets: API keys are held in `Secret` (src/config/secret.ts) and URLs
 * pass through `redactUrl` before they reach a message.
 */
export type ThmErrorCode =
  /** Bad config file, missing key variable, unreadable key file. CLI exit 2. */
  | 'THM_CONFIG'
  /** Bad command-line input. CLI exit 2. */
  | 'THM_USAGE'
  /** 401 `No Authentication Method Found`: the key is missing, wrong or revoked. */
  | 'THM_API_AUTH'
  /** 403 `Out of realm`: the key belongs to another portal. */
  | 'THM_API_REALM'
  /** The premium authorization error on a premium-only endpoint. */
  | 'THM_API_PREMIUM_REQUIRED'
  /** A response that is not JSON, too large, or fails its schema. */
  | 'THM_API_INVALID_RESPONSE'
  /** Network error, timeout, 429, 5xx: worth retrying. */
  | 'THM_API_TRANSIENT'
  /** A transient error whose Retry-After lies beyond the in-process retry budget. */
  | 'THM_API_RETRY_LATER'
  /** Any other HTTP status the API answered with (4xx not covered above). */
  | 'THM_API_HTTP'
  /**
   * A request body or parameter the client refused before sending: it breaks a rule the API
   * spec states (e.g. initial_password shorter than 12 characters). CLI exit 2.
   */
  | 'THM_API_REQUEST_INVALID'
  /** SMTP 5xx: the server refused the sender or every recipient. */
  | 'THM_SMTP_REJECTED'
  /** SMTP 4xx or a connection problem: worth retrying. */
  | 'THM_SMTP_TRANSIENT'
  /** A channel endpoint (webhook, Slack) answered 4xx other than 408/429: not worth retrying. */
  | 'THM_CHANNEL_REJECTED'
  /** A channel endpoint's 5xx, 408, 429, timeout or connection error: worth retrying. */
  | 'THM_CHANNEL_TRANSIENT'
  /**
   * A job that did not finish in time where that is an error: a demo day's run. (`thm run --wait
   * --timeout` reports a timeout as the job's state, `timeout`, not as this error.)
   */
  | 'THM_TIMEOUT'
  /** A store invariant broken, or a Redis command that failed while the job ran. */
  | 'THM_STORE'
  /**
   * Redis could not be reached at all (refused, timed out, authentication, no such host): the
   * CLI says where it tried and why, exit 1.
   */
  | 'THM_REDIS'
  /**
   * A config reload whose file was valid but could not be applied (the schedulers could not be
   * reconciled): the worker goes on with the config it had. `POST /-/reload` answers with it.
   */
  | 'THM_RELOAD'
  /** A bug: an error that is none of the above (a plain Error, or a broken invariant). */
  | 'THM_INTERNAL';

/**
 * Every code of the family, at run time (a stored code is read against it): the compiler keeps
 * it equal to ThmErrorCode. Codes on an error's `cause` (ECONNRESET, UND_ERR_*, the client's
 * THM_DEADLINE_TIMEOUT) describe the network below a ThmError and are not codes of the family.
 */
const CODES: Record<ThmErrorCode, true> = {
  THM_CONFIG: true,
  THM_USAGE: true,
  THM_API_AUTH: true,
  THM_API_REALM: true,
  THM_API_PREMIUM_REQUIRED: true,
  THM_API_INVALID_RESPONSE: true,
  THM_API_TRANSIENT: true,
  THM_API_RETRY_LATER: true,
  THM_API_HTTP: true,
  THM_API_REQUEST_INVALID: true,
  THM_SMTP_REJECTED: true,
  THM_SMTP_TRANSIENT: true,
  THM_CHANNEL_REJECTED: true,
  THM_CHANNEL_TRANSIENT: true,
  THM_TIMEOUT: true,
  THM_STORE: true,
  THM_REDIS: true,
  THM_RELOAD: true,
  THM_INTERNAL: true,
};
export const THM_ERROR_CODES = Object.keys(CODES) as [ThmErrorCode, ...ThmErrorCode[]];

export interface ThmErrorOptions {
  retryable?: boolean;
  cause?: unknown;
  /** HTTP or SMTP status, when there was one. */
  status?: number;
  /** The remote side's own message (API error text, SMTP reply), cut short. */
  remoteMessage?: string;
}

export class ThmError extends Error {
  readonly code: ThmErrorCode;
  readonly retryable: boolean;
  readonly status?: number;
  readonly remoteMessage?: string;

  constructor(code: ThmErrorCode, message: string, options: ThmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ThmError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    if (options.status !== undefined) this.status = options.status;
    if (options.remoteMessage !== undefined) this.remoteMessage = options.remoteMessage;
  }
}

export class ConfigError extends ThmError {
  /** Every problem found, one line each (the message names the first and counts the rest). */
  readonly problems: string[];

  constructor(message: string, options?: ThmErrorOptions & { problems?: string[] }) {
    super('THM_CONFIG', message, options);
    this.name = 'ConfigError';
    this.problems = options?.problems ?? [message];
  }
}

export class UsageError extends ThmError {
  constructor(message: string, options?: ThmErrorOptions) {
    super('THM_USAGE', message, options);
    this.name = 'UsageError';
  }
}

/** Errors of the partner API. `retryAt` is set on THM_API_RETRY_LATER. */
export class ApiError extends ThmError {
  readonly endpoint: string;
  readonly retryAt?: Date;

  constructor(
    code: ThmErrorCode,
    endpoint: string,
    message: string,
    options: ThmErrorOptions & { retryAt?: Date } = {},
  ) {
    super(code, message, options);
    this.name = 'ApiError';
    this.endpoint = endpoint;
    if (options.retryAt) this.retryAt = options.retryAt;
  }
}

export class SmtpError extends ThmError {
  constructor(
    code: 'THM_SMTP_REJECTED' | 'THM_SMTP_TRANSIENT',
    message: string,
    options?: ThmErrorOptions,
  ) {
    super(code, message, { ...options, retryable: code === 'THM_SMTP_TRANSIENT' });
    this.name = 'SmtpError';
  }
}

/** A post to a channel endpoint that did not succeed. `retryAfterMs`: its Retry-After. */
export class ChannelError extends ThmError {
  readonly retryAfterMs?: number;

  constructor(
    code: 'THM_CHANNEL_REJECTED' | 'THM_CHANNEL_TRANSIENT',
    message: string,
    options: ThmErrorOptions & { retryAfterMs?: number } = {},
  ) {
    super(code, message, { ...options, retryable: code === 'THM_CHANNEL_TRANSIENT' });
    this.name = 'ChannelError';
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** CLI exit codes (README): 0 success, 1 a job or check failed, 2 usage or config error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function exitCodeFor(error: unknown): number {
  if (
    error instanceof ThmError &&
    (error.code === 'THM_CONFIG' ||
      error.code === 'THM_USAGE' ||
      error.code === 'THM_API_REQUEST_INVALID')
  ) {
    return EXIT_USAGE;
  }
  return EXIT_FAILED;
}

/** Whether an error is one the user is expected to meet (printed as one line, no stack). */
export function isExpectedError(error: unknown): error is ThmError {
  return error instanceof ThmError;
}

/**
 * One network's stored state that cannot be read: a field that is not what the store wrote
 * (corrupted JSON, a wrong shape) or its key holding another Redis type. Named by network, key
 * and field, so one broken network is reported as itself and the others are read on.
 */
export class StoredStateError extends ThmError {
  readonly networkId: string;
  readonly key: string;
  readonly field?: string;
  readonly reason: string;

  constructor(networkId: string, key: string, field: string | undefined, reason: string) {
    super(
      'THM_STORE',
      `network ${networkId}: stored state unreadable at key ${key}${field ? ` field ${field}` : ''}: ${reason} (repair or delete it)`,
    );
    this.name = 'StoredStateError';
    this.networkId = networkId;
    this.key = key;
    if (field !== undefined) this.field = field;
    this.reason = reason;
  }
}
