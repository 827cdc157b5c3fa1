import { randomBytes } from 'node:crypto';
import { StoredStateError, ThmError } from '../errors.js';
import type { Silence } from '../monitor/types.js';
import { networkError, readNetworkField, storeCall, type StoreContext } from './context.js';
import { FIELD } from './keys.js';
import { networkIds } from './network-state.js';
import { parseSilenceLines } from './records.js';
import { EXPIRED_SILENCE_RETENTION_MS } from './retention.js';
import { addSilenceScript, removeSilenceScript } from './scripts.js';

/**
 * Silences (`thm silence`): kept in their network's hash, one JSON line each, with an index of
 * every silence id to its network. A run reads them with the rest of its state
 * (network-state.ts); adding or removing one does not move the network's revision, so it never
 * makes a run in progress decide again.
 */

export async function addSilence(
  ctx: StoreContext,
  silence: Omit<Silence, 'id' | 'createdAt'>,
  now: number,
): Promise<Silence> {
  if (!(silence.expiresAt > now)) {
    throw new ThmError('THM_STORE', 'a silence must expire in the future');
  }
  if (silence.startsAt !== undefined && !(silence.startsAt < silence.expiresAt)) {
    throw new ThmError('THM_STORE', 'a silence must start before it ends');
  }
  // The scripts drop silences expired before this; later ones stay for `list --expired`.
  const pruneBefore = now - EXPIRED_SILENCE_RETENTION_MS;
  for (let attempt = 0; attempt < 5; attempt++) {
    const stored: Silence = { id: randomBytes(4).toString('hex'), ...silence, createdAt: now };
    const created = await storeCall('addSilence', () =>
      addSilenceScript.run(
        ctx.redis,
        [ctx.keys.network(silence.networkId), ctx.keys.silenceIds, ctx.keys.networks],
        [FIELD.silences, stored.id, JSON.stringify(stored), silence.networkId, pruneBefore],
      ),
    );
    if (created === 1) return stored;
  }
  throw new ThmError('THM_STORE', 'could not find a free silence id');
}

/**
 * Unexpired silences (in force, or starting later), of one network or of all, oldest first;
 * with `expired`, those that expired within EXPIRED_SILENCE_RETENTION_MS instead.
 */
export async function listSilences(
  ctx: StoreContext,
  networkId?: string,
  now = Date.now(),
  options: { expired?: boolean } = {},
): Promise<Silence[]> {
  const { silences, unreadable } = await readSilences(ctx, networkId, now, options);
  if (unreadable[0]) throw unreadable[0];
  return silences;
}

/**
 * The same, network by network: a network whose silences cannot be read is reported in
 * `unreadable` (naming its key and field) and the others are still listed.
 */
export async function readSilences(
  ctx: StoreContext,
  networkId?: string,
  now = Date.now(),
  options: { expired?: boolean } = {},
): Promise<{ silences: Silence[]; unreadable: StoredStateError[] }> {
  const ids = networkId === undefined ? await networkIds(ctx) : [networkId];
  if (ids.length === 0) return { silences: [], unreadable: [] };
  const pipeline = ctx.redis.pipeline();
  for (const id of ids) pipeline.hget(ctx.keys.network(id), FIELD.silences);
  const replies = await storeCall('listSilences', () => pipeline.exec());
  const silences: Silence[] = [];
  const unreadable: StoredStateError[] = [];
  (replies ?? []).forEach(([error, raw], i) => {
    const id = ids[i]!;
    try {
      if (error) throw networkError(ctx, id, error);
      silences.push(
        ...readNetworkField(ctx, id, FIELD.silences, () => parseSilenceLines(raw as string)),
      );
    } catch (problem) {
      if (!(problem instanceof StoredStateError)) throw problem;
      unreadable.push(problem);
    }
  });
  return {
    silences: silences
      .filter((s) => s.expiresAt > now !== (options.expired === true))
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)),
    unreadable,
  };
}

/** True when a silence with this id (unexpired, or expired but still kept) is now gone. */
export async function removeSilence(
  ctx: StoreContext,
  id: string,
  now = Date.now(),
): Promise<boolean> {
  const networkId = await storeCall('removeSilence', () => ctx.redis.hget(ctx.keys.silenceIds, id));
  if (networkId === null) return false;
  const removed = await storeCall('removeSilence', () =>
    removeSilenceScript.run(
      ctx.redis,
      [ctx.keys.network(networkId), ctx.keys.silenceIds],
      [FIELD.silences, id, now - EXPIRED_SILENCE_RETENTION_MS],
    ),
  );
  return removed === 1;
}
