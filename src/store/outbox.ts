import { ThmError } from '../errors.js';
import { EMAIL_CHANNEL } from '../notification-names.js';
import { parseChannelDeliveryId } from '../notify/channels/delivery-id.js';
import type {
  ChannelDelivery,
  Notification,
  OutboxClaim,
  OutboxEntry,
  OutboxNotification,
} from '../notify/types.js';
import { writeConfirmed } from './confirm.js';
import { storeCall, storeError, type StoreContext } from './context.js';
import {
  outboxItemSchema,
  outboxMetaSchema,
  parseOptional,
  parseStored,
  type OutboxMeta,
} from './records.js';
import { SENT_NOTIFICATION_MAX, SENT_NOTIFICATION_RETENTION_MS } from './retention.js';
import { leaseScript, outboxAddScript, outboxScript } from './scripts.js';

/**
 * The outbox: every e-mail and channel delivery a run decided, from pending to sent or failed
 * (layout: store/keys.ts), and the lease a sender holds while it delivers one. A run's own
 * entries are added by its commit (network-state.ts, commitRun) in the same step as the
 * history change that decided them.
 */

/** Where a notification or channel delivery is in the outbox. */
export type OutboxState = 'pending' | 'sent' | 'failed';
const OUTBOX_STATES: readonly OutboxState[] = ['pending', 'sent', 'failed'];
export type OutboxCounts = Record<OutboxState, number>;

/**
 * Puts notifications (e-mails) and channel deliveries into the outbox on their own, without a
 * run record (see outboxAddScript). Returns how many were new.
 */
export async function addToOutbox(
  ctx: StoreContext,
  items: ReadonlyArray<Notification | ChannelDelivery>,
): Promise<number> {
  if (items.length === 0) return 0;
  return (await storeCall('addToOutbox', () =>
    outboxAddScript.run(
      ctx.redis,
      [ctx.keys.outboxBody, ctx.keys.outboxPending],
      [items.length, ...outboxArgs(items)],
    ),
  )) as number;
}

/**
 * Ids of the pending notifications due at `now`, earliest due first. Ids only: a sweep hands
 * them to delivery, whose claim reads each entry anyway.
 */
export async function pendingNotificationIds(
  ctx: StoreContext,
  limit: number,
  now: number,
): Promise<string[]> {
  return storeCall('pendingNotificationIds', () =>
    ctx.redis.zrangebyscore(ctx.keys.outboxPending, '-inf', now, 'LIMIT', 0, limit),
  );
}

export async function getNotification(
  ctx: StoreContext,
  id: string,
): Promise<OutboxEntry | undefined> {
  const [entry] = await getNotifications(ctx, [id]);
  return entry;
}

/** The outbox entries of `ids`, in their order (undefined where there is none): one read. */
export async function getNotifications(
  ctx: StoreContext,
  ids: string[],
): Promise<Array<OutboxEntry | undefined>> {
  const [bodies, metas] = await outboxFields(ctx, ids);
  return ids.map((_, i) => {
    const body = bodies[i];
    return body === null || body === undefined
      ? undefined
      : parseOutboxEntry(body, metas[i] ?? null);
  });
}

export async function claimNotification(
  ctx: StoreContext,
  id: string,
  owner: string,
  leaseMs: number,
  now: number,
): Promise<OutboxClaim> {
  // Confirmed before anything is sent: an e-mail never goes out on an entry or a lease that
  // a failover could take back (the entry would be decided and sent again).
  const keys = leaseKeys(ctx, id);
  const reply = (await storeCall('claimNotification', () =>
    writeConfirmed(ctx.redis, keys[0]!, ctx.confirm, 'claim', () =>
      leaseScript.run(ctx.redis, keys, ['claim', id, owner, leaseMs, now]),
    ),
  )) as [string, string?, (string | null)?];
  const [status, body, meta] = reply;
  if (status === 'claimed' && body !== undefined) {
    let entry: OutboxEntry;
    try {
      entry = parseOutboxEntry(body, meta ?? null);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw await setAside(ctx, id, `unreadable outbox entry: ${reason}`);
    }
    return { status, entry };
  }
  if (status === 'not-due' && body !== undefined) return { status, dueAt: Number(body) };
  if (status === 'missing') {
    // An id in the pending list without a stored notification (a junk id): moved aside once,
    // not swept again and again.
    const pending = await storeCall('claimNotification', () =>
      ctx.redis.zscore(ctx.keys.outboxPending, id),
    );
    if (pending !== null)
      throw await setAside(ctx, id, 'unreadable outbox entry: pending without a notification');
    return { status };
  }
  if (status === 'busy' || status === 'sent' || status === 'failed') {
    return { status };
  }
  throw new ThmError('THM_STORE', `unexpected lease reply ${JSON.stringify(status)}`);
}

