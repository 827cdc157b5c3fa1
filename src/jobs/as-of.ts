import type { NetworkConfig } from '../config/load.js';
import { localDate, type IsoDate } from '../dates.js';
import type { RunKind } from '../monitor/types.js';
import type { RedisStore } from '../store/redis-store.js';
import { UsageError } from '../errors.js';

/**
 * Which as-of dates a run may take. The API has no date parameter: a run always reads today's
 * data, and `--date` only labels it. A date after today in the network's zone describes data
 * that does not exist yet, and a run labelled with it spends that day's run: the real run of that
 * day then finds it "already done" and its data is never checked. One in the past, between
 * recorded runs, rewrites history with today's data. Allowed: up to today in the network's zone,
 * any date not older than the newest recorded run, and any date that already has a run record
 * (a re-run, e.g. with --force) unless it is in the future.
 */
export interface AsOfFacts {
  requested: IsoDate;
  /** Today in the network's time zone. */
  today: IsoDate;
  /** The as-of date of the newest recorded run of this kind, if any. */
  newest?: IsoDate;
  /** A run of this kind is recorded for the requested date. */
  exists: boolean;
}

/** Why the date is refused, or undefined when it is allowed. */
export function asOfProblem(facts: AsOfFacts): string | undefined {
  const { requested, today, newest, exists } = facts;
  const future = futureAsOfProblem(requested, today);
  if (future) return future;
  if (newest !== undefined && requested < newest && !exists) {
    return `is older than the newest recorded run (${newest}) and has no run of its own; the API serves only today's data, so it would rewrite history (re-running a date that already ran is allowed)`;
  }
  return undefined;
}

/**
 * Why an as-of date after today (in the network's zone) is refused; the worker asks it of every
 * job that carries a date, whoever enqueued it.
 */
export function futureAsOfProblem(requested: IsoDate, today: IsoDate): string | undefined {
  if (requested <= today) return undefined;
  return `is after today (${today} in the network's time zone): the API serves only today's data, and a run labelled ${requested} would take the place of that day's real run`;
}

/**
 * Checks `--date` for each network against the store, before anything is enqueued; the first
 * refusal (in the networks' order) is a UsageError (exit 2) naming the network and the reason.
 * Reads only which dates have a run record (RedisStore.runDates), for all networks at once.
 */
export async function checkRequestedAsOf(
  store: Pick<RedisStore, 'runDates'>,
  kind: RunKind,
  networks: readonly NetworkConfig[],
  requested: IsoDate,
  now = Date.now(),
): Promise<void> {
  const dates = await Promise.all(networks.map((network) => store.runDates(network.id, kind)));
  networks.forEach((network, i) => {
    const recorded = dates[i]!;
    const problem = asOfProblem({
      requested,
      today: localDate(now, network.timezone),
      newest: recorded[0],
      exists: recorded.includes(requested),
    });
    if (problem) throw new UsageError(`--date ${requested} for network ${network.id}: ${problem}`);
  });
}
