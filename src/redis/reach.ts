import { ThmError } from '../errors.js';
import { isReady, type RedisClient } from './connection.js';

/**
 * Why a Redis connection could not be made, in the words an operator acts on: refused (nothing
 * listens there), timed out, authentication refused, no such host, not a Redis server.
 *
 * ioredis tells the cause only on its 'error' events; once it stops reconnecting, every command
 * and `connect()` fail with "Connection is closed.", which hides it. So the cause is the last
 * error event seen on the connection (`watchReach`), and a command's failure is explained with
 * it (`explain`).
 */
export class RedisUnreachableError extends ThmError {
  constructor(where: string, why: string, cause?: unknown) {
    super('THM_REDIS', `cannot reach ${where}: ${why}`, { retryable: true, cause });
    this.name = 'RedisUnreachableError';
  }
}

/** The cause of a failed connection, as one short phrase. */
export function unreachableReason(error: unknown): string {
  const e = error as (Error & { code?: string }) | undefined;
  const code = e?.code ?? '';
  const message = firstLine(e?.message ?? String(error));
  if (code === 'ECONNREFUSED') return `connection refused (${code})`;
  if (code === 'ETIMEDOUT') return `timed out connecting (${code})`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `no such host (${code})`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `host unreachable (${code})`;
  if (code === 'ECONNRESET') return `connection reset by the server (${code})`;
  if (AUTH_REFUSED.test(message))
    return `authentication refused (${message}): check the user and password in redis.url or REDIS_URL`;
  if (e?.name === 'ParserError') return 'the server there does not speak Redis (protocol error)';
  if (/SSL|TLS|certificate/i.test(`${code} ${message}`)) return `TLS failed (${message})`;
  return message;
}

const AUTH_REFUSED = /^(NOAUTH|WRONGPASS|NOPERM)\b|\bAUTH\b|invalid password/i;

/**
 * A cause that trying again cannot remove (a wrong password, a server that is not Redis):
 * waiting out a `--timeout` for it would only hide it.
 */
export function isPermanent(error: unknown): boolean {
  const e = error as (Error & { code?: string }) | undefined;
  return AUTH_REFUSED.test(firstLine(e?.message ?? '')) || e?.name === 'ParserError';
}

/** The connection-level failures a command reports when Redis is not there. */
const CONNECTION_FAILURE =
  /Connection is closed|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|max retries per request|Stream isn't writeable/i;

export interface Reach {
  /**
   * Resolves once the connection is ready; rejects with a RedisUnreachableError when ioredis
   * gives up reconnecting (its retryStrategy's choice) or `timeoutMs` passes first. `span`
   * is how the message names that time (default: `timeoutMs` in seconds).
   */
  ready(timeoutMs: number, span?: string): Promise<void>;
  /**
   * A command's failure: a RedisUnreachableError with the cause seen when it was the
   * connection that failed; any other error as it is.
   */
  explain(error: unknown): unknown;
  /** Stops listening. */
  stop(): void;
}

/** Watches `client`'s connection errors; `where` names it (describeRedis). */
export function watchReach(client: RedisClient, where: string): Reach {
  let last: Error | undefined;
  const onError = (error: Error) => (last = error);
  client.on('error', onError);
  const explainWith = (fallback: string, cause?: unknown) =>
    new RedisUnreachableError(where, last ? unreachableReason(last) : fallback, last ?? cause);
  return {
    ready(timeoutMs, span = `${Math.round(timeoutMs / 100) / 10} s`) {
      if (isReady(client)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          client.off('ready', onReady);
          client.off('end', onEnd);
          client.off('error', onFailure);
        };
        const onFailure = (error: Error) => {
          if (!isPermanent(error)) return;
          done();
          reject(new RedisUnreachableError(where, unreachableReason(error), error));
        };
        const onReady = () => {
          done();
          resolve();
        };
        const onEnd = () => {
          done();
          reject(explainWith('the connection was closed'));
        };
        const timer = setTimeout(() => {
          done();
          reject(
            last
              ? new RedisUnreachableError(
                  where,
                  `${unreachableReason(last)}; still failing after ${span}`,
                  last,
                )
              : new RedisUnreachableError(where, `timed out: no answer within ${span}`),
          );
        }, timeoutMs);
        client.on('ready', onReady);
        client.on('end', onEnd);
        client.on('error', onFailure);
        if (client.status === 'end') onEnd();
      });
    },
    explain(error) {
      // The store wraps a command's failure in a retryable THM_STORE error: its cause tells.
      const inner =
        error instanceof ThmError
          ? error.code === 'THM_STORE' && error.retryable
            ? error.cause
            : undefined
          : error;
      if (inner === undefined) return error;
      const text = `${(inner as { code?: string }).code ?? ''} ${inner instanceof Error ? inner.message : String(inner)}`;
      return CONNECTION_FAILURE.test(text) ? explainWith(unreachableReason(inner), inner) : error;
    },
    stop() {
      client.off('error', onError);
    },
  };
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
