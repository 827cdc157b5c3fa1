import type { IspTrend } from '../api/schemas.js';
import { begunRun } from './runs.js';
import type { ActivePair, AddedPair, HistoryChange, IsoDate, WatchedRun } from './types.js';

/*
 * What begins in a run, as the objects it is given by elsewhere (HistoryChange in types.ts):
 * the history record of a pair new today, and a listed run that begins today. The store's
 * encoders (store/active-codec.ts, store/runs-codec.ts) write the same values without building
 * these; a codec test checks that both agree.
 */

/** The history record of a pair that became active today: alertable, e-mailed, as of today. */
export function addedActivePair(pair: AddedPair): ActivePair {
  return {
    domainId: pair.domainId,
    isp: pair.isp,
    domainUrl: pair.domainUrl,
    firstSeen: pair.firstSeen,
    lastSeen: pair.firstSeen,
    lastNotified: pair.firstSeen,
    notifiedSeverity: pair.severity,
    quietRuns: 0,
    baseline: addedBaseline(pair),
    yesterday: addedYesterday(pair),
    dropPercent: pair.dropPercent,
    quietAsOf: undefined,
  };
}

/** An added pair's last alertable numbers: today's (thresholds.ts, measureEntryInto). */
export function addedBaseline(pair: AddedPair): number {
  return pair.entry.seven_days_ago_total_clicks;
}

export function addedYesterday(pair: AddedPair): number {
  return pair.entry.yesterday_total_clicks;
}

/** A listed run that begins on `asOf` with `entry`, as extendRun begins one (monitor/runs.ts). */
export function startedRun(entry: IspTrend, asOf: IsoDate): WatchedRun {
  return begunRun(entry.network_tracking_domain_id, entry.isp, asOf, {
    yesterday: entry.yesterday_total_clicks,
    d7: entry.seven_days_ago_total_clicks,
    d14: entry.fourteen_days_ago_total_clicks,
  });
}

/** Every pair active after the run, as objects: the history the store keeps. */
export function historyAfter(change: HistoryChange): ActivePair[] {
  const added = change.added ?? [];
  return added.length === 0 ? change.upsert : [...change.upsert, ...added.map(addedActivePair)];
}

/** Every listed run after the run, as objects; undefined when the change has none. */
export function runsAfter(change: HistoryChange): WatchedRun[] | undefined {
  const started = change.runsStarted;
  if (started === undefined || started.entries.length === 0) return change.runs;
  return [...(change.runs ?? []), ...started.entries.map((e) => startedRun(e, started.asOf))];
}
