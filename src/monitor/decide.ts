/**
 * The decide step: what one run means, as data. Pure (no clock, no I/O, nothing rendered): the
 * job hands in the state it loaded, what it fetched and the time, and gets back the history
 * change, the run record and the notifications to send. Rendering turns those notifications
 * into e-mails (src/notify/emails.ts); the store commits the lot in one atomic step. The rules
 * are described in docs/design.md ("The lifecycle of a run").
 */

import type { AlertSettings } from './alert-settings.js';
import type { ThmErrorCode } from '../errors.js';
import { classifyPairs, isEmailedClass } from './classify.js';
import { dropEvent, EMAILED_DROP_CLASSES } from './common-drops.js';
import { invoiceChange } from './invoice.js';
import { pairEvent } from './pair-key.js';
import type {
  ActivePair,
  Classification,
  HistoryChange,
  InvoiceChange,
  InvoiceSnapshot,
  IsoDate,
  IspTrend,
  LearnedState,
  PremiumState,
  ProblemEpisode,
  RunKind,
  RunRecord,
  Silence,
  WatchedRun,
} from './types.js';

/** What a decision reads of a network's stored state (the store's NetworkState has all of it). */
export interface DecisionState {
  /** The history before the run, each pair once. */
  active: readonly ActivePair[];
  /** The listed runs before the run, each pair's once (monitor/runs.ts); absent: none. */
  runs?: readonly WatchedRun[];
  /** The network's silences unexpired at run time. */
  silences: readonly Silence[];
  premium?: PremiumState;
  problem?: ProblemEpisode;
  /** The existing record for (kind, asOf), when there is one. */
  run?: RunRecord;
  /** Pair events already e-mailed for the as-of date (`pairEvent`, `dropEvent`). */
  sentEvents: ReadonlySet<string>;
  latestInvoice?: InvoiceSnapshot;
  /** What was learned of the network before the run (monitor/variation.ts); absent: nothing. */
  learned?: LearnedState;
}

/**
 * One e-mail the run decided to send, before it is rendered. `events` are its identity with
 * the network, as-of date and kind (see notificationId in src/notify/notification.ts).
 */
export type DecidedNotification =
  | { kind: 'premium-lost' | 'premium-regained'; events: string[]; firstSight: boolean }
  | { kind: 'restored'; events: string[]; problem: ProblemEpisode; restoredAt: number }
  | {
      kind: 'alert';
      events: string[];
      classification: Classification;
      latestInvoice?: InvoiceSnapshot;
    }
  | { kind: 'problem'; events: string[]; problem: ProblemEpisode }
  | { kind: 'invoice'; events: string[]; snapshot: InvoiceSnapshot; change?: InvoiceChange };

/**
 * What the run means. Everything but `notifications` goes to the store as is; the run record's
 * notification ids are those of the rendered notifications, added when they exist.
 */
export interface RunDecision {
  run: Omit<RunRecord, 'notificationIds'>;
  /** The history after the run (every pair still active, and the keys that left); absent: untouched. */
  history?: HistoryChange;
  /** Pair events e-mailed by this run. */
  sentEvents?: string[];
  premium?: PremiumState;
  /** null: close the open problem episode; undefined: leave it as it is. */
  problem?: ProblemEpisode | null;
  invoiceSnapshot?: { snapshot: InvoiceSnapshot; keep: number };
  /** In the order they are sent. */
  notifications: DecidedNotification[];
}

interface RunBase {
  networkId: string;
  asOf: IsoDate;
  state: DecisionState;
  /** Epoch milliseconds the run started (before the fetch) and the time of the decision. */
  startedAt: number;
  now: number;
}

export interface TrafficRunInput extends RunBase {
  settings: AlertSettings;
  /** The access object's has_premium. */
  hasPremium: boolean;
  /** Today's ISP trends; absent without premium (isptrends is not called then). */
  entries?: readonly IspTrend[];
  /**
   * The state was loaded for this decision alone and nothing reads it after: classification may
   * update its history in place (`ClassifyInput.inPlace`). A run passes true; a caller that
   * decides twice from one state must not.
   */
  stateOwned?: boolean;
}

/**
 * A successful traffic-check: premium change (one e-mail on a change, or on the first sight of
 * a network without premium), the end of an open problem episode ("restored"), the lifecycle
 * of every pair, and one alert e-mail carrying the pair events not e-mailed before.
 */
export function decideTrafficRun(input: TrafficRunInput): RunDecision {
  const { state, now, hasPremium, entries } = input;
  const notifications: DecidedNotification[] = [];

  const premium = nextPremiumState(state.premium, hasPremium, now);
  const premiumChanged = state.premium === undefined || state.premium.hasPremium !== hasPremium;
  if (premiumChanged && (state.premium !== undefined || !hasPremium)) {
    notifications.push({
      kind: hasPremium ? 'premium-regained' : 'premium-lost',
      events: [],
      firstSight: state.premium === undefined,
    });
  }

  let problem: ProblemEpisode | null | undefined;
  if (state.problem?.kind === 'traffic-check') {
    problem = null;
    notifications.push({ kind: 'restored', events: [], problem: state.problem, restoredAt: now });
  }

  const decision: RunDecision = {
    run: runRecord(input, 'traffic-check', entries ? 'ok' : 'premium-inactive'),
    premium,
    problem,
    notifications,
  };
  if (entries) {
    const classification = withoutSentEvents(
      classifyPairs({
        asOf: input.asOf,
        entries,
        active: state.active,
        runs: state.runs,
        settings: input.settings,
        silences: state.silences,
        learned: state.learned,
        listOngoing: false,
        inPlace: input.stateOwned === true,
      }),
      state.sentEvents,
    );
    decision.history = classification.changes;
    decision.run.counts = classification.counts;
    decision.run.pairsListed = entries.length;
    const drops = classification.drops ?? [];
    if (drops.length > 0) {
      decision.run.drops = drops.map((d) => ({
        scope: d.scope,
        domainId: d.domainId,
        class: d.class,
        dropPercent: Math.round(d.dropPercent),
      }));
    }
    const events = pairEvents(classification, input.settings);
    if (events.length > 0) {
      decision.sentEvents = events;
      notifications.push({
        kind: 'alert',
        events,
        classification,
        latestInvoice: state.latestInvoice,
      });
    }
  }
  return decision;
}

