import type { AlertSettings } from '../monitor/alert-settings.js';
import { dayNumber } from '../dates.js';
import { decideTrafficRun, type DecisionState } from '../monitor/decide.js';
import { emptyClassCounts, isEmailedClass } from '../monitor/classify.js';
import { EMAILED_DROP_CLASSES } from '../monitor/common-drops.js';
import type {
  ClassCounts,
  ClassifiedDrop,
  ClassifiedPair,
  DropClass,
  DropScope,
  IsoDate,
  IspTrend,
  PairClass,
  Severity,
} from '../monitor/types.js';
import { renderAlertSubject } from '../notify/render/alert.js';
import type { SentAlert } from '../store/listing-codec.js';
import { emptyState, stateAfter } from './state.js';

/*
 * `thm replay` (docs/replay.md): the monitor's decision, run again over the listings it saw
 * (or a file of them), day by day from an empty state, with the configured alert settings or
 * others. The same entry point as the worker's traffic-check (decideTrafficRun, with the state
 * carried from run to run as the store carries it: state.ts), and the alert's subject from the
 * alert renderer itself. Pure: no clock, no I/O; nothing is written or sent.
 */

export interface ReplayNetwork {
  id: string;
  name: string;
}

/** One set of alert settings to replay with, and what the output calls it. */
export interface ReplayVariant {
  label: string;
  alerts: AlertSettings;
}

/** One as-of date to replay: its listing, and what the monitor sent that day when known. */
export interface ReplaySource {
  asOf: IsoDate;
  /** The day's entries, made when the day is replayed: one day's are held at a time. */
  entries(): readonly IspTrend[];
  /** The alert the monitor decided that day (null: none); absent: not known (a file). */
  sent?: SentAlert | null;
  /** The class counts of the monitor's run that day, when known. */
  sentCounts?: ClassCounts;
}

export interface ReplayedPair {
  class: PairClass;
  domainId: number;
  domainUrl: string;
  isp: string;
  severity: Severity;
  dropPercent: number;
  significance: number;
  /** Alertable as a steady decline, by its days in the list together (monitor/runs.ts). */
  steady?: true;
}

/** A common drop the e-mail heads with: a domain's ISPs, or the network's domains, down together. */
export interface ReplayedDrop {
  class: DropClass;
  scope: DropScope;
  /** 0 for the network's. */
  domainId: number;
  domainUrl: string;
  dropPercent: number;
  significance: number;
}

/** The alert a replayed run would have sent. */
export interface ReplayedEmail {
  subject: string;
  /** Its pairs, of the e-mailed classes, by class. */
  pairs: ReplayedPair[];
  /** Its common drops (monitor/common-drops.ts), of the e-mailed classes, network first. */
  drops: ReplayedDrop[];
}

/** One replayed run of one variant. */
export interface ReplayedRun {
  /** The run's class counts (ongoing and silenced pairs are counted, never listed). */
  counts: ClassCounts;
  email: ReplayedEmail | null;
}

export interface ReplayedDay {
  asOf: IsoDate;
  /** Entries in the day's listing. */
  listed: number;
  /** Each variant's run, in the order of the variants. */
  runs: ReplayedRun[];
  sent?: SentAlert | null;
  sentCounts?: ClassCounts;
}

/**
 * The e-mailed classes (monitor/types.ts, EMAILED_CLASSES), in the order a replay lists and
 * sums them.
 */
export const SUMMED_CLASSES = ['new', 'worse', 'reminder', 'cleared'] as const;
export type EmailedClass = (typeof SUMMED_CLASSES)[number];
export type EmailedCounts = Record<EmailedClass, number>;

export interface ReplaySummary {
  /** Alerts over the days. */
  emails: number;
  /** Pairs per e-mailed class, summed over the days' runs. */
  pairs: EmailedCounts;
}

