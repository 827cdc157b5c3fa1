/**
 * Glossary: the words of the domain, named once.
 *
 * - network: one operator account on the partner platform, configured under `networks[]`.
 * - pair: a (tracking domain, ISP) combination of one network, identified by
 *   (network, `network_tracking_domain_id`, `isp` exactly as sent). `pairKey` is its id.
 * - as-of date: the calendar date (YYYY-MM-DD, in the network's time zone) a run is for;
 *   the trends it reads describe the day before it.
 * - run: one traffic-check (or invoice-snapshot) of one network for one as-of date.
 * - baseline: a pair's clicks 7 days before yesterday (the same weekday).
 * - dropPercent: `-yesterday_seven_days_ago_total_clicks_trend`, or computed from the totals.
 * - significance: the drop in standard deviations of day-to-day noise, chance's and the learned
 *   variation's combined: the weaker of its z against 7 and against 14 days back, each judged
 *   beyond the pair's common move (monitor/significance.ts).
 * - learned variation (monitor/variation.ts): the network's own day-to-day variation of a
 *   pair's clicks beyond chance (log scale), learned from the same-weekday comparison days of
 *   the pairs it lists and remembered across runs, with the part a domain's ISPs share and the
 *   network's. Drops are judged against it widened by what the days seen so far leave
 *   uncertain (the judged variation, monitor/judged-variation.ts).
 * - common move (monitor/common-move.ts): today's move of a domain, or of the whole network,
 *   that its ISPs share: read when most of its known ISPs are listed together, in part from
 *   those listed, or from how many are listed (monitor/listed-count.ts). An ISP of the domain
 *   is judged by what it lost beyond it; a deep one is a common drop, one headline
 *   (monitor/common-drops.ts).
 * - alertable: baseline >= minBaselineClicks, dropPercent >= minDropPercent and
 *   significance >= minSignificance (0 turns that test off). An active pair needs all but the
 *   first (`isSustained`): the floor decides what is worth a first e-mail, not when it ends.
 * - listed run (monitor/runs.ts): the consecutive as-of dates a pair was in the API's list with
 *   some evidence of its own (z >= 0.5), with its clicks summed against days 7 and 14 back; kept
 *   for every pair in today's list (not only active ones), dropped when it leaves the list (an
 *   active pair keeps it for up to 2 days out of the list, for a held run).
 * - steady decline: alertable because of its listed run (3+ days, certain together, still as
 *   deep, today at least 3/4 of minDropPercent) although today's numbers alone are not.
 * - domain run (monitor/domain-runs.ts): the consecutive as-of dates a domain moved whole (days
 *   the list could not show it skipped), with its moves summed (on a day the network moved, its
 *   move beyond the network's): a domain that dropped and stays down (a campaign that ended) is
 *   told as a common drop when its days together are beyond noise, although no single day is.
 * - joined: a pair that would be new, in a headline domain of which at least HEADLINE_MIN_ISPS
 *   pairs were already active and are still alertable: it was reported with its domain, so it
 *   becomes active as ongoing (no e-mail of its own).
 * - active pair: a pair the monitor has alerted on and not yet cleared (the history).
 * - held run (monitor/hold.ts): a run in which an active pair whose last alertable drop was
 *   under criticalDropPercent is not alertable but its decline goes on by the monitor's memory:
 *   it is in its listed run and down at least half of minDropPercent, or, after a listed run of
 *   3+ days, missing from the list for at most 2 days on which day 30 back, as the list shows
 *   it, could hide a decline that deep (after a shorter run: on a list cut too short to show
 *   it, as the lists before showed that day). Neither alertable nor quiet: nothing about the
 *   pair changes.
 * - quiet run: a run in which an active pair is not alertable (absent from the list, or listed
 *   under the thresholds) and not held.
 * - classes (each pair of a run gets exactly one):
 *   - new: alertable today, not active before.
 *   - worse: active, severity rose from warning to critical since it was last e-mailed, and the
 *     drop is critical beyond day-to-day noise (isClearlyCritical, monitor/thresholds.ts).
 *   - reminder: active, still alertable, renotifyAfterDays days since it was last e-mailed.
 *   - ongoing: active, none of the above (including held runs, and quiet runs short of
 *     clearAfterRuns).
 *   - cleared: active, clearAfterRuns quiet runs since it was last alertable (held runs between
 *     them do not count). Never "recovered": see
 *     `mayStillBeDepressed`.
 *   - silenced: matches an unexpired silence; counted, never e-mailed.
 * - pair event: (pair, class, as-of date) of an e-mailed class; never e-mailed twice.
 * - below threshold: a pair in today's list that is neither alertable nor active. It gets no
 *   class (the API lists every pair that is down at all; the monitor's thresholds decide which
 *   are declines) and is only counted (`Classification.belowThreshold`).
 * - quiet runs are counted per as-of date: a forced re-run of the same date does not count the
 *   same quiet day twice (`ActivePair.quietAsOf`).
 * - silenced, precisely: the pair is classified as it would be, but e-mails nothing and its
 *   `lastNotified`/`notifiedSeverity` never change. A silenced pair that is not active is NOT
 *   added to the history (nobody was told about it), so when the silence expires and it still
 *   declines it is `new`. A silenced active pair keeps being tracked (lastSeen, quiet runs, last
 *   numbers) and leaves the history silently once it meets clearAfterRuns (class silenced, not
 *   cleared); when the silence expires it resumes: `worse` if it went critical meanwhile,
 *   `reminder` if one is due, else `ongoing`.
 * - may still be depressed (`depressedAfterClear`, monitor/depressed.ts): a cleared pair whose
 *   last alertable run came 5 to 8 days after it was first seen (as-of dates) and whose last
 *   alertable dropPercent was still >= 50. Why: a block starting on day B is first seen on
 *   as-of B+1 and stays listed through as-of B+7; on B+8 the 7-day comparison day is itself
 *   inside the block and the pair drops out of the API's list while clicks are still down. That
 *   span is 6 days; 5..8 tolerates a block that set in or lifted gradually. A real recovery
 *   shows the drop shrinking first, so it rarely still shows >= 50% on its last listed day. The
 *   rule looks at the last alertable run, not the clear run, so it holds for any clearAfterRuns.
 * - headline domain (`DomainRollup.headline`): at least 3 ISPs of one tracking domain are
 *   alertable and not silenced today, and they are at least half of the domain's pairs in
 *   today's list. One ISP is an ISP problem; many ISPs of one domain at once is the domain.
 * - dropPercent from totals: (baseline - yesterday) / baseline * 100 when the API's trend is
 *   missing, null or not finite; 0 when the baseline is 0 (never alertable).
 * - snapshot: one invoice summary taken at a time, with its change since the previous one.
 * - notification: one decided e-mail, recorded in the outbox before it is sent.
 * - problem episode: the time from a traffic-check's final failure to its next success.
 */

