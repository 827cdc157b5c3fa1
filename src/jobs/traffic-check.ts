import type { TrafficAccess } from '../api/schemas.js';
import type { NetworkConfig } from '../config/load.js';
import { classifyPairs } from '../monitor/classify.js';
import type {
  ClassCounts,
  Classification,
  IsoDate,
  PremiumState,
  ProblemEpisode,
  RunRecord,
} from '../monitor/types.js';
import { buildNotification, pairEvents } from '../notify/notification.js';
import { renderAlertEmail } from '../notify/render/alert.js';
import { renderPremiumEmail } from '../notify/render/premium.js';
import { renderProblemEmail } from '../notify/render/problem.js';
import { renderRestoredEmail } from '../notify/render/restored.js';
import type { Notification } from '../notify/types.js';
import type { NetworkState, RunEffect } from '../store/redis-store.js';
import { describeFailure } from './failures.js';
import { startRunDeadline } from './run-deadline.js';
import { enqueueDeliveries, type Runtime } from './runtime.js';

/**
 * One traffic-check of one network for one as-of date (product.md, "The loop"):
 * access -> (premium) isptrends -> classify -> render -> commit (history, run record and
 * notifications in one atomic step) -> hand the notifications to delivery.
 *
 * A second run for the same (network, as-of date) returns the first result without calling the
 * API, unless forced. Concurrent runs are serialised by the store's optimistic check: the loser
 * re-reads the history and classifies again (or finds the run already done).
 */
export interface CheckOutcome {
  networkId: string;
  kind: 'traffic-check' | 'invoice-snapshot';
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

const MAX_CONFLICT_RETRIES = 5;

export interface CheckRequest {
  networkId: string;
  asOf: IsoDate;
  force?: boolean;
}

export async function runTrafficCheck(rt: Runtime, request: CheckRequest): Promise<CheckOutcome> {
  const network = rt.network(request.networkId);
  const client = rt.apiClient(network);
  const startedAt = rt.now();
  let state = await rt.store.loadNetworkState(network.id, {
    asOf: request.asOf,
    kind: 'traffic-check',
    now: startedAt,
  });
  if (state.run && state.run.outcome !== 'failed' && !request.force) return alreadyDone(state.run);

  const deadline = startRunDeadline(rt.config.api.requestTimeoutMs, 'traffic-check');
  let access: TrafficAccess;
  let entries: Parameters<typeof classifyPairs>[0]['entries'] | undefined;
  try {
    access = await client.getTrafficAccess({ signal: deadline.signal });
    // Fetched once: a commit conflict re-classifies against the new history, not re-fetches.
    entries = access.has_premium
      ? (await client.getIspTrends({ signal: deadline.signal })).entries
      : undefined;
  } finally {
    deadline.clear();
  }

  for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt += 1) {
    const effect = decideTrafficRun(rt, network, request, state, access, entries, startedAt);
    const result = await rt.store.commitRun(effect);
    if (result.committed) {
      await enqueueDeliveries(
        rt.mailQueue,
        effect.notifications.map((n) => n.id),
      );
      return outcomeOf(effect.run, effect.notifications, 'done');
    }
    if (result.reason === 'exists' && result.run) return alreadyDone(result.run);
    state = await rt.store.loadNetworkState(network.id, {
      asOf: request.asOf,
      kind: 'traffic-check',
      now: rt.now(),
    });
    if (state.run && state.run.outcome !== 'failed' && !request.force)
      return alreadyDone(state.run);
  }
  throw new Error(
    `traffic-check of ${network.id} for ${request.asOf}: history kept changing under it (${MAX_CONFLICT_RETRIES} conflicts)`,
  );
}

