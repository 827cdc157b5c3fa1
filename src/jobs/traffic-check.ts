import type { TrafficAccess } from '../api/schemas.js';
import type { NetworkConfig } from '../config/load.js';
import { decideTrafficFailure, decideTrafficRun } from '../monitor/decide.js';
import type { IspTrend } from '../monitor/types.js';
import {
  checkOutcome,
  commitWithRetries,
  loadState,
  standingRun,
  type CheckOutcome,
  type CheckRequest,
} from './commit.js';
import { StoredStateError } from '../errors.js';
import type { RunDecision } from '../monitor/decide.js';
import { renderNotifications } from '../notify/emails.js';
import type { NetworkState } from '../store/redis-store.js';
import { describeFailure } from './failures.js';
import { startRunDeadline } from './run-deadline.js';
import { enqueueDeliveries, type Runtime } from './runtime.js';

export type { CheckOutcome, CheckRequest } from './commit.js';

/**
 * One traffic-check of one network for one as-of date (docs/design.md, "The lifecycle of a
 * run"): load -> fetch (access, then isptrends with premium) -> decide -> render -> commit
 * (history, run record and notifications in one atomic step) -> enqueue the deliveries.
 *
 * A second run for the same (network, as-of date) returns the first result without calling the
 * API, unless forced. A commit that loses to a concurrent one decides again from the new state
 * (commitWithRetries); the API is not called again.
 */
export async function runTrafficCheck(rt: Runtime, request: CheckRequest): Promise<CheckOutcome> {
  const network = rt.network(request.networkId);
  const startedAt = rt.now();
  const state = await loadState(rt, request, 'traffic-check', startedAt);
  const standing = standingRun(state, request);
  if (standing) return checkOutcome({ status: 'already-done', run: standing });

  const { access, entries } = await fetchTraffic(rt, network);

  const committed = await commitWithRetries(
    rt,
    network,
    { ...request, kind: 'traffic-check' },
    (current, now) =>
      decideTrafficRun({
        networkId: network.id,
        asOf: request.asOf,
        state: current,
        settings: network.alerts,
        hasPremium: access.has_premium,
        entries,
        startedAt,
        now,
      }),
    { first: state },
  );
  if (committed.status === 'done')
    await enqueueDeliveries(rt.mailQueue, committed.run.notificationIds);
  return checkOutcome(committed);
}

/**
 * The fetch step: the access object, then (with premium) the ISP trends, under one deadline.
 * Fetched once: a commit conflict decides again from the new state, it does not fetch again.
 */
async function fetchTraffic(
  rt: Runtime,
  network: NetworkConfig,
): Promise<{ access: TrafficAccess; entries?: IspTrend[] }> {
  const client = rt.apiClient(network);
  const deadline = startRunDeadline(rt.config.api.requestTimeoutMs, 'traffic-check');
  try {
    const access = await client.getTrafficAccess({ signal: deadline.signal });
    if (!access.has_premium) return { access };
    return { access, entries: (await client.getIspTrends({ signal: deadline.signal })).entries };
  } finally {
    deadline.clear();
  }
}

/**
 * A final failure of a traffic-check: the run is recorded as failed (no history touched) and,
 * once per episode, a "monitoring problem" e-mail is decided in the same step. A run that
 * succeeded meanwhile for this date stands (unless the failed job was forced).
 */
export async function recordTrafficFailure(
  rt: Runtime,
  request: CheckRequest,
  error: unknown,
  startedAt: number,
): Promise<void> {
  const network = rt.network(request.networkId);
  const failure = describeFailure(error);
  const decide = (state: NetworkState, now: number) =>
    decideTrafficFailure({
      networkId: network.id,
      asOf: request.asOf,
      state,
      failure,
      startedAt,
      now,
    });
  let committed;
  try {
    committed = await commitWithRetries(
      rt,
      network,
      { ...request, kind: 'traffic-check' },
      decide,
      {
        force: true,
      },
    );
  } catch (recordError) {
    if (!(recordError instanceof StoredStateError)) throw recordError;
    await problemWithoutRecord(rt, network, request, decide(emptyState(), rt.now()));
    return;
  }
  if (committed.status === 'done') {
    if (committed.notifications.length > 0)
      rt.onFailureDecided?.(
        network.id,
        committed.notifications.map((n) => n.kind),
      );
    await enqueueDeliveries(rt.mailQueue, committed.run.notificationIds);
  }
}

/**
 * The network's own state cannot be read (or written): no run record, no problem episode can
 * be stored, but its recipients still hear of it. The problem e-mail goes into the outbox on
 * its own; its id is that of the as-of date's problem, so retries add it once (one a day while
 * the state stays broken).
 */
async function problemWithoutRecord(
  rt: Runtime,
  network: NetworkConfig,
  request: CheckRequest,
  decision: RunDecision,
): Promise<void> {
  const notifications = renderNotifications(decision.notifications, {
    network,
    asOf: request.asOf,
    from: rt.config.mail.from,
    now: rt.now(),
  });
  await rt.store.addToOutbox(notifications);
  if (notifications.length > 0)
    rt.onFailureDecided?.(
      network.id,
      notifications.map((n) => n.kind),
    );
  await enqueueDeliveries(
    rt.mailQueue,
    notifications.map((n) => n.id),
  );
  rt.logger.error(
    { network: network.id, asOf: request.asOf, emails: notifications.length },
    'stored state unreadable: problem e-mail queued without a run record',
  );
}

function emptyState(): NetworkState {
  return { rev: 0, active: new Map(), runs: new Map(), silences: [], sentEvents: new Set() };
}