/**
 * A traffic-check that failed for good: a failed run record (the history is not touched) and,
 * when no problem episode is open, one that opens with a "monitoring problem" e-mail.
 */
export function decideTrafficFailure(
  input: RunBase & { failure: { code: ThmErrorCode; message: string } },
): RunDecision {
  const { failure, now } = input;
  const decision: RunDecision = {
    run: { ...runRecord(input, 'traffic-check', 'failed'), error: failure },
    notifications: [],
  };
  if (!input.state.problem) {
    const problem: ProblemEpisode = {
      kind: 'traffic-check',
      openedAt: now,
      code: failure.code,
      message: failure.message,
    };
    decision.problem = problem;
    decision.notifications.push({ kind: 'problem', events: [failure.code], problem });
  }
  return decision;
}

export interface InvoiceRunInput extends RunBase {
  snapshot: InvoiceSnapshot;
  invoices: { notify: boolean; keep: number };
}

/** An invoice snapshot: stored with its change since the previous one, e-mailed when asked. */
export function decideInvoiceSnapshot(input: InvoiceRunInput): RunDecision {
  const { snapshot, state } = input;
  const previous =
    state.latestInvoice?.status === snapshot.status ? state.latestInvoice : undefined;
  const decision: RunDecision = {
    run: runRecord(input, 'invoice-snapshot', 'ok'),
    invoiceSnapshot: { snapshot, keep: input.invoices.keep },
    notifications: [],
  };
  if (input.invoices.notify) {
    decision.notifications.push({
      kind: 'invoice',
      events: [`invoice|${snapshot.time}`],
      snapshot,
      change: invoiceChange(previous, snapshot),
    });
  }
  return decision;
}

function runRecord(
  input: RunBase,
  kind: RunKind,
  outcome: RunRecord['outcome'],
): RunDecision['run'] {
  return {
    networkId: input.networkId,
    kind,
    asOf: input.asOf,
    outcome,
    startedAt: input.startedAt,
    finishedAt: input.now,
    runs: (input.state.run?.runs ?? 0) + 1,
  };
}

/**
 * The pair events an alert carries: `pairEvent` of every pair of an e-mailed class, and
 * `dropEvent` of every common drop of one (monitor/common-drops.ts).
 */
export function pairEvents(
  classification: Classification,
  settings: Pick<AlertSettings, 'notifyCleared'>,
): string[] {
  const pairs = classification.pairs;
  // Indexed, not for...of: no iterator garbage over 50,000 pairs; counted first, so that the
  // list is allocated once at its size instead of growing.
  let count = 0;
  for (let i = 0; i < pairs.length; i++) if (isEmailedClass(pairs[i]!.class, settings)) count++;
  const events = new Array<string>(count);
  let at = 0;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    if (isEmailedClass(pair.class, settings))
      events[at++] = pairEvent(pair.class, pair.domainId, pair.isp);
  }
  // A handful at most: one per domain down together, and the network's.
  for (const drop of classification.drops ?? []) {
    if (EMAILED_DROP_CLASSES.includes(drop.class)) {
      events.push(dropEvent(drop.class, drop.scope, drop.domainId));
    }
  }
  return events;
}

/**
 * A forced re-run must not e-mail a pair event twice: pairs (and common drops) whose event was
 * already e-mailed for this as-of date are shown as ongoing instead.
 */
export function withoutSentEvents(
  classification: Classification,
  sent: ReadonlySet<string>,
): Classification {
  if (sent.size === 0) return classification;
  const counts = { ...classification.counts };
  const pairs = classification.pairs.map((pair) => {
    if (!sent.has(pairEvent(pair.class, pair.domainId, pair.isp))) return pair;
    counts[pair.class] -= 1;
    counts.ongoing += 1;
    return { ...pair, class: 'ongoing' as const };
  });
  const drops = classification.drops?.map((drop) =>
    sent.has(dropEvent(drop.class, drop.scope, drop.domainId))
      ? { ...drop, class: 'ongoing' as const }
      : drop,
  );
  return drops === undefined
    ? { ...classification, pairs, counts }
    : { ...classification, pairs, counts, drops };
}

/** The premium state after a check: `since` holds while the state does. */
export function nextPremiumState(
  previous: PremiumState | undefined,
  hasPremium: boolean,
  now: number,
): PremiumState {
  if (previous && previous.hasPremium === hasPremium)
    return { hasPremium, checkedAt: now, since: previous.since };
  return { hasPremium, checkedAt: now, since: now };
}
