import { createHash } from 'node:crypto';
import { z } from 'zod';
import { SCHEDULE_FIELDS } from '../config/changes.js';
import { redactedConfig, type Config } from '../config/load.js';
import type { RedisClient } from '../redis/connection.js';
import { storeKeys } from '../store/keys.js';
import { desiredSchedulers } from './schedulers.js';

/**
 * What a running worker tells the others (and `thm status`, `/healthz`, `/metrics`) about
 * itself: which job schedulers its config holds, and a digest of the rest of its config. Each
 * worker writes its advert at start, at every sweep and at a reload, with a time it is good
 * until (a few sweeps ahead), and withdraws it when it stops; an advert past its time belongs
 * to a worker that is gone.
 *
 * Glossary:
 * - advert: one worker's entry in the `workers` hash (store/keys.ts), keyed by its instance.
 * - live worker: one whose advert has not run out.
 * - held scheduler: one that a live worker's config has (its id, and its cron and zone).
 *
 * No worker removes a scheduler a live worker holds, so a replica with an older config (a
 * rolling deploy, a forgotten second host) no longer takes another's networks away; and every
 * worker puts back the schedulers its own config holds when they are gone (a Redis that lost
 * its data), within a sweep.
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

/** "<cron> <zone>" of every scheduler the config holds. */
export function heldSchedulers(config: Config): Record<string, string> {
  return Object.fromEntries(
    desiredSchedulers(config.networks).map((d) => [d.id, `${d.pattern} ${d.tz}`]),
  );
}

/**
 * The config's digests (WorkerAdvert.settings), without what differs from host to host by
 * nature (the file's path, the monitoring port) and without secrets (shown redacted).
 */
export function settingsDigest(config: Config): WorkerAdvert['settings'] {
  const {
    source: _source,
    monitoring: _monitoring,
    networks,
    ...global
  } = redactedConfig(config) as Record<string, unknown> & {
    networks: Array<Record<string, unknown> & { id: string }>;
  };
  return {
    global: digest(global),
    networks: Object.fromEntries(
      networks.map((network) => [network.id, digest(withoutSchedule(network))]),
    ),
  };
}

/** A network without the fields its schedulers are made of (config/changes.ts). */
function withoutSchedule(network: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(network);
  for (const field of SCHEDULE_FIELDS) {
    const [head, tail] = field.split('.') as [string, string | undefined];
    if (tail === undefined) delete copy[head];
    else if (copy[head] && typeof copy[head] === 'object')
      delete (copy[head] as Record<string, unknown>)[tail];
  }
  return copy;
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** A live advert lasts this many sweeps, and at least this long. */
const LIVE_SWEEPS = 3;
const LIVE_AT_LEAST_MS = 15_000;

export function advertLifetimeMs(sweepIntervalMs: number): number {
  return Math.max(LIVE_SWEEPS * sweepIntervalMs, LIVE_AT_LEAST_MS);
}

/** Writes `advert` and drops those that ran out, in one round trip. */
export async function publishAdvert(
  redis: RedisClient,
  prefix: string,
  advert: WorkerAdvert,
  now: number,
): Promise<void> {
  const key = storeKeys(prefix).workers;
  // One that does not parse (another version's?) is left to its writer.
  const stale = (await readAll(redis, key)).filter(
    (a) => a.advert !== undefined && a.advert.liveUntil < now,
  );
  const pipeline = redis.multi();
  pipeline.hset(key, advert.instance, JSON.stringify(advert));
  for (const { field } of stale) if (field !== advert.instance) pipeline.hdel(key, field);
  await pipeline.exec();
}

/** The adverts of live workers, by instance. */
export async function readLiveAdverts(
  redis: RedisClient,
  prefix: string,
  now: number,
): Promise<WorkerAdvert[]> {
  return (await readAll(redis, storeKeys(prefix).workers))
    .flatMap(({ advert }) => (advert && advert.liveUntil >= now ? [advert] : []))
    .sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0));
}

/** A stopping worker's advert goes at once: what only it held may then be removed. */
export async function withdrawAdvert(
  redis: RedisClient,
  prefix: string,
  instance: string,
): Promise<void> {
  await redis.hdel(storeKeys(prefix).workers, instance);
}

/** Every entry; one that does not parse (written by hand, or by another version) is undefined. */
async function readAll(
  redis: RedisClient,
  key: string,
): Promise<Array<{ field: string; advert?: WorkerAdvert }>> {
  const all = await redis.hgetall(key);
  return Object.entries(all).map(([field, text]) => {
    try {
      const parsed = advertSchema.safeParse(JSON.parse(text));
      return parsed.success ? { field, advert: parsed.data } : { field };
    } catch {
      return { field };
    }
  });
}