/** The days, each replayed once through every variant, in the order of `sources`. */
export function* replayDays(
  network: ReplayNetwork,
  variants: readonly ReplayVariant[],
  sources: Iterable<ReplaySource>,
): Generator<ReplayedDay> {
  const states: DecisionState[] = variants.map(() => emptyState());
  for (const source of sources) {
    const entries = source.entries();
    const runs = variants.map((variant, v) => {
      const { run, state } = replayRun(network, variant.alerts, source.asOf, entries, states[v]!);
      states[v] = state;
      return run;
    });
    const day: ReplayedDay = { asOf: source.asOf, listed: entries.length, runs };
    if (source.sent !== undefined) day.sent = source.sent;
    if (source.sentCounts) day.sentCounts = source.sentCounts;
    yield day;
  }
}

/** One run: the decision as the worker makes it, and the state it leaves. */
function replayRun(
  network: ReplayNetwork,
  alerts: AlertSettings,
  asOf: IsoDate,
  entries: readonly IspTrend[],
  state: DecisionState,
): { run: ReplayedRun; state: DecisionState } {
  // The run's times only stamp its record and premium state, which nothing here reads.
  const at = dayNumber(asOf) * 86_400_000;
  const decision = decideTrafficRun({
    networkId: network.id,
    asOf,
    state,
    settings: alerts,
    hasPremium: true,
    entries,
    startedAt: at,
    now: at,
    stateOwned: true,
  });
  const alert = decision.notifications.find((n) => n.kind === 'alert');
  let email: ReplayedEmail | null = null;
  if (alert?.kind === 'alert') {
    const subject = renderAlertSubject({
      network,
      asOf,
      classification: alert.classification,
      notifyCleared: alerts.notifyCleared,
    });
    if (subject !== undefined) {
      email = {
        subject,
        pairs: emailedPairs(alert.classification.pairs, alerts),
        drops: emailedDrops(alert.classification.drops ?? []),
      };
    }
  }
  const counts = decision.run.counts ?? emptyClassCounts();
  return { run: { counts, email }, state: stateAfter(state, decision) };
}

const CLASS_ORDER = new Map<PairClass, number>(SUMMED_CLASSES.map((c, i) => [c, i]));

function emailedPairs(
  pairs: readonly ClassifiedPair[],
  alerts: Pick<AlertSettings, 'notifyCleared'>,
): ReplayedPair[] {
  return pairs
    .filter((p) => isEmailedClass(p.class, alerts))
    .map((p) => ({
      class: p.class,
      domainId: p.domainId,
      domainUrl: p.domainUrl,
      isp: p.isp,
      severity: p.severity,
      dropPercent: round2(p.dropPercent),
      significance: round2(p.significance),
      ...(p.steady ? { steady: true as const } : {}),
    }))
    .sort(
      (a, b) =>
        CLASS_ORDER.get(a.class)! - CLASS_ORDER.get(b.class)! ||
        a.domainId - b.domainId ||
        (a.isp < b.isp ? -1 : a.isp > b.isp ? 1 : 0),
    );
}

function emailedDrops(drops: readonly ClassifiedDrop[]): ReplayedDrop[] {
  return drops
    .filter((d) => EMAILED_DROP_CLASSES.includes(d.class))
    .map((d) => ({
      class: d.class,
      scope: d.scope,
      domainId: d.domainId,
      domainUrl: d.domainUrl,
      dropPercent: round2(d.dropPercent),
      significance: round2(d.significance),
    }))
    .sort((a, b) =>
      a.scope === b.scope ? a.domainId - b.domainId : a.scope === 'network' ? -1 : 1,
    );
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Sums of e-mails and pairs per e-mailed class over replayed days. */
export class SummaryTally {
  emails = 0;
  readonly pairs: EmailedCounts = emptyEmailedCounts();

  /** A day's run: whether it sent an alert, and its class counts when known. */
  add(emailed: boolean, counts: ClassCounts | undefined): void {
    if (emailed) this.emails += 1;
    if (counts) for (const c of SUMMED_CLASSES) this.pairs[c] += counts[c];
  }

  summary(): ReplaySummary {
    return { emails: this.emails, pairs: { ...this.pairs } };
  }
}

export function emptyEmailedCounts(): EmailedCounts {
  return { new: 0, worse: 0, reminder: 0, cleared: 0 };
}