import type { IspTrend } from '../api/schemas.js';
import type { IsoDate } from '../dates.js';
import type { ThmErrorCode } from '../errors.js';

export type Severity = 'warning' | 'critical';
export type PairClass = 'new' | 'worse' | 'reminder' | 'ongoing' | 'cleared' | 'silenced';
export const PAIR_CLASSES: readonly PairClass[] = [
  'new',
  'worse',
  'reminder',
  'ongoing',
  'cleared',
  'silenced',
];
/**
 * The e-mailed classes of a pair still declining: an alert lists these by domain, and sends
 * them whatever alerts.notifyCleared says.
 */
export const DECLINING_CLASSES: readonly PairClass[] = ['new', 'worse', 'reminder'];
/** The classes that put a pair into an e-mail (cleared only with alerts.notifyCleared). */
export const EMAILED_CLASSES: readonly PairClass[] = [...DECLINING_CLASSES, 'cleared'];

/** Whether a pair of this class is e-mailed as declining (new, worse, reminder). */
export function isDecliningClass(pairClass: PairClass): boolean {
  return DECLINING_CLASSES.includes(pairClass);
}

/** Clicks, conversions or revenue of one pair on the four days the API reports. */
export interface DayFigures {
  yesterday: number;
  d7: number;
  d14: number;
  d30: number;
}

