import { z } from 'zod';
import { storeCall, type StoreContext } from './context.js';

/**
 * What a running worker tells the others (and `thm status`, `/healthz`, `/metrics`) about
 * itself: which job schedulers its config holds, and digests of the rest of its config. Each
 * worker writes its advert at start, at every sweep and at a reload, with a time it is good
 * until (a few sweeps ahead), and withdraws it when it stops; an advert past its time belongs
 * to a worker that is gone. Kept in one hash, by instance (store/keys.ts, `workers`).
 *
 * Glossary:
 * - advert: one worker's entry in the `workers` hash.
 * - live worker: one whose advert has not run out.
 * - held scheduler: one that a live worker's config has (its id, and its cron and zone).
 *
 * How they are used: jobs/scheduler-keeper.ts (no worker removes a scheduler a live worker
 * holds; each puts back those its own config holds), jobs/schedule-coverage.ts (what is
 * missing, how the configs differ).
 */
export interface WorkerAdvert {
  /** host-pid, as logs and `thm status` name the worker. */
  instance: string;
  version: string;
  storageFormat: number;
  startedAt: number;
  /** When the config it runs on was loaded (its start, or its last good reload). */
  configAt: number;
  /** Until when it is live (epoch ms). */
  liveUntil: number;
  /** How often it checks the schedulers (its sweep). */
  sweepIntervalMs: number;
  /** Scheduler id -> "<cron> <zone>", of every scheduler its config holds. */
  schedulers: Record<string, string>;
  /**
   * Digests of the rest of its config (secrets left out; equal digests, equal settings): the
   * global sections, and each network's (its schedule left out: `schedulers` has it).
   */
  settings: { global: string; networks: Record<string, string> };
}

const advertSchema = z.object({
  instance: z.string().min(1),
  version: z.string(),
  storageFormat: z.number().int(),
  startedAt: z.number(),
  configAt: z.number(),
  liveUntil: z.number(),
  sweepIntervalMs: z.number().positive(),
  schedulers: z.record(z.string(), z.string()),
  settings: z.object({ global: z.string(), networks: z.record(z.string(), z.string()) }),
}) satisfies z.ZodType<WorkerAdvert>;

/** Writes `advert` and drops those that ran out. */
export async function publishAdvert(
  ctx: StoreContext,
  advert: WorkerAdvert,
  now: number,
): Promise<void> {
  // One that does not parse (another version's?) is left to its writer.
  const stale = (await readAll(ctx)).filter(
    (a) => a.advert !== undefined && a.advert.liveUntil < now && a.field !== advert.instance,
  );
  await storeCall('publishAdvert', async () => {
    const pipeline = ctx.redis.multi();
    pipeline.hset(ctx.keys.workers, advert.instance, JSON.stringify(advert));
    for (const { field } of stale) pipeline.hdel(ctx.keys.workers, field);
    await pipeline.exec();
  });
}

/** The adverts of live workers, by instance. */
export async function liveAdverts(ctx: StoreContext, now: number): Promise<WorkerAdvert[]> {
  return (await readAll(ctx))
    .flatMap(({ advert }) => (advert && advert.liveUntil >= now ? [advert] : []))
    .sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0));
}

/** A stopping worker's advert goes at once: what only it held may then be removed. */
export async function withdrawAdvert(ctx: StoreContext, instance: string): Promise<void> {
  await storeCall('withdrawAdvert', () => ctx.redis.hdel(ctx.keys.workers, instance));
}

/** Every entry; one that does not parse (written by hand, or by another version) is undefined. */
async function readAll(
  ctx: StoreContext,
): Promise<Array<{ field: string; advert?: WorkerAdvert }>> {
  const all = await storeCall('liveAdverts', () => ctx.redis.hgetall(ctx.keys.workers));
  return Object.entries(all).map(([field, text]) => {
    try {
      const parsed = advertSchema.safeParse(JSON.parse(text));
      return parsed.success ? { field, advert: parsed.data } : { field };
    } catch {
      return { field };
    }
  });
}
