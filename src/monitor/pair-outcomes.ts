import { daysBetween } from '../dates.js';
import { emptyClassCounts } from './class-counts.js';
import { JOIN_WITHIN_DAYS } from './join-reported.js';
import type { Step } from './lifecycle-step.js';
import { pairKey } from './pair-key.js';
import { DomainRollupBuilder } from './rollup.js';
import type { ActivePair, ClassifiedPair, IsoDate, IspTrend, WatchedRun } from './types.js';

/** A domain's URL, and clicks lost and 7-days-back clicks over its listed pairs. */
export interface DomainClicks {
  url: string;
  clicksLost: number;
  baselineClicks: number;
}

/**
 * What judging the pairs adds up to, gathered pair by pair (judgeListedPairs, then
 * judgeUnlistedPairs) and read when the classification is assembled.
 */
export class PairOutcomes {
  /** The pairs `pairs` lists (ClassifyInput.listOngoing). */
  readonly pairs: ClassifiedPair[] = [];
  readonly counts = emptyClassCounts();
  /** The history's changes: records written and pair keys removed. */
  readonly upsert: ActivePair[] = [];
  readonly remove: string[] = [];
  readonly domains = new DomainRollupBuilder();
  /** Per domain listed today: its clicks (DomainClicks). */
  readonly domainClicks = new Map<number, DomainClicks>();
  /** Listed pairs neither alertable nor active. */
  belowThreshold = 0;
  /** By domain, then by firstSeen: how many of its pairs first seen then are still alertable. */
  readonly reported = new Map<number, Map<IsoDate, number>>();
  /** The listed runs after this run, and the entries that begin one (HistoryChange). */
  readonly runs: WatchedRun[] = [];
  readonly runsStarted: IspTrend[] = [];
  /** The domains that moved today with an ISP told before that the move explains. */
  readonly explained = new Set<number>();

  constructor(
    private readonly asOf: IsoDate,
    private readonly listOngoing: boolean,
  ) {}

  /** A listed pair's domain: listed today, with the pair's clicks. */
  listed(entry: IspTrend, domainId: number, domainUrl: string): void {
    this.domains.listed(domainId, domainUrl);
    let tally = this.domainClicks.get(domainId);
    if (tally === undefined) {
      tally = { url: domainUrl, clicksLost: 0, baselineClicks: 0 };
      this.domainClicks.set(domainId, tally);
    }
    tally.clicksLost += Math.max(
      0,
      entry.seven_days_ago_total_clicks - entry.yesterday_total_clicks,
    );
    tally.baselineClicks += entry.seven_days_ago_total_clicks;
  }

  /**
   * What a pair's step changes besides its result object: the history, the counts, the
   * domains, and the recent reports an ISP may join. Returns whether `pairs` lists the pair.
   */
  record(
    prev: ActivePair | undefined,
    step: Step,
    domainId: number,
    isp: string,
    domainUrl: string,
    alertable: boolean,
    baseline: number,
    yesterday: number,
  ): boolean {
    const pairClass = step.pairClass;
    if (step.next !== undefined) this.upsert.push(step.next);
    else if (prev !== undefined) this.remove.push(pairKey(domainId, isp));
    this.counts[pairClass]++;
    if (
      pairClass !== 'new' &&
      prev !== undefined &&
      alertable &&
      pairClass !== 'silenced' &&
      daysBetween(prev.firstSeen, this.asOf) <= JOIN_WITHIN_DAYS
    ) {
      let byDay = this.reported.get(domainId);
      if (byDay === undefined) {
        byDay = new Map();
        this.reported.set(domainId, byDay);
      }
      byDay.set(prev.firstSeen, (byDay.get(prev.firstSeen) ?? 0) + 1);
    }
    this.domains.add(domainId, domainUrl, pairClass, alertable, baseline, yesterday);
    return this.listOngoing || pairClass !== 'ongoing';
  }
}