export async function releaseNotification(
  ctx: StoreContext,
  id: string,
  owner: string,
): Promise<void> {
  await storeCall('releaseNotification', () =>
    leaseScript.run(ctx.redis, leaseKeys(ctx, id), ['release', id, owner]),
  );
}

export async function recordAttempt(
  ctx: StoreContext,
  id: string,
  error: string,
  nextAttemptAt: number,
): Promise<void> {
  await transition(ctx, 'attempt', id, nextAttemptAt, error);
}

export async function markSent(ctx: StoreContext, id: string, at: number): Promise<void> {
  await transition(ctx, 'sent', id, at, '');
}

export async function markFailed(
  ctx: StoreContext,
  id: string,
  error: string,
  at: number,
): Promise<void> {
  await transition(ctx, 'failed', id, at, error);
}

/** Back to pending, due at `now`. False when it was not failed. */
export async function retryFailed(
  ctx: StoreContext,
  id: string,
  now = Date.now(),
): Promise<boolean> {
  return (await transition(ctx, 'retry', id, now, '')) === 1;
}

export async function failedNotifications(ctx: StoreContext): Promise<OutboxEntry[]> {
  const ids = await storeCall('failedNotifications', () =>
    ctx.redis.zrange(ctx.keys.outboxFailed, 0, -1),
  );
  return readEntries(ctx, ids, 'failed');
}

/**
 * Failed entries that cannot be read (no notification, or one the store cannot parse): moved
 * aside by a sender's claim, listed by `thm notify failed` beside the refused ones.
 */
export async function unreadableNotifications(
  ctx: StoreContext,
): Promise<Array<{ id: string; lastError?: string; failedAt?: number }>> {
  const ids = await storeCall('unreadableNotifications', () =>
    ctx.redis.zrange(ctx.keys.outboxFailed, 0, -1),
  );
  if (ids.length === 0) return [];
  const [bodies, metas] = await storeCall('unreadableNotifications', () =>
    Promise.all([
      ctx.redis.hmget(ctx.keys.outboxBody, ...ids),
      ctx.redis.hmget(ctx.keys.outboxMeta, ...ids),
    ]),
  );
  const result: Array<{ id: string; lastError?: string; failedAt?: number }> = [];
  ids.forEach((id, i) => {
    const body = bodies[i];
    if (body !== null && body !== undefined && isReadableBody(body)) return;
    const meta = readableMeta(metas[i] ?? null);
    result.push({
      id,
      ...(meta?.lastError !== undefined ? { lastError: meta.lastError } : {}),
      ...(meta?.failedAt !== undefined ? { failedAt: meta.failedAt } : {}),
    });
  });
  return result;
}

export async function outboxCounts(ctx: StoreContext): Promise<OutboxCounts> {
  const replies = await storeCall('outboxCounts', () =>
    ctx.redis
      .multi()
      .zcard(ctx.keys.outboxPending)
      .zcard(ctx.keys.outboxSent)
      .zcard(ctx.keys.outboxFailed)
      .exec(),
  );
  const [pending, sent, failed] = (replies ?? []).map(([error, n]) => {
    if (error) throw storeError('outboxCounts', error);
    return Number(n);
  });
  return { pending: pending ?? 0, sent: sent ?? 0, failed: failed ?? 0 };
}

/**
 * The outbox per channel (`email`, or a channel delivery's channel name) and state: for
 * `thm status` (every state) and /metrics (`pending` and `failed` only: the sent set is the
 * large one, bounded by SENT_NOTIFICATION_MAX). Reads the ids of those sets.
 */
export async function outboxCountsByChannel(
  ctx: StoreContext,
  states: readonly OutboxState[] = OUTBOX_STATES,
): Promise<Record<string, OutboxCounts>> {
  const k = ctx.keys;
  const keyOf: Record<OutboxState, string> = {
    pending: k.outboxPending,
    sent: k.outboxSent,
    failed: k.outboxFailed,
  };
  const multi = ctx.redis.multi();
  for (const state of states) multi.zrange(keyOf[state], 0, -1);
  const replies = await storeCall('outboxCountsByChannel', () => multi.exec());
  const counts: Record<string, OutboxCounts> = {};
  (replies ?? []).forEach(([error, ids], i) => {
    if (error) throw storeError('outboxCountsByChannel', error);
    for (const id of ids as string[]) {
      const channel = parseChannelDeliveryId(id)?.channel ?? EMAIL_CHANNEL;
      counts[channel] ??= { pending: 0, sent: 0, failed: 0 };
      counts[channel][states[i]!] += 1;
    }
  });
  return counts;
}

