import type { DecisionState, RunDecision } from '../monitor/decide.js';
import { historyAfter, runsAfter } from '../monitor/history-change.js';
import type { LearnedState } from '../monitor/types.js';
import { keptDropPercent } from '../store/active-codec.js';

/**
 * The state a replayed run leaves for the next, as the worker's store would: its commit writes
 * the history, the listed runs and what is learned of the network (store/network-state.ts,
 * commitRun) and the next run reads them back. They are kept here as objects, as the store
 * would give them back: each value as it was but a pair's drop, which the history keeps in
 * hundredths (the codecs' order, by domain, decides nothing), and what is learned as its JSON
 * gives it back. What the worker keeps but a replay does not need stays empty: silences (a
 * replay applies none), the e-mailed pair events of a date (each date is replayed once),
 * invoices.
 *
 * test/replay/state.test.ts holds this equal to the codecs' round trip, and
 * test/replay/worker.test.ts to what the worker decided from its store: a part of the state the
 * store gains must be carried here too.
 */
export function stateAfter(state: DecisionState, decision: RunDecision): DecisionState {
  const history = decision.history;
  let { active, runs, learned } = state;
  if (history) {
    const kept = historyAfter(history);
    // The objects are the replay's own (the decision was made with stateOwned).
    for (const pair of kept) pair.dropPercent = keptDropPercent(pair.dropPercent);
    active = kept;
    if (history.runs || history.runsStarted) runs = runsAfter(history) ?? [];
    if (history.learned) learned = asStored(history.learned);
  }
  const next: DecisionState = { active, runs, silences: [], sentEvents: new Set() };
  if (learned) next.learned = learned;
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

/** The learned state as the store's JSON field gives it back: a copy the next run may own. */
function asStored(learned: LearnedState): LearnedState {
  return JSON.parse(JSON.stringify(learned)) as LearnedState;
}
