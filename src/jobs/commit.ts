import type { NetworkConfig } from '../config/load.js';
import { ThmError } from '../errors.js';
import type { RunDecision } from '../monitor/decide.js';
import type {
  ClassCounts,
  IsoDate,
  IspTrend,
  RunDrop,
  RunKind,
  RunRecord,
} from '../monitor/types.js';
import { renderRun, type RenderedRun } from '../notify/render-run.js';
import type { ChannelDelivery, Notification } from '../notify/types.js';
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
  /** Its common drops, as the run's record keeps them; absent: none. */
  drops?: RunDrop[];
  /** The e-mails this job decided (none when already done). */
  notifications: Array<{ id: string; kind: Notification['kind']; subject: string }>;
  emailDecided: boolean;
  /** The e-mails of the run that stands for this date, whichever job decided them. */
  notificationIds: string[];
  /** The channel deliveries this job decided (none when already done). */
  deliveries: Array<{ id: string; kind: Notification['kind']; channel: string }>;
  /** The channel deliveries of the run that stands for this date. */
  deliveryIds: string[];
}

/** How many times a commit may lose to another one before the run gives up. */
export const MAX_CONFLICT_RETRIES = 5;

export type Committed =
  | {
      status: 'done';
      run: RunRecord;
      /** The e-mails put into the outbox. */
      notifications: Notification[];
      deliveries: ChannelDelivery[];
    }
  | { status: 'already-done'; run: RunRecord };

/** Every outbox id a committed run handed to delivery: its e-mails and channel deliveries. */
export function outboxIds(run: RunRecord): string[] {
  return [...run.notificationIds, ...(run.deliveryIds ?? [])];
}

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
 * How long a commit keeps trying through a Redis failover (the store refusing or losing the
 * connection with a retryable THM_STORE error) before the attempt fails: longer than a
 * Sentinel or Cluster failover takes (docs/operations.md), shorter than a job's lock.
 */
export const FAILOVER_RETRY_MS = 30_000;
const FAILOVER_PAUSE_MS = 500;

/**
 * Decide, render and commit, with optimistic concurrency: the commit names the state revision
 * it decided from, and when another commit came in between, the state is loaded again and the
 * run decided again (or found already done). After MAX_CONFLICT_RETRIES lost commits it gives
 * up: logged, and thrown (a retryable THM_STORE error, so the job is retried later).
 *
 * A Redis failover (a retryable store error: connection lost, READONLY, a write no replica
 * confirmed) is waited through for up to FAILOVER_RETRY_MS: the state is loaded again, from
 * the new master, and the run decided again, without calling the API again. If the commit in
 * doubt did reach the new master (or stayed on a master whose replica was slow), the loaded
 * state holds this very run record: the run is done once replicas confirm it.
 *
 * `first` is a state already loaded (the job loads before it fetches, to skip a run that
 * stands); without it the state is loaded here.
 */
