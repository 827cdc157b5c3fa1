import type { Logger } from '../log.js';

/**
 * How long a stopping worker waits for a Redis that does not answer. Its active jobs cannot
 * finish without Redis (a run ends with a Redis commit), so after this the worker exits anyway;
 * their locks then expire and another worker takes the jobs over (BullMQ's stalled-job check,
 * after `worker.lockDurationMs`). Counted from the signal or from the outage, whichever is
 * later, so a Redis that comes back in time lets the jobs finish normally.
 */
export const STOP_WITHOUT_REDIS_MS = 10_000;

/** What the signals act on: the running worker (worker.ts's RunningWorker), once started. */
export interface SignalledWorker {
  reload?: (trigger: 'SIGHUP') => Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The worker process's signals, installed before the worker starts (before its modules are even
 * loaded; this module imports types only, as every CLI command loads it), so that no signal in
 * the start-up meets Node's default, which ends the process:
 * - SIGTERM / SIGINT: the first one closes gracefully (active jobs finish, or are handed back
 *   through stalled-job recovery if they outlive the lock) and exits 0; a worker still starting
 *   is closed once it has, or, when that takes longer than STOP_WITHOUT_REDIS_MS (no Redis),
 *   the process exits 0 without it. A second signal exits at once.
 * - SIGHUP reloads the config (docs/operations.md). One that arrives while the
 *   worker starts is applied as soon as it has: the file may have changed after it was read.
 *   It used to end the process, dropping its active jobs.
 */
export function handleSignals(starting: Promise<SignalledWorker>, logger: Logger): void {
  let stopping = false;
  let reloadPending = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping: finishing active jobs');
    const bound = setTimeout(() => {
      logger.warn(
        `the worker had not started within ${STOP_WITHOUT_REDIS_MS / 1000} s of the signal: exiting`,
      );
      process.exit(0);
    }, STOP_WITHOUT_REDIS_MS);
    bound.unref();
    starting.then(
      (worker) => {
        clearTimeout(bound);
        worker.close().then(
          () => process.exit(0),
          (error: Error) => {
            logger.error(`error while stopping: ${error.message}`);
            process.exit(1);
          },
        );
      },
      // A start that fails is reported, and exits, where it was awaited.
      () => undefined,
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => {
    // Several while the worker starts make one reload; later ones queue in the reloader.
    if (stopping || reloadPending) return;
    reloadPending = true;
    starting.then(
      (worker) => {
        reloadPending = false;
        if (stopping || !worker.reload) return;
        worker
          .reload('SIGHUP')
          .catch((error: Error) => logger.error(`config reload failed: ${error.message}`));
      },
      // A start that fails is reported, and exits, where it was awaited.
      () => undefined,
    );
  });
}