/**
 * Moves an unreadable entry from pending to failed (with the reason), so no sender takes it
 * again and `thm notify failed` lists it. Returns the error for the caller to throw (its log
 * line is the one line that reports it).
 */
async function setAside(ctx: StoreContext, id: string, reason: string): Promise<ThmError> {
  const now = Date.now();
  const meta = JSON.stringify({ state: 'failed', attempts: 0, lastError: reason, failedAt: now });
  await storeCall('setAside', () =>
    ctx.redis
      .multi()
      .zrem(ctx.keys.outboxPending, id)
      .zadd(ctx.keys.outboxFailed, now, id)
      .hset(ctx.keys.outboxMeta, id, meta)
      .del(ctx.keys.outboxLease(id))
      .exec(),
  );
  return new ThmError('THM_STORE', `notification ${id}: ${reason}; moved to failed`);
}

async function transition(
  ctx: StoreContext,
  op: 'attempt' | 'sent' | 'failed' | 'retry',
  id: string,
  at: number,
  error: string,
): Promise<number> {
  const k = ctx.keys;
  const cutoff = at - SENT_NOTIFICATION_RETENTION_MS;
  return (await storeCall(op, () =>
    outboxScript.run(
      ctx.redis,
      [
        k.outboxBody,
        k.outboxMeta,
        k.outboxPending,
        k.outboxSent,
        k.outboxFailed,
        k.outboxLease(id),
      ],
      [op, id, at, error, cutoff, SENT_NOTIFICATION_MAX],
    ),
  )) as number;
}

/** The bodies and states of `ids`, index by index. */
async function outboxFields(
  ctx: StoreContext,
  ids: string[],
): Promise<[(string | null)[], (string | null)[]]> {
  if (ids.length === 0) return [[], []];
  return storeCall('outbox', () =>
    Promise.all([
      ctx.redis.hmget(ctx.keys.outboxBody, ...ids),
      ctx.redis.hmget(ctx.keys.outboxMeta, ...ids),
    ]),
  );
}

/** Entries by id, in order; ids gone meanwhile are skipped. */
async function readEntries(
  ctx: StoreContext,
  ids: string[],
  only?: OutboxEntry['state'],
): Promise<OutboxEntry[]> {
  const [bodies, metas] = await outboxFields(ctx, ids);
  const result: OutboxEntry[] = [];
  ids.forEach((_, i) => {
    const body = bodies[i];
    if (body === null || body === undefined) return;
    // A listing skips an entry it cannot read (unreadableNotifications lists those).
    if (only !== undefined && !isReadableBody(body)) return;
    const entry = parseOutboxEntry(body, metas[i] ?? null);
    if (only === undefined || entry.state === only) result.push(entry);
  });
  return result;
}

function parseOutboxEntry(body: string, rawMeta: string | null): OutboxEntry {
  const meta: OutboxMeta = parseOptional(outboxMetaSchema, rawMeta, 'outbox state') ?? {
    state: 'pending',
    attempts: 0,
  };
  const entry: OutboxEntry = {
    notification: parseStored(outboxItemSchema, body, 'notification'),
    state: meta.state,
    attempts: meta.attempts,
  };
  if (meta.lastError !== undefined) entry.lastError = meta.lastError;
  if (meta.sentAt !== undefined) entry.sentAt = meta.sentAt;
  if (meta.nextAttemptAt !== undefined) entry.nextAttemptAt = meta.nextAttemptAt;
  if (meta.failedAt !== undefined) entry.failedAt = meta.failedAt;
  return entry;
}

function leaseKeys(ctx: StoreContext, id: string): string[] {
  const k = ctx.keys;
  return [k.outboxBody, k.outboxMeta, k.outboxPending, k.outboxLease(id)];
}

/** Outbox entries as script arguments: id, JSON, due time each. */
export function outboxArgs(items: ReadonlyArray<Notification | ChannelDelivery>): string[] {
  return items.flatMap((item) => [
    item.id,
    JSON.stringify('channel' in item ? item : outboxNotification(item)),
    String(item.createdAt),
  ]);
}

/** What the outbox keeps of a notification: all but the events (see OutboxNotification). */
function outboxNotification(n: Notification): OutboxNotification {
  const { events: _events, ...kept } = n;
  return kept;
}

/** Whether an outbox body parses as a notification. */
function isReadableBody(body: string): boolean {
  try {
    parseStored(outboxItemSchema, body, 'notification');
    return true;
  } catch {
    return false;
  }
}

/** An entry's state, or none where it cannot be read. */
function readableMeta(raw: string | null): OutboxMeta | undefined {
  try {
    return parseOptional(outboxMetaSchema, raw, 'outbox state');
  } catch {
    return undefined;
  }
}
