import { storeCall, storeError, type StoreContext } from './context.js';

/**
 * When each network was first scheduled: a network that has never run is overdue only once its
 * first scheduled run (plus grace) has passed (monitor/overdue.ts).
 */

/**
 * Notes that these networks are scheduled from `now` on, unless noted already. One round trip
 * for all of them (pipelined HSETNX).
 */
export async function markScheduled(
  ctx: StoreContext,
  networkIds: readonly string[],
  now: number,
): Promise<void> {
  if (networkIds.length === 0) return;
  for (const id of networkIds) ctx.keys.network(id); // validates the ids
  const pipeline = ctx.redis.pipeline();
  for (const id of networkIds) pipeline.hsetnx(ctx.keys.scheduledSince, id, String(now));
  const replies = await storeCall('markScheduled', () => pipeline.exec());
  for (const [error] of replies ?? []) if (error) throw storeError('markScheduled', error);
}

/** When each network was first scheduled (absent: never, or before this was recorded). */
export async function scheduledSince(
  ctx: StoreContext,
  networkIds: readonly string[],
): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  if (networkIds.length === 0) return result;
  const values = await storeCall('scheduledSince', () =>
    ctx.redis.hmget(ctx.keys.scheduledSince, ...networkIds),
  );
  values.forEach((value, i) => {
    const at = Number(value);
    if (value !== null && Number.isFinite(at)) result.set(networkIds[i]!, at);
  });
  return result;
}
