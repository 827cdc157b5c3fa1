import { countedShare, judgedShare, type Shares } from './common-drops.js';
import { depressedAfterClear } from './depressed.js';
import { judgedUpToDip, withWeekShare } from './dip-week.js';
import { holdsListed } from './hold.js';
import { leavesWithNetwork, type JudgingDay } from './judging-day.js';
import { stepAlertable, stepHeld, stepQuiet, type Step } from './lifecycle-step.js';
import { pairKey } from './pair-key.js';
import type { PairOutcomes } from './pair-outcomes.js';
import type { PairSlot } from './pair-slots.js';
import { beginsRun, extendRun, isSteadyDecline, runAfterClear } from './runs.js';
import type { DropNoise } from './significance.js';
import { emptyMeasure, measureEntryInto, type PairMeasure } from './thresholds.js';
import type { TodaysMoves } from './todays-moves.js';
import type { ActivePair, ClassifiedPair, IspTrend, WatchedRun } from './types.js';

/**
 * Judges each pair of today's list: its measure against its domain's common move, its listed
 * run, whether it is alertable (or a steady decline), and its step through the lifecycle;
 * what that changes goes to `out`.
 */
export function judgeListedPairs(
  day: JudgingDay,
  /** Today's list, each pair once, and the slot of each, index for index (findPairSlots). */
  listed: readonly IspTrend[],
  listedSlots: readonly PairSlot[],
  moves: TodaysMoves,
  out: PairOutcomes,
): void {
  const judge = new ListedPairJudge(day, moves, out);
  for (let i = 0; i < listed.length; i++) {
    judge.judge(listed[i]!, listedSlots[i]!, moves.hashes[i]!);
  }
}

/** One classification's judge of listed pairs, with the objects it refills for each. */
class ListedPairJudge {
  /** The noise each entry is judged against, refilled per entry. */
  private readonly noise: DropNoise;
  /** Its day for its run, refilled per entry. */
  private readonly runDay = { yesterday: 0, d7: 0, d14: 0 };
  /** The entry as isSteadyDecline reads it, refilled per entry (no object per entry). */
  private readonly forSteady = {
    baseline: 0,
    d14: 0,
    d30: 0,
    dropPercent: 0,
    significance: 0,
    inOutage: false,
    told: false,
  };
  private readonly measure = emptyMeasure();
  /** The noise and measure of a new pair judged beyond its domain's counted move, refilled. */
  private readonly countedNoise: DropNoise;
  private readonly countedMeasure = emptyMeasure();

  constructor(
    private readonly day: JudgingDay,
    private readonly moves: TodaysMoves,
    private readonly out: PairOutcomes,
  ) {
    this.noise = { extra: day.variation, share7: 1, share14: 1 };
    this.countedNoise = { extra: day.variation, share7: 1, share14: 1 };
  }

  /** One pair of today's list (`hash`: its ispHash), judged; what that changes goes to `out`. */
  judge(listedEntry: IspTrend, slot: PairSlot, hash: number): void {
    const { day, out } = this;
    const { asOf, settings } = day;
    const { prev, watched } = slot;
    const dipShare = this.moves.dipShare;
    const weekShare = dipShare !== undefined && judgedUpToDip(prev, asOf) ? 1 / dipShare : 1;
    const entry = weekShare === 1 ? listedEntry : withWeekShare(listedEntry, weekShare);
    const domainId = entry.network_tracking_domain_id;
    const isp = entry.isp;
    const domainUrl = entry.relationship.url;
    out.listed(entry, domainId, domainUrl);

    const share = judgedShare(this.moves.shares, this.moves.moves, domainId, hash);
    const today = this.measureToday(entry, prev, share, weekShare);
    const run = this.runAfter(entry, prev, watched, today);
    // A new pair's drop on its first listed day is alertable only beyond the move its domain's
    // count of listed ISPs shows (listed-count.ts): a chance card on a domain's bad day. A pair
    // listed the days before is judged as before (a slide's days, each beside its domain's
    // small moves, were told later).
    if (prev === undefined && today.alertable && (run === undefined || run.days <= 1)) {
      const counted = countedShare(this.moves.shares, this.moves.moves, domainId, hash, share);
      if (counted !== undefined) {
        const beyond = this.measureToday(
          entry,
          prev,
          counted,
          weekShare,
          this.countedNoise,
          this.countedMeasure,
        );
        if (!beyond.alertable) today.alertable = false;
      }
    }
    if (prev !== undefined) today.alertable = today.sustained;
    const steady =
      !today.alertable &&
      isSteadyDecline(run, this.steadyDay(today, prev !== undefined), settings, day.variation);
    if (steady) today.alertable = true;
    // An ISP told before, no longer down beyond its domain's move today: its drop was the
    // domain's, told in part (monitor/domain-runs.ts).
    if (prev !== undefined && !today.alertable && this.moves.moves.domains.has(domainId)) {
      out.explained.add(domainId);
    }
    if (prev === undefined && !today.alertable) {
      if (run !== undefined) out.runs.push(run);
      out.belowThreshold++;
      return;
    }
    const silence = day.matchSilence(domainId, isp);
    const step = this.stepOf(prev, today, run, weekShare !== 1, domainUrl, silence !== undefined);
    // A cleared pair's run begins anew with today (runAfterClear, monitor/runs.ts).
    const runKept =
      step.pairClass === 'cleared' && run !== undefined ? runAfterClear(run, this.runDay) : run;
    if (runKept !== undefined) out.runs.push(runKept);
    if (step.pairClass === 'cleared' && prev !== undefined && leavesWithNetwork(day, prev)) {
      out.remove.push(pairKey(domainId, isp));
      return;
    }
    const shown = out.record(
      prev,
      step,
      domainId,
      isp,
      domainUrl,
      today.alertable,
      today.baseline,
      today.yesterday,
    );
    if (!shown) return;
    const pair: ClassifiedPair = {
      domainId,
      isp,
      domainUrl,
      class: step.pairClass,
      alertable: today.alertable,
      severity: today.severity,
      dropPercent: today.dropPercent,
      significance: today.significance,
      firstSeen: prev?.firstSeen ?? asOf,
      quietRuns: step.quietRuns,
      // The e-mail builds its figures from the entry, for the pairs it lists only.
      entry: listedEntry,
      run,
    };
    if (share.share7 < 1) pair.commonShare = share.share7;
    if (steady) pair.steady = true;
    if (step.pairClass === 'cleared' && prev !== undefined) {
      pair.mayStillBeDepressed = depressedAfterClear(prev);
    }
    if (silence !== undefined) pair.silenceId = silence.id;
    out.pairs.push(pair);
  }