/** Percent change from each comparison day to yesterday (negative is a drop); null: undefined. */
export interface TrendFigures {
  d7: number | null;
  d14: number | null;
  d30: number | null;
}

/** A pair's numbers of one run, taken from its validated API entry. */
export interface PairFigures {
  clicks: DayFigures;
  clickTrend: TrendFigures;
  conversions: DayFigures;
  conversionTrend: TrendFigures;
  revenue: DayFigures;
  revenueTrend: TrendFigures;
}

/** What the monitor remembers about an active pair between runs (the history). */
export interface ActivePair {
  domainId: number;
  isp: string;
  domainUrl: string;
  /** As-of date of the run that first found it alertable (this episode). */
  firstSeen: IsoDate;
  /** As-of date of the last run that found it alertable. */
  lastSeen: IsoDate;
  /** As-of date of the last e-mail that carried it (new, worse or reminder). */
  lastNotified: IsoDate;
  /** Severity it had in that e-mail. */
  notifiedSeverity: Severity;
  /** Quiet runs since it was last alertable (0 while alertable; held runs do not count). */
  quietRuns: number;
  /** Last alertable numbers: baseline (7 days back) and yesterday's clicks, drop percent. */
  baseline: number;
  yesterday: number;
  dropPercent: number;
  /** As-of date of the last quiet run counted in quietRuns (absent while alertable). */
  quietAsOf?: IsoDate;
}