export async function commitWithRetries(
  rt: Runtime,
  network: NetworkConfig,
  request: CheckRequest & { kind: RunKind },
  decide: (state: NetworkState, now: number) => RunDecision,
  options: {
    first?: NetworkState;
    force?: boolean;
    /** The entries the run fetched: stored with it for `thm replay` (RunEffect.listing). */
    listing?: readonly IspTrend[];
  } = {},
): Promise<Committed> {
  let state = options.first;
  let conflicts = 0;
  let failoverSince: number | undefined;
  let inDoubt: Extract<Committed, { status: 'done' }> | undefined;
  while (conflicts < MAX_CONFLICT_RETRIES) {
    try {
      state ??= await loadState(rt, request, request.kind, rt.now());
      if (inDoubt && state.run && sameRun(state.run, inDoubt.run)) {
        await rt.store.confirmNetworkWrites(request.networkId);
        return inDoubt;
      }
      inDoubt = undefined;
      const standing = standingRun(state, request);
      if (standing) return { status: 'already-done', run: standing };
      const now = rt.now();
      const decision = decide(state, now);
      const rendered = renderRun(decision.notifications, {
        network,
        asOf: request.asOf,
        from: rt.config.mail.from,
        now,
      });
      const effect = effectOf(decision, rendered, state.rev, options.force ?? request.force);
      if (options.listing) {
        effect.listing = listingOf(options.listing, decision, rendered, rt.config.history);
      }
      inDoubt = {
        status: 'done',
        run: effect.run,
        notifications: rendered.emails,
        deliveries: rendered.deliveries,
      };
      const result = await rt.store.commitRun(effect);
      if (result.committed) return inDoubt;
      inDoubt = undefined;
      if (result.reason === 'exists' && result.run)
        return { status: 'already-done', run: result.run };
      conflicts += 1;
    } catch (error) {
      if (!isFailover(error)) throw error;
      failoverSince ??= Date.now();
      if (Date.now() - failoverSince >= FAILOVER_RETRY_MS) throw error;
      rt.logger.warn(
        { network: network.id, kind: request.kind, asOf: request.asOf },
        `${request.kind} of ${network.id}: ${error.message}; loading the state again and retrying the commit`,
      );
      await new Promise((resolve) => setTimeout(resolve, FAILOVER_PAUSE_MS));
    }
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

/** A store error a failover explains (retryable THM_STORE), as opposed to a broken state. */
function isFailover(error: unknown): error is ThmError {
  return error instanceof ThmError && error.code === 'THM_STORE' && error.retryable;
}

/** The record this job committed, found again after a failover (its times make it unique). */
function sameRun(stored: RunRecord, ours: RunRecord): boolean {
  return (
    stored.startedAt === ours.startedAt &&
    stored.finishedAt === ours.finishedAt &&
    stored.outcome === ours.outcome &&
    stored.runs === ours.runs &&
    stored.notificationIds.join() === ours.notificationIds.join()
  );
}

/**
 * The store's one atomic step for a decision: its e-mails and channel deliveries, and their ids
 * in the run record.
 */
function effectOf(
  decision: RunDecision,
  rendered: RenderedRun,
  expectedRev: number,
  force: boolean | undefined,
): RunEffect {
  const { run, notifications: _decided, ...changes } = decision;
  const { emails, deliveries } = rendered;
  return {
    ...changes,
    networkId: run.networkId,
    expectedRev,
    force,
    run: {
      ...run,
      notificationIds: emails.map((n) => n.id),
      ...(deliveries.length > 0 ? { deliveryIds: deliveries.map((d) => d.id) } : {}),
    },
    notifications: emails,
    deliveries,
  };
}

const DAY_MS = 86_400_000;

/**
 * What the store keeps of a run's day for `thm replay`: the entries as fetched, the alert the
 * run decided (on any channel), its class counts; kept `keepListingsDays` from when the run
 * finished (the clock, as the run records' retention: an as-of date may be chosen by hand).
 */
function listingOf(
  entries: readonly IspTrend[],
  decision: RunDecision,
  rendered: RenderedRun,
  history: { keepListingsDays: number },
): RunEffect['listing'] {
  if (history.keepListingsDays === 0) return undefined;
  const alert = rendered.notifications.find((n) => n.kind === 'alert');
  return {
    record: {
      entries,
      sent: alert ? { subject: alert.subject } : null,
      counts: decision.run.counts,
    },
    expiresAt: decision.run.finishedAt + history.keepListingsDays * DAY_MS,
  };
}

export function checkOutcome(committed: Committed): CheckOutcome {
  const { run, status } = committed;
  const notifications = committed.status === 'done' ? committed.notifications : [];
  const deliveries = committed.status === 'done' ? committed.deliveries : [];
  return {
    networkId: run.networkId,
    kind: run.kind,
    asOf: run.asOf,
    status,
    outcome: run.outcome,
    counts: run.counts,
    pairsListed: run.pairsListed,
    ...(run.drops ? { drops: run.drops } : {}),
    notifications: notifications.map((n) => ({ id: n.id, kind: n.kind, subject: n.subject })),
    emailDecided: status === 'done' ? notifications.length > 0 : run.notificationIds.length > 0,
    notificationIds: [...run.notificationIds],
    deliveries: deliveries.map((d) => ({ id: d.id, kind: d.kind, channel: d.channel.name })),
    deliveryIds: [...(run.deliveryIds ?? [])],
  };
}
