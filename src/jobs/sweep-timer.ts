/**
 * Runs a worker's sweep every `intervalMs`, one at a time: the next sweep starts an interval
 * after the previous one has ended, never beside it. While Redis is away a sweep waits for it
 * (the worker's connection queues its commands until Redis is back), and a timer that fired
 * regardless would pile one waiting sweep upon another for the whole outage, all of them to
 * run at once, contending for the schedulers' lock, when Redis returns.
 */
export interface SweepTimer {
  /** No sweep starts after this; one under way finishes on its own. */
  stop(): void;
}

export function scheduleSweeps(sweep: () => Promise<unknown>, intervalMs: number): SweepTimer {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep()
        .catch(() => undefined)
        .finally(next);
    }, intervalMs);
    timer.unref();
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
