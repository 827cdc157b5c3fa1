import {
  configChanges,
  hasChanges,
  type ConfigChanges,
  type ReloadResult,
} from '../config/changes.js';
import type { Config } from '../config/load.js';
import { ConfigError, type ThmErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { RedisStore } from '../store/redis-store.js';

/**
 * Config reload without a restart (SIGHUP, or POST /-/reload on the monitoring port), as
 * Prometheus does it: the file is read and validated again; a config with a problem is refused
 * (one log line naming the field) and the running one stays, and the failure is shown by
 * /healthz and `thm status` until a good config loads. A good one is applied by the worker
 * (`apply`: schedulers reconciled, the runtime's config swapped so that recipients, thresholds
 * and keys hold from the next job) and logged with what changed.
 *
 * Reloads run one at a time: a SIGHUP during a reload waits for it. Each replica reloads its own
 * process; the schedulers they share are reconciled under the existing lock.
 */
export type ReloadTrigger = 'SIGHUP' | 'http';

export interface Reloader {
  reload(trigger: ReloadTrigger): Promise<ReloadResult>;
  /** "config reload failed: ..." until a good config loads; undefined otherwise. */
  readonly failure: string | undefined;
  close(): Promise<void>;
}

/** A failed reload stays visible in Redis this long, refreshed while the worker runs. */
const FAILURE_TTL_S = 3_600;
const FAILURE_REFRESH_MS = 600_000;

export function createReloader(parts: {
  /** Reads and validates the config file again (the same path and environment as at start). */
  load: () => Config;
  current: () => Config;
  apply: (next: Config, changes: ConfigChanges) => Promise<void>;
  store: RedisStore;
  /** This process, as `thm status` names it (host-pid). */
  instance: string;
  logger: Logger;
  now?: () => number;
}): Reloader {
  const { logger, store, instance } = parts;
  const now = parts.now ?? Date.now;
  let failure: { message: string; at: number } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const publish = () => {
    if (!failure) return;
    store
      .recordReloadFailure(instance, failure.message, failure.at, FAILURE_TTL_S)
      .catch((error: Error) => logger.debug(`reload failure not recorded: ${error.message}`));
  };
  const refresher = setInterval(publish, FAILURE_REFRESH_MS);
  refresher.unref();

  async function reloadOnce(trigger: ReloadTrigger): Promise<ReloadResult> {
    let next: Config;
    try {
      next = parts.load();
    } catch (error) {
      const code: ThmErrorCode = error instanceof ConfigError ? error.code : 'THM_INTERNAL';
      const message = error instanceof Error ? error.message : String(error);
      failure = { message: `config reload failed: ${message}`, at: now() };
      logger.error({ trigger, code }, failure.message);
      publish();
      return { ok: false, error: { code, message } };
    }
    const changes = configChanges(parts.current(), next);
    try {
      await parts.apply(next, changes);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failure = { message: `config reload failed: ${message}`, at: now() };
      logger.error({ trigger }, failure.message);
      publish();
      return { ok: false, error: { code: 'THM_RELOAD', message } };
    }
    if (failure) {
      failure = undefined;
      await store
        .clearReloadFailure(instance)
        .catch((error: Error) => logger.debug(`reload failure not cleared: ${error.message}`));
    }
    logger.info(
      { trigger, ...changes },
      hasChanges(changes) ? 'config reloaded' : 'config reloaded: nothing changed',
    );
    for (const path of changes.restartNeeded) {
      logger.warn({ field: path }, `${path}: changed, takes effect when the worker restarts`);
    }
    return { ok: true, changes };
  }

  return {
    reload(trigger) {
      const result = queue.then(() => reloadOnce(trigger));
      queue = result.catch(() => undefined);
      return result;
    },
    get failure() {
      return failure?.message;
    },
    async close() {
      clearInterval(refresher);
      await queue;
      if (failure) await store.clearReloadFailure(instance).catch(() => undefined);
    },
  };
}