export interface Silence {
  id: string;
  networkId: string;
  /** Tracking domain id; absent: any domain. */
  domainId?: number;
  /** ISP name, exact or a glob with * and ?; absent: any ISP. */
  isp?: string;
  /** ISP matched as written; absent or false: ignoring case (amtool's default is the same). */
  caseSensitive?: boolean;
  reason: string;
  /** Who added it (`--author`, default the OS user); absent on silences from before. */
  author?: string;
  createdAt: number;
  /** Epoch milliseconds: holds from here (a maintenance window that starts later); absent: from createdAt. */
  startsAt?: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface ClassifiedPair {
  domainId: number;
  isp: string;
  domainUrl: string;
  class: PairClass;
  /** Alertable in today's data. */
  alertable: boolean;
  severity: Severity;
  dropPercent: number;
  significance: number;
  firstSeen: IsoDate;
  quietRuns: number;
  /**
   * Today's validated API entry, when the pair is in today's list (a reference, no copy). The
   * e-mail derives the numbers it shows from it (`pairFigures`), only for the pairs it lists:
   * building them for every one of 10,000 new pairs cost more than the rest of classification.
   */
  entry?: IspTrend;
  /** Numbers given directly (fixtures, examples); otherwise derived from `entry`. */
  figures?: PairFigures;
  /** Cleared only: see `depressedAfterClear` (monitor/depressed.ts, re-exported by classify.ts). */
  mayStillBeDepressed?: boolean;
  /** The id of the silence that matched (class silenced). */
  silenceId?: string;
  /**
   * Its listed run up to today, when it is in one (monitor/runs.ts); none for a pair new to the
   * history whose run begins today (HistoryChange.runsStarted: a run of one day, which nothing
   * shows or decides by).
   */
  run?: ListedRun;
  /** Alertable only as a steady decline (its run's evidence, not today's alone). */
  steady?: boolean;
  /**
   * The share of its 7-days-back clicks its domain kept today by a common move (under 1), when
   * most of the domain is down together: the pair was judged against that (common-move.ts).
   */
  commonShare?: number;
}

/**
 * Consecutive runs (as-of dates) on which a pair was listed with some evidence of a drop
 * (monitor/runs.ts).
 */
export interface ListedRun {
  /** As-of date of the run's first and latest day. */
  since: IsoDate;
  last: IsoDate;
  /** Listed days in it (as-of dates since..last, one a day). */
  days: number;
  /** Sums over those days: yesterday's clicks, and the same weekday 7 and 14 days before each. */
  clicks: number;
  d7: number;
  d14: number;
}

/** What a network's learned variation keeps between runs: decayed sums, a few numbers. */
export interface LearnedVariation {
  /** As-of date of the last run that added to it. */
  asOf: IsoDate;
  /**
   * Per variation of VARIATION_GRID: the weighted sum of estimates of 2 x extra made with it,
   * and the sum of their weights (an effective count of large pairs' comparisons).
   */
  spread: number[];
  spreadWeight: number[];
  /** Per variation of VARIATION_GRID: estimates of 2 x common, one per domain's day; how many. */
  shared: number[];
  sharedWeight: number[];
  /**
   * Per variation of VARIATION_GRID: estimates of 2 x network, one per day; the sum of their
   * squares (absent in a state stored before it was kept: none); how many.
   */
  network: number[];
  networkSquares?: number[];
  networkWeight: number[];
  /** Runs that added something, decayed: the days the estimate rests on. */
  days: number;
}

/** The variation a run judges drops by. */
export interface Variation {
  /**
   * Extra-Poisson variance of one day's clicks on the log scale: the pair's own part, its
   * domain's and the network's together (sd^2; 0.01 is "about 10% from day to day").
   */
  extra: number;
  /** The part of `extra` the ISPs of one domain share (their domain's and the network's). */
  common: number;
  /** The part of `common` the whole network shares. */
  network: number;
  /** The days the estimate rests on (decayed; 0: only the prior). */
  days: number;
  /**
   * The variance a drop is judged by, per chance variance of its pair's comparison
   * (monitor/judged-variation.ts): ascending chance variances of the log ratio of two days, and
   * the variance of a day to judge by at each. Absent: `extra` for every pair.
   */
  chance?: number[];
  judged?: number[];
}

export interface KnownDomain {
  domainId: number;
  /** The day (dayNumber) of the as-of date its first ISP became known. */
  since: number;
  /** The sample keeps the ISPs whose hash is under 2^(16 - level). */
  level: number;
  /** The sampled ISPs' hashes (ispHash), ascending. */
  hashes: number[];
  /** For each, the day (dayNumber) of the as-of date it was last listed. */
  lastListed: number[];
}

export type DropScope = 'domain' | 'network';

/** A common drop the monitor has reported and not yet seen end. */
export interface ActiveDrop {
  scope: DropScope;
  /** The domain's id; 0 for the network. */
  domainId: number;
  domainUrl: string;
  /** As-of dates: first found, last found, last e-mailed (absent: remembered, never told). */
  firstSeen: IsoDate;
  lastSeen: IsoDate;
  lastNotified?: IsoDate;
  /** Its last drop against 7 and 14 days back, in percent. */
  dropPercent: number;
  dropPercent14: number;
  /** Its drop against 7 days back when it was last e-mailed, in percent. */
  notifiedDropPercent: number;
  /** Quiet runs since it was last found (one per as-of date: quietAsOf). */
  quietRuns: number;
  quietAsOf?: IsoDate;
}

export const DROP_CLASSES = ['new', 'worse', 'reminder', 'ongoing', 'silenced'] as const;
export type DropClass = (typeof DROP_CLASSES)[number];

/** A common drop of one run, as the e-mail and the run's outcome show it. */
export interface ClassifiedDrop {
  scope: DropScope;
  domainId: number;
  domainUrl: string;
  class: DropClass;
  firstSeen: IsoDate;
  /** Today's drop against 7 and 14 days back, in percent (the last one when not seen today). */
  dropPercent: number;
  dropPercent14: number;
  /** Its z against the network's common variation (the weaker week). */
  significance: number;
  /** Known ISPs down together today, of the known ones (scaled to the domain or network). */
  ispsDown: number;
  ispsKnown: number;
  /** network only: domains down together, of the domains with enough known ISPs. */
  domainsDown?: number;
  domainsKnown?: number;
  /** Clicks lost on its listed pairs (7 days back minus yesterday) and their 7-days-back sum. */
  clicksLost: number;
  baselineClicks: number;
}

/**
 * What the monitor has learned of a network across runs, beside its history of pairs: the
 * network's own day-to-day variation (monitor/variation.ts), the ISPs each domain has shown
 * (monitor/known-isps.ts) and the common drops it has reported and not yet seen end
 * (monitor/common-drops.ts). A plain value: the store keeps it as one field, a replay carries
 * it from run to run, and a decision is a function of it, the history, the entries and the
 * settings alone.
 */
export interface LearnedState {
  /** Absent until a run has listed a pair that says something about the variation. */
  variation?: LearnedVariation;
  known: KnownDomain[];
  drops: ActiveDrop[];
  /** The domains' runs of moved days (monitor/domain-runs.ts); absent: none. */
  domainRuns?: DomainRun[];
  /** Day 30 back as each weekday's list showed it (monitor/hold.ts, day30SharesAfter); absent: none. */
  day30Shares?: number[];
  /** The domains' outages of the last month (monitor/outages.ts); absent: none. */
  outages?: DomainOutage[];
  /** The network's dips of the last month (monitor/network-dips.ts); absent: none. */
  networkDips?: NetworkDip[];
  /** Domains' level shifts of the last two weeks (monitor/level-shifts.ts); absent: none. */
  levelShifts?: LevelShift[];
}

/** A domain's drop, as a level shift its comparison days may straddle (monitor/level-shifts.ts). */
export interface LevelShift {
  domainId: number;
  /** The as-of date its drop was first seen. */
  firstSeen: IsoDate;
}

/** A domain's drop of criticalDropPercent or more, as-of dates it was seen (monitor/outages.ts). */
export interface DomainOutage {
  domainId: number;
  firstSeen: IsoDate;
  lastSeen: IsoDate;
}

/** A run that saw the network move down together (monitor/network-dips.ts). */
export interface NetworkDip {
  /** The as-of date: the dip's day is the day before. */
  seen: IsoDate;
  /** The share of its day 7 back the network kept (exp of its move's log7). */
  kept: number;
  /** Its drop was told, or went on, that run (an active network drop seen that day). */
  told?: true;
}

/** A domain's run of days it moved whole, as remembered between runs (monitor/domain-runs.ts). */
export interface DomainRun {
  domainId: number;
  /** As-of dates: the first day counted, and the last day seen (counted, or hidden by the list). */
  first: IsoDate;
  last: IsoDate;
  /** Days counted. */
  days: number;
  /** Sums over the days counted: the moves against 7 and 14 days back (log), their variance. */
  log7: number;
  log14: number;
  variance: number;
  /**
   * On a day counted, an ISP of the domain told before was listed and not down beyond the
   * domain's move: the drop was told in part by that card (monitor/domain-runs.ts).
   */
  toldByCard?: boolean;
}

/** A pair's listed run, as remembered between runs (monitor/runs.ts). */
export interface WatchedRun extends ListedRun {
  domainId: number;
  isp: string;
}

/** Many ISPs of one tracking domain declining together: what a blocked domain looks like. */
export interface DomainRollup {
  domainId: number;
  domainUrl: string;
  /** Alertable pairs of the domain today (any class but cleared). */
  ispsAffected: number;
  clicksLost: number;
  baselineClicks: number;
  /** True when enough ISPs decline together to lead the e-mail with the domain. */
  headline: boolean;
}

export type ClassCounts = Record<PairClass, number>;

/** A pair that became active in this run (class new), as classified: with today's entry. */
export type AddedPair = ClassifiedPair & { entry: IspTrend };

/**
 * The history after a run, written whole (the store does not read it again). `upsert` and
 * `added` together hold EVERY pair active after the run; `remove` the keys that left it; `runs`
 * and `runsStarted` together every listed run after the run (a pair not in today's list has
 * none). Absent lists are empty.
 *
 * What begins in the run is given by what it begins with, not as an object of its own: a new
 * pair by its ClassifiedPair (`added`), a run that begins today for a pair without history by
 * its entry (`runsStarted`). On a first day of 50,000 new pairs those objects were ~12 MiB a
 * run (target P6, docs/performance.md). monitor/history-change.ts builds the objects when
 * something wants them (`historyAfter`, `runsAfter`); the store's encoders write them directly.
 */
export interface HistoryChange {
  upsert: ActivePair[];
  /** Their records follow from them: `addedActivePair` (monitor/history-change.ts). */
  added?: readonly AddedPair[];
  remove: string[];
  runs?: WatchedRun[];
  /** Runs of one listed day, `asOf`: `startedRun` (monitor/history-change.ts). */
  runsStarted?: { asOf: IsoDate; entries: readonly IspTrend[] };
  /** What is learned of the network after the run (monitor/learned.ts); absent: untouched. */
  learned?: LearnedState;
}

export interface Classification {
  asOf: IsoDate;
  /**
   * The pairs of today and of the active history that got a class, each once; ongoing pairs
   * only when classification was asked to list them (`ClassifyInput.listOngoing`): a run only
   * counts them (`counts.ongoing`), so nothing may rely on finding an ongoing pair here.
   */
  pairs: ClassifiedPair[];
  counts: ClassCounts;
  domains: DomainRollup[];
  /** The common drops of the run (monitor/common-drops.ts), each with its class; absent: none. */
  drops?: ClassifiedDrop[];
  /** The network's variation the run judged by (monitor/variation.ts); absent: chance alone. */
  variation?: Variation;
  /** The history after this run (see HistoryChange). */
  changes: HistoryChange;
  /** Pairs in today's list that are neither alertable nor active (not classified). */
  belowThreshold?: number;
  /** Entries repeating a pair already seen in today's list (the first one counts). */
  duplicates?: number;
}

/** The kinds of run, in one list (job names, run records, problem episodes, CLI commands). */
export const RUN_KINDS = ['traffic-check', 'invoice-snapshot'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * The record of one run per (network, kind, as-of date). Its existence with outcome other than
 * 'failed' makes a second run for the same key a no-op (unless forced).
 */
export interface RunRecord {
  networkId: string;
  kind: RunKind;
  asOf: IsoDate;
  outcome: 'ok' | 'premium-inactive' | 'failed';
  /** Epoch milliseconds. */
  startedAt: number;
  finishedAt: number;
  /** traffic-check: the classes of this run. */
  counts?: ClassCounts;
  /** traffic-check: entries in the API's list. */
  pairsListed?: number;
  /** traffic-check: its common drops (monitor/common-drops.ts), as its summary names them; absent: none. */
  drops?: RunDrop[];
  /** The e-mails this run decided (ids in the outbox; none for a network without recipients). */
  notificationIds: string[];
  /** Its channel deliveries (`<notification id>-<channel>`, ids in the outbox); absent: none. */
  deliveryIds?: string[];
  /** failed: the error's code and one-line message (never a secret). */
  error?: { code: ThmErrorCode; message: string };
  /** How many times this (network, kind, as-of) ran; > 1 after --force. */
  runs: number;
}

/** A common drop as a run's record keeps it: what it was, how deep (whole percent), its class. */
export interface RunDrop {
  scope: DropScope;
  domainId: number;
  class: DropClass;
  dropPercent: number;
}

/** One invoice summary as stored: `{time, status, total_count, balance, billed, paid}`. */
export interface InvoiceSnapshot {
  /** Epoch seconds, like the API's time_* fields. */
  time: number;
  status: string;
  total_count: number;
  balance: number;
  billed: number;
  paid: number;
}

export interface InvoiceChange {
  total_count: number;
  balance: number;
  billed: number;
  paid: number;
}

/** The last access object seen, and whether premium was active. */
export interface PremiumState {
  hasPremium: boolean;
  /** Epoch milliseconds of the check that saw this state. */
  checkedAt: number;
  /** Epoch milliseconds since when this state holds. */
  since: number;
}

/** An open problem episode of a network (a run kind failed for good). */
export interface ProblemEpisode {
  kind: RunKind;
  /** Epoch milliseconds. */
  openedAt: number;
  code: ThmErrorCode;
  /** One line, with the API's own message when there was one. */
  message: string;
}

export type { IspTrend, IsoDate };
