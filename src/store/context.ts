import { isIsoDate } from '../dates.js';
import { StoredStateError, ThmError } from '../errors.js';
import { isFailoverReply, type RedisClient } from '../redis/connection.js';
import type { ConfirmOptions } from './confirm.js';
import type { StoreKeys } from './keys.js';

/**
 * What every module of the store works with (the RedisStore facade makes one), and how their
 * Redis errors are told: a failure of one network's own state names that network, its key and
 * field (StoredStateError: the network's unreadable state); any other is THM_STORE, retryable
 * unless Redis refused the command itself.
 */
export interface StoreContext {
  redis: RedisClient;
  /** Every key name: store/keys.ts. */
  keys: StoreKeys;
  /** Writes that must survive a failover (commit, claim) wait for replicas: store/confirm.ts. */
  confirm: ConfirmOptions;
}

/** Parses one field of a network's hash; its failure names the network, key and field. */
export function readNetworkField<T>(
  ctx: StoreContext,
  networkId: string,
  field: string,
  parse: () => T,
): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof StoredStateError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoredStateError(networkId, ctx.keys.network(networkId), field, reason);
  }
}

/** A command on a network's hash: a WRONGTYPE there is that network's unreadable state. */
export async function networkCall<T>(
  ctx: StoreContext,
  networkId: string,
  operation: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw networkError(ctx, networkId, error, operation);
  }
}

export function networkError(
  ctx: StoreContext,
  networkId: string,
  error: unknown,
  operation = 'read',
): ThmError {
  const message = error instanceof Error ? error.message : String(error);
  if (/^WRONGTYPE/.test(message))
    return new StoredStateError(
      networkId,
      ctx.keys.network(networkId),
      undefined,
      'holds another Redis type than the hash the store writes (WRONGTYPE)',
    );
  return storeError(operation, error);
}

export async function storeCall<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeError(operation, error);
  }
}

export function storeError(operation: string, error: unknown): ThmError {
  if (error instanceof ThmError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // A reply error (WRONGTYPE, a script's THM_STORE ...) will not go away by retrying; a lost
  // connection may, and so does a failover's refusal (READONLY, CLUSTERDOWN, ...).
  const reply = error instanceof Error && error.name === 'ReplyError' && !isFailoverReply(error);
  return new ThmError('THM_STORE', `redis ${operation}: ${firstLine(message)}`, {
    retryable: !reply,
    cause: error,
  });
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

export function checkDate(asOf: string): void {
  if (!isIsoDate(asOf)) throw new ThmError('THM_STORE', `not a YYYY-MM-DD as-of date: ${asOf}`);
}
