import { cronFireTime } from '../cron.js';
import type { RunKind, RunRecord } from './types.js';

/**
 * Whether a network is watched as it should be: its latest runs, its last successful
 * traffic-check, and the overdue rule. One owner for `thm status` (and `--check`) and the
 * worker's metrics (`thm_last_successful_traffic_check_timestamp_seconds`). Pure: the time is an
 * argument; cron-parser only computes fire times.
 */

/** A network's traffic-check schedule, as configured (NetworkConfig fits). */
export interface CheckSchedule {
  timezone: string;
  trafficCheck: { cron: string; graceMinutes: number };
}

/** What the choice of the latest runs reads of a run record. */
export type RunChoiceFields = Pick<RunRecord, 'kind' | 'outcome' | 'finishedAt'>;

export interface LatestRuns<R extends RunChoiceFields = RunRecord> {
  trafficCheck?: R;
  invoiceSnapshot?: R;
  /** The last traffic-check that did not fail. */
  lastSuccess?: R;
}

/**
 * The latest run of each kind and the last successful traffic-check. "Latest" is by finish time:
 * a backfill (--date) or a forced re-run done now is the latest thing that happened, whatever
 * its as-of date.
 */
export function latestRuns<R extends RunChoiceFields>(runs: readonly R[]): LatestRuns<R> {
  const latest: LatestRuns<R> = {};
  const later = (a: R | undefined, b: R) =>
    a === undefined || b.finishedAt > a.finishedAt ? b : a;
  for (const run of runs) {
    const kind: RunKind = run.kind;
    if (kind === 'invoice-snapshot') {
      latest.invoiceSnapshot = later(latest.invoiceSnapshot, run);
      continue;
    }
    latest.trafficCheck = later(latest.trafficCheck, run);
    if (run.outcome !== 'failed') latest.lastSuccess = later(latest.lastSuccess, run);
  }
  return latest;
}

export interface Overdue {
  overdue: boolean;
  reason?: string;
}

/**
 * Overdue: the last period's traffic-check has not succeeded, and its grace has passed. The
 * period starts at the cron's previous fire time in the network's zone.
 *
 * A network that has never run is overdue once the first run due after a worker scheduled it
 * (`scheduledSince`), plus grace, has passed; and at once when no worker has ever scheduled it,
 * since then nothing monitors it.
 */
export function overdueStatus(
  schedule: CheckSchedule,
  lastSuccess: RunRecord | undefined,
  anyRun: boolean,
  now: number,
  scheduledSince?: number,
): Overdue {
  const { cron, graceMinutes } = schedule.trafficCheck;
  const grace = graceMinutes * 60_000;
  if (!anyRun) {
    if (scheduledSince === undefined) {
      return { overdue: true, reason: 'never run, and no worker has scheduled it yet' };
    }
    const firstDue = fireTime(cron, schedule.timezone, scheduledSince, 'next');
    if (now < firstDue + grace) return { overdue: false, reason: 'never run yet' };
    return {
      overdue: true,
      reason: `never run: first run was due ${new Date(firstDue).toISOString()} (scheduled since ${new Date(scheduledSince).toISOString()})`,
    };
  }
  const previousFire = fireTime(cron, schedule.timezone, now, 'prev');
  if (now < previousFire + grace) return { overdue: false };
  if (lastSuccess && lastSuccess.finishedAt >= previousFire) return { overdue: false };
  const since = lastSuccess
    ? `last success ${new Date(lastSuccess.finishedAt).toISOString()}`
    : 'no successful run yet';
  return {
    overdue: true,
    reason: `no successful traffic-check since ${new Date(previousFire).toISOString()} (${since})`,
  };
}

/**
 * The cron's next or previous fire time from `from`, in the zone, memoised: one `thm status`
 * asks the same question for every network that shares a schedule, and cron-parser answers it
 * slowly (src/cron.ts answers the plain ones in UTC itself).
 */
const fireTimes = new Map<string, number>();

function fireTime(cron: string, tz: string, from: number, direction: 'next' | 'prev'): number {
  const key = `${direction} ${from} ${tz} ${cron}`;
  let at = fireTimes.get(key);
  if (at === undefined) {
    at = cronFireTime(cron, tz, from, direction);
    if (fireTimes.size >= 1_000) fireTimes.clear();
    fireTimes.set(key, at);
  }
  return at;
}
