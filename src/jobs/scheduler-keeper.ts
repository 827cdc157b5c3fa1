import { hostname } from 'node:os';
import type { Queue } from 'bullmq';
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { STORAGE_FORMAT } from '../store/format.js';
import { productVersion } from '../version.js';
import type { CheckJobData } from './job-data.js';
import { parseSchedulerId } from './names.js';
import {
  configDriftIsProblem,
  scheduleCoverage,
  type ScheduleCoverage,
} from './schedule-coverage.js';
import {
  healSchedulers,
  reconcileSchedulers,
  schedulerJobOptions,
  type HealResult,
  type ReconcileResult,
} from './schedulers.js';
import type { RedisStore } from '../store/redis-store.js';
import type { WorkerAdvert } from '../store/worker-adverts.js';
import { heldSchedulers, settingsDigest } from './config-digest.js';

/**
 * One worker's part in keeping the schedulers (jobs/schedulers.ts): its advert, published under
 * the schedulers' lock before it reconciles (start, reload) or heals (every sweep), and
 * withdrawn when it stops; and what `/healthz` and `/metrics` ask of the live workers' adverts.
 */
export interface SchedulerKeeper {
  /** host-pid (with -2, -3 ... for further workers in one process). */
  readonly instance: string;
  /** At start and after a reload that changed schedules: the config's schedulers upserted. */
  reconcile(config: Config): Promise<ReconcileResult>;
  /** A sweep, with the config in force. */
  heal(config: Config): Promise<HealResult>;
  /** The live workers' adverts against the schedulers in Redis (read now). */
  coverage(): Promise<ScheduleCoverage>;
  /**
   * The problems `/healthz` reports of it: missing schedulers (at once), and configs that have
   * differed for longer than worker.configDriftGraceMs of the config in force.
   */
  problems(): Promise<string[]>;
  withdraw(): Promise<void>;
}

/** A live advert lasts this many sweeps, and at least this long. */
const LIVE_SWEEPS = 3;
const LIVE_AT_LEAST_MS = 15_000;

export function advertLifetimeMs(sweepIntervalMs: number): number {
  return Math.max(LIVE_SWEEPS * sweepIntervalMs, LIVE_AT_LEAST_MS);
}

let workersInProcess = 0;

export function createSchedulerKeeper(parts: {
  queue: Queue<CheckJobData>;
  redis: RedisClient;
  store: RedisStore;
  /** redis.prefix: the schedulers' lock is `<prefix>:lock:schedulers`. */
  prefix: string;
  logger: Logger;
  sweepIntervalMs: number;
  now: () => number;
  /** Told of networks whose schedulers it made (store.markScheduled). */
  onScheduled: (networkIds: string[]) => Promise<void>;
}): SchedulerKeeper {
  const { queue, redis, store, logger, now } = parts;
  workersInProcess += 1;
  const instance = `${hostname()}-${process.pid}${workersInProcess > 1 ? `-${workersInProcess}` : ''}`;
  const lockKey = `${parts.prefix}:lock:schedulers`;
  const startedAt = now();
  const version = productVersion();
  /** What the advert says of the config in force, worked out once per config. */
  let advertised:
    | ({ config: Config; configAt: number } & Pick<WorkerAdvert, 'schedulers' | 'settings'>)
    | undefined;

  const advert = (config: Config): WorkerAdvert => {
    if (advertised?.config !== config) {
      const schedulers = heldSchedulers(config);
      const settings = settingsDigest(config);
      // A reload that changed nothing the advert shows keeps the time: the other workers'
      // configs differ from this one since then, not since the reload (configDriftIsProblem).
      const same =
        advertised !== undefined &&
        JSON.stringify([advertised.schedulers, advertised.settings]) ===
          JSON.stringify([schedulers, settings]);
      advertised = {
        config,
        configAt: same && advertised ? advertised.configAt : now(),
        schedulers,
        settings,
      };
    }
    return {
      instance,
      version,
      storageFormat: STORAGE_FORMAT,
      startedAt,
      configAt: advertised.configAt,
      liveUntil: now() + advertLifetimeMs(parts.sweepIntervalMs),
      sweepIntervalMs: parts.sweepIntervalMs,
      schedulers: advertised.schedulers,
      settings: advertised.settings,
    };
  };
  /** Publishes this worker's advert; the schedulers the other live workers hold. */
  const liveWorkers = (config: Config) => async () => {
    const at = now();
    await store.publishAdvert(advert(config), at);
    const others = (await store.liveAdverts(at)).filter((a) => a.instance !== instance);
    return new Set(others.flatMap((a) => Object.keys(a.schedulers)));
  };
  const common = (config: Config) => ({
    queue,
    redis,
    lockKey,
    networks: config.networks,
    jobOptions: schedulerJobOptions(config),
    logger,
    liveWorkers: liveWorkers(config),
  });

  const keeper: SchedulerKeeper = {
    instance,
    async reconcile(config) {
      const result = await reconcileSchedulers(common(config));
      await parts.onScheduled(config.networks.map((n) => n.id));
      return result;
    },
    async heal(config) {
      const result = await healSchedulers(common(config));
      // Redis lost them, and with them when each network was first scheduled.
      const networks = new Set(result.added.map((id) => parseSchedulerId(id)?.networkId ?? ''));
      networks.delete('');
      if (networks.size > 0) await parts.onScheduled([...networks]);
      return result;
    },
    async coverage() {
      const [adverts, existing] = await Promise.all([
        store.liveAdverts(now()),
        redis.zrange(queue.toKey('repeat'), 0, -1),
      ]);
      // Its own advert as this worker knows it, not as Redis has it: a Redis that lost its
      // data has lost the advert too, and the schedulers it holds are missing all the same.
      const own = advertised ? [advert(advertised.config)] : [];
      return scheduleCoverage(
        [...adverts.filter((a) => a.instance !== instance), ...own],
        existing,
      );
    },
    async problems() {
      const coverage = await keeper.coverage();
      const { missing, differences, differingSince } = coverage;
      const problems: string[] = [];
      if (missing.length > 0)
        problems.push(
          `schedulers: ${missing.length} missing (${listed(
            missing.map((m) => m.id),
            10,
            ', ',
          )}): a worker holding them adds them back at its next sweep`,
        );
      const graceMs = advertised?.config.worker.configDriftGraceMs ?? 0;
      if (configDriftIsProblem(coverage, graceMs, now()))
        problems.push(
          `workers' configs differ since ${new Date(differingSince ?? 0).toISOString()}, longer than worker.configDriftGraceMs: ${listed(differences, 5, '; ')}`,
        );
      return problems;
    },
    async withdraw() {
      await store.withdrawAdvert(instance);
    },
  };
  return keeper;
}

/** The first `max` items, and how many more there are. */
function listed(items: readonly string[], max: number, separator: string): string {
  const more = items.length - max;
  return `${items.slice(0, max).join(separator)}${more > 0 ? `${separator}and ${more} more` : ''}`;
}
