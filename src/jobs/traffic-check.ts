import type { TrafficAccess } from '../api/schemas.js';
import type { NetworkConfig } from '../config/load.js';
import { decideTrafficFailure, decideTrafficRun } from '../monitor/decide.js';
import type { IspTrend } from '../monitor/types.js';
import {
  checkOutcome,
  commitWithRetries,
  loadState,
  outboxIds,
  standingRun,
  type CheckOutcome,
  type CheckRequest,
} from './commit.js';
import { StoredStateError } from '../errors.js';
import { EMAIL_CHANNEL } from '../notification-names.js';
import type { ChannelDelivery, Notification } from '../notify/types.js';
import type { NetworkState } from '../store/redis-store.js';
import { describeFailure } from './failures.js';
import { startRunDeadline } from './run-deadline.js';
import { openUnreadableEpisode } from './unreadable-state.js';
import { enqueueOutbox, type Runtime } from './runtime.js';

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
        // commitWithRetries loads the state afresh for every decision (`first` is used once).
        stateOwned: true,
      }),
    { first: state, listing: entries },
  );
  if (committed.status === 'done') await enqueueOutbox(rt, outboxIds(committed.run));
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
    const added = await openUnreadableEpisode(rt, network, request.asOf, decide, recordError);
    if (added) {
      reportDecided(rt, network.id, added.emails, added.deliveries);
      await enqueueOutbox(
        rt,
        [...added.emails, ...added.deliveries].map((item) => item.id),
      );
    }
    return;
  }
  if (committed.status === 'done') {
    reportDecided(rt, network.id, committed.notifications, committed.deliveries);
    await enqueueOutbox(rt, outboxIds(committed.run));
  }
}

function reportDecided(
  rt: Runtime,
  networkId: string,
  emails: readonly Notification[],
  deliveries: readonly ChannelDelivery[],
): void {
  const decided = [
    ...emails.map((n) => ({ kind: n.kind, channel: EMAIL_CHANNEL })),
    ...deliveries.map((d) => ({ kind: d.kind, channel: d.channel.name })),
  ];
  if (decided.length > 0) rt.onFailureDecided?.(networkId, decided);
}