function decideTrafficRun(
  rt: Runtime,
  network: NetworkConfig,
  request: CheckRequest,
  state: NetworkState,
  access: TrafficAccess,
  entries: Parameters<typeof classifyPairs>[0]['entries'] | undefined,
  startedAt: number,
): RunEffect {
  const now = rt.now();
  const notify = notifier(rt, network, request.asOf, now);
  const notifications: Notification[] = [];

  const premium = nextPremiumState(state.premium, access.has_premium, now);
  if (premium.since === now && (state.premium !== undefined || !access.has_premium)) {
    // A change of state, or the first sight of a network without premium: one e-mail.
    const lost = !access.has_premium;
    notifications.push(
      notify(
        lost ? 'premium-lost' : 'premium-regained',
        renderPremiumEmail({
          network: displayOf(network),
          asOf: request.asOf,
          lost,
          firstSight: state.premium === undefined,
        }),
        [],
      ),
    );
  }

  let problem: ProblemEpisode | null | undefined;
  if (state.problem?.kind === 'traffic-check') {
    problem = null;
    notifications.push(
      notify(
        'restored',
        renderRestoredEmail({
          network: displayOf(network),
          asOf: request.asOf,
          problem: state.problem,
          restoredAt: now,
        }),
        [],
      ),
    );
  }

  const run: RunRecord = {
    networkId: network.id,
    kind: 'traffic-check',
    asOf: request.asOf,
    outcome: entries ? 'ok' : 'premium-inactive',
    startedAt,
    finishedAt: now,
    notificationIds: [],
    runs: (state.run?.runs ?? 0) + 1,
  };
  let history: RunEffect['history'];
  let sentEvents: string[] | undefined;

  if (entries) {
    const classification = withoutSentEvents(
      classifyPairs({
        asOf: request.asOf,
        entries,
        active: state.active,
        settings: network.alerts,
        silences: state.silences,
      }),
      state.sentEvents,
    );
    history = classification.changes;
    run.counts = classification.counts;
    run.pairsListed = entries.length;
    const email = renderAlertEmail({
      network: displayOf(network),
      asOf: request.asOf,
      classification,
      notifyCleared: network.alerts.notifyCleared,
      latestInvoice: state.latestInvoice ? { snapshot: state.latestInvoice } : undefined,
    });
    if (email) {
      sentEvents = pairEvents(classification, network.alerts.notifyCleared);
      notifications.push(notify('alert', email, sentEvents));
    }
  }
  run.notificationIds = notifications.map((n) => n.id);
  return {
    networkId: network.id,
    expectedRev: state.rev,
    run,
    force: request.force,
    history,
    notifications,
    sentEvents,
    premium,
    problem,
  };
}

/**
 * A forced re-run must not e-mail a pair event twice: pairs whose (class, pair) was already
 * e-mailed for this as-of date are shown as ongoing instead.
 */
export function withoutSentEvents(
  classification: Classification,
  sent: ReadonlySet<string>,
): Classification {
  if (sent.size === 0) return classification;
  const counts = { ...classification.counts };
  const pairs = classification.pairs.map((pair) => {
    if (!sent.has(`${pair.class}|${pair.key}`)) return pair;
    counts[pair.class] -= 1;
    counts.ongoing += 1;
    return { ...pair, class: 'ongoing' as const };
  });
  return { ...classification, pairs, counts };
}

export function nextPremiumState(
  previous: PremiumState | undefined,
  hasPremium: boolean,
  now: number,
): PremiumState {
  if (previous && previous.hasPremium === hasPremium)
    return { hasPremium, checkedAt: now, since: previous.since };
  return { hasPremium, checkedAt: now, since: now };
}

/**
 * A final failure of a traffic-check: the run is recorded as failed (no history touched) and,
 * once per episode, a "monitoring problem" e-mail is decided in the same step.
 */
export async function recordTrafficFailure(
  rt: Runtime,
  request: CheckRequest,
  error: unknown,
  startedAt: number,
): Promise<void> {
  const network = rt.network(request.networkId);
  const now = rt.now();
  const failure = describeFailure(error);
  for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt += 1) {
    const state = await rt.store.loadNetworkState(network.id, {
      asOf: request.asOf,
      kind: 'traffic-check',
      now,
    });
    if (state.run && state.run.outcome !== 'failed' && !request.force) return;
    const notifications: Notification[] = [];
    let problem: ProblemEpisode | undefined;
    if (!state.problem) {
      problem = {
        kind: 'traffic-check',
        openedAt: now,
        code: failure.code,
        message: failure.message,
      };
      notifications.push(
        notifier(
          rt,
          network,
          request.asOf,
          now,
        )(
          'problem',
          renderProblemEmail({ network: displayOf(network), asOf: request.asOf, problem }),
          [failure.code],
        ),
      );
    }
    const run: RunRecord = {
      networkId: network.id,
      kind: 'traffic-check',
      asOf: request.asOf,
      outcome: 'failed',
      startedAt,
      finishedAt: now,
      notificationIds: notifications.map((n) => n.id),
      error: failure,
      runs: (state.run?.runs ?? 0) + 1,
    };
    const result = await rt.store.commitRun({
      networkId: network.id,
      expectedRev: state.rev,
      run,
      force: true,
      notifications,
      problem,
    });
    if (result.committed) {
      await enqueueDeliveries(rt.mailQueue, run.notificationIds);
      return;
    }
  }
}

export function displayOf(network: NetworkConfig): { id: string; name: string } {
  return { id: network.id, name: network.name };
}

export function notifier(rt: Runtime, network: NetworkConfig, asOf: IsoDate, now: number) {
  return (
    kind: Notification['kind'],
    email: { subject: string; text: string; html: string },
    events: string[],
  ): Notification =>
    buildNotification({
      networkId: network.id,
      kind,
      asOf,
      to: network.recipients,
      email,
      events,
      from: rt.config.mail.from,
      now,
    });
}

export function alreadyDone(run: RunRecord): CheckOutcome {
  return outcomeOf(run, [], 'already-done');
}

function outcomeOf(
  run: RunRecord,
  notifications: Notification[],
  status: CheckOutcome['status'],
): CheckOutcome {
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