  /**
   * The pair's step through the lifecycle: alertable (new, worse, reminder, ongoing), or, told
   * before and not alertable today, held by its run (monitor/hold.ts) or quiet; silenced
   * instead when a silence holds it.
   */
  private stepOf(
    prev: ActivePair | undefined,
    today: PairMeasure,
    run: WatchedRun | undefined,
    /** Judged against day 7 back as it would have been without the network's dip. */
    upToDip: boolean,
    domainUrl: string,
    silenced: boolean,
  ): Step {
    const { asOf, settings, inPlace } = this.day;
    const stepped: Step = { pairClass: 'new', next: undefined, quietRuns: 0 };
    if (today.alertable) {
      return stepAlertable(
        stepped,
        prev,
        today,
        this.noise,
        upToDip,
        domainUrl,
        silenced,
        asOf,
        settings,
        inPlace,
      );
    }
    const active = prev as ActivePair;
    return holdsListed(run, today.dropPercent, active.dropPercent, settings)
      ? stepHeld(stepped, active, silenced)
      : stepQuiet(stepped, active, silenced, asOf, settings, inPlace);
  }

  /**
   * The entry measured against the noise of its domain's common move today, written into `noise`
   * and `into` (today's: this.noise and this.measure).
   */
  private measureToday(
    entry: IspTrend,
    prev: ActivePair | undefined,
    share: Shares,
    weekShare: number,
    noise: DropNoise = this.noise,
    into: PairMeasure = this.measure,
  ): PairMeasure {
    const { asOf } = this.day;
    const dip14Share = this.moves.dip14Share;
    // A domain's move a week after the network's dip is against day 7 back as it would have
    // been without the dip (common-move.ts): a pair judged as listed reads it against that day.
    const afterDip = this.moves.moves.domains.get(entry.network_tracking_domain_id)?.weekBackShare;
    noise.share7 =
      share.share7 * (weekShare === 1 && afterDip !== undefined ? 1 / afterDip : weekShare);
    noise.share14 =
      dip14Share !== undefined && judgedUpToDip(prev, asOf, 14)
        ? share.share14 / dip14Share
        : share.share14;
    return measureEntryInto(into, entry, this.day.settings, noise, this.day.rule);
  }

  /** The pair's listed run after today, or undefined when it has none (or only its entry). */
  private runAfter(
    entry: IspTrend,
    prev: ActivePair | undefined,
    watched: WatchedRun | undefined,
    today: PairMeasure,
  ): WatchedRun | undefined {
    const { asOf, inPlace } = this.day;
    const { noise, runDay, out } = this;
    const networkDip = this.moves.networkDip;
    // The run sums its days against the comparison days as the domain's common move left them.
    runDay.yesterday = today.yesterday;
    runDay.d7 = today.baseline * noise.share7;
    runDay.d14 = today.d14 * noise.share14;
    if (
      prev === undefined &&
      noise.share7 === 1 &&
      noise.share14 === 1 &&
      beginsRun(watched, asOf, today.significance, networkDip)
    ) {
      // A run of one day for a pair without history: nothing reads it today (a steady decline
      // takes STEADY_MIN_DAYS, an e-mail tells a run from 2 days), so its entry stands for it
      // (HistoryChange.runsStarted). Not on a day of a common move: its days are the entry's
      // as the move left them.
      out.runsStarted.push(entry);
      return undefined;
    }
    const run = extendRun(
      watched,
      entry.network_tracking_domain_id,
      entry.isp,
      asOf,
      runDay,
      today.significance,
      inPlace,
      networkDip,
    );
    return run;
  }

  /** Today's measure as isSteadyDecline reads it (this.forSteady, refilled). */
  private steadyDay(today: PairMeasure, told: boolean): typeof this.forSteady {
    const forSteady = this.forSteady;
    const judged = this.noise;
    forSteady.told = told;
    forSteady.baseline = today.baseline;
    forSteady.d14 = today.d14;
    forSteady.d30 = today.d30;
    forSteady.dropPercent = today.dropPercent;
    forSteady.significance = today.significance;
    const outage = 1 - this.day.settings.criticalDropPercent / 100;
    forSteady.inOutage = judged.share7 <= outage || judged.share14 <= outage;
    return forSteady;
  }
}
