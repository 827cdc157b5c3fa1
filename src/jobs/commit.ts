import type { NetworkConfig } from '../config/load.js';
import { ThmError } from '../errors.js';
import type { RunDecision } from '../monitor/decide.js';
import type { ClassCounts, IsoDate, RunKind, RunRecord } from '../monitor/types.js';
import { renderNotifications } from '../notify/emails.js';
import type { Notification } from '../notify/types.js';
import type { NetworkState, RunEffect } from '../store/redis-store.js';
import type { Runtime } from './runtime.js';

export interface CheckRequest {
  networkId: string;
  asOf: IsoDate;
  force?: boolean;
}

/** What a check job returns (BullMQ keeps it as the job's return value; `thm run --wait` prints it). */
export interface CheckOutcome {
  networkId: string;
  kind: RunKind;
  asOf: IsoDate;
  /** done: this job did the run; already-done: an earlier run for this date stands. */
  status: 'done' | 'already-done';
  outcome: RunRecord['outcome'];
  counts?: ClassCounts;
  pairsListed?: number;
  /** The e-mails this job decided (none when already done). */
  notifications: Array<{ id: string; kind: Notification['kind']; subject: string }>;
  emailDecided: boolean;
  /** The e-mails of the run that stands for this date, whichever job decided them. */
  notificationIds: string[];
}

/** How many times a commit may lose to another one before the run gives up. */
export const MAX_CONFLICT_RETRIES = 5;

export type Committed =
  | { status: 'done'; run: RunRecord; notifications: Notification[] }
  | { status: 'already-done'; run: RunRecord };

export function loadState(
  rt: Runtime,
  request: CheckRequest,
  kind: RunKind,
  now: number,
): Promise<NetworkState> {
  return rt.store.loadNetworkState(request.networkId, { asOf: request.asOf, kind, now });
}

/** The run that stands for this date: a second run is a no-op unless forced or it failed. */
export function standingRun(state: NetworkState, request: CheckRequest): RunRecord | undefined {
  return state.run && state.run.outcome !== 'failed' && !request.force ? state.run : undefined;
}

/**
 * Decide, render and commit, with optimistic concurrency: the commit names the state revision
 * it decided from, and when another commit came in between, the state is loaded again and the
 * run decided again (or found already done). After MAX_CONFLICT_RETRIES lost commits it gives
 * up: logged, and thrown (a retryable THM_STORE error, so the job is retried later).
 *
 * `first` is a state already loaded (the job loads before it fetches, to skip a run that
 * stands); without it the state is loaded here.
 */
export async function commitWithRetries(
  rt: Runtime,
  network: NetworkConfig,
  request: CheckRequest & { kind: RunKind },
  decide: (state: NetworkState, now: number) => RunDecision,
  options: { first?: NetworkState; force?: boolean } = {},
): Promise<Committed> {
  let state = options.first;
  for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt += 1) {
    state ??= await loadState(rt, request, request.kind, rt.now());
    const standing = standingRun(state, request);
    if (standing) return { status: 'already-done', run: standing };
    const now = rt.now();
    const decision = decide(state, now);
    const notifications = renderNotifications(decision.notifications, {
      network,
      asOf: request.asOf,
      from: rt.config.mail.from,
      now,
    });
    const effect = effectOf(decision, notifications, state.rev, options.force ?? request.force);
    const result = await rt.store.commitRun(effect);
    if (result.committed) return { status: 'done', run: effect.run, notifications };
    if (result.reason === 'exists' && result.run)
      return { status: 'already-done', run: result.run };
    state = undefined;
  }
  const message = `${request.kind} of ${network.id} for ${request.asOf}: the stored state kept changing under it (${MAX_CONFLICT_RETRIES} conflicts), giving up`;
  rt.logger.error(
    {
      network: network.id,
      kind: request.kind,
      asOf: request.asOf,
      conflicts: MAX_CONFLICT_RETRIES,
    },
    message,
  );
  throw new ThmError('THM_STORE', message, { retryable: true });
}

/** The store's one atomic step for a decision: its rendered notifications and their ids. */
function effectOf(
  decision: RunDecision,
  notifications: Notification[],
  expectedRev: number,
  force: boolean | undefined,
): RunEffect {
  const { run, notifications: _decided, ...changes } = decision;
  return {
    ...changes,
    networkId: run.networkId,
    expectedRev,
    force,
    run: { ...run, notificationIds: notifications.map((n) => n.id) },
    notifications,
  };
}

export function checkOutcome(committed: Committed): CheckOutcome {
  const { run, status } = committed;
  const notifications = committed.status === 'done' ? committed.notifications : [];
  return {
    networkId: run.networkId,
    kind: run.kind,
    asOf: run.asOf,
    status,
    outcome: run.outcome,
    counts: run.counts,
    pairsListed: run.pairsListed,
    notifications: notifications.map((n) => ({ id: n.id, kind: n.kind, subject: n.subject })),
    emailDecided: status === 'done' ? notifications.length > 0 : run.notificationIds.length > 0,
    notificationIds: [...run.notificationIds],
  };
}
