import { storeCall, type StoreContext } from './context.js';

/** A worker's config reload that failed; it goes on with its previous config. */
export interface ReloadFailure {
  instance: string;
  message: string;
  /** Epoch ms (ISO 8601 in `--json`, by the name; see cli/output.ts). */
  failedAt: number;
}

/** A worker's failed config reload, for `thm status` (expires unless refreshed). */
export async function recordReloadFailure(
  ctx: StoreContext,
  instance: string,
  message: string,
  at: number,
  ttlSeconds: number,
): Promise<void> {
  await storeCall('recordReloadFailure', () =>
    ctx.redis.set(
      ctx.keys.reloadFailed(instance),
      JSON.stringify({ instance, message, at }),
      'EX',
      ttlSeconds,
    ),
  );
}

export async function clearReloadFailure(ctx: StoreContext, instance: string): Promise<void> {
  await storeCall('clearReloadFailure', () => ctx.redis.del(ctx.keys.reloadFailed(instance)));
}

/** Every worker whose last config reload failed, oldest first. */
export async function reloadFailures(ctx: StoreContext): Promise<ReloadFailure[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await storeCall('reloadFailures', () =>
      ctx.redis.scan(cursor, 'MATCH', ctx.keys.reloadFailedPattern, 'COUNT', 500),
    );
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  if (keys.length === 0) return [];
  const values = await storeCall('reloadFailures', () => ctx.redis.mget(...keys));
  const out: ReloadFailure[] = [];
  for (const value of values) {
    if (value === null) continue;
    try {
      const parsed = JSON.parse(value) as { instance?: unknown; message?: unknown; at?: unknown };
      if (
        typeof parsed.instance === 'string' &&
        typeof parsed.message === 'string' &&
        typeof parsed.at === 'number'
      )
        out.push({ instance: parsed.instance, message: parsed.message, failedAt: parsed.at });
    } catch {
      // Not ours to interpret: skipped.
    }
  }
  return out.sort((a, b) => a.failedAt - b.failedAt);
}
