import type { DecisionState, RunDecision } from '../monitor/decide.js';
import { decodeActive, encodeActive } from '../store/active-codec.js';
import { decodeRuns, encodeRuns } from '../store/runs-codec.js';

/**
 * The state a replayed run leaves for the next, as the worker's store would: its commit writes
 * the history and the listed runs through the store's codecs and the next run reads them back
 * (store/redis-store.ts, commitRun and loadNetworkState), so they pass through the same codecs
 * here (a drop is kept in hundredths, pairs come back grouped by domain). What the worker keeps
 * but a replay does not need stays empty: silences (a replay applies none), the e-mailed pair
 * events of a date (each date is replayed once), invoices.
 *
 * The worker-equality test (test/replay/worker.test.ts) holds this equal to the store's own
 * round trip: a part of the state the store gains must be carried here too.
 */
export function stateAfter(state: DecisionState, decision: RunDecision): DecisionState {
  const history = decision.history;
  let { active, runs } = state;
  if (history) {
    active = decodeActive(encodeActive(history.upsert, history.added));
    if (history.runs || history.runsStarted)
      runs = decodeRuns(encodeRuns(history.runs ?? [], history.runsStarted));
  }
  const next: DecisionState = { active, runs, silences: [], sentEvents: new Set() };
  const premium = decision.premium ?? state.premium;
  if (premium) next.premium = premium;
  const problem = decision.problem === null ? undefined : (decision.problem ?? state.problem);
  if (problem) next.problem = problem;
  return next;
}

/** The state before the first replayed run: nothing known. */
export function emptyState(): DecisionState {
  return { active: [], runs: [], silences: [], sentEvents: new Set() };
}
