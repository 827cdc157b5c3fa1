import { addDays, daysBetween, weekday, type IsoDate } from '../dates.js';
import type { Thresholds } from './thresholds.js';
import type { IspTrend, ListedRun } from './types.js';

/**
 * Held runs (glossary in types.ts): an active pair that is not alertable today, but whose
 * decline is still going on by the monitor's own memory, is not counted as quiet, so it does
 * not clear and come back "new" two days later. docs/alert-quality.md has the measurement
 * behind every constant here.
 *
 * Why a moderate decline looks quiet for a day or two:
 * - it is still listed with evidence of its own (its listed run goes on) but under a threshold
 *   for a day: a 30% slide on a quieter day, a smaller pair's noise;
 * - it is not listed at all because the API's third comparison day, 30 days back, is two
 *   weekdays off: with yesterday a Monday it is a Saturday, and when weekends are quieter a pair
 *   down 20-45% is not below it. The list shows how much quieter: its pairs' day 30 back against
 *   their days 7 and 14 back; when hardly any pair is listed at all, what the list showed of
 *   that day when it was yesterday.
 *
 * Only a moderate decline is held: a pair whose last alertable drop was under
 * criticalDropPercent. A deeper one cannot hide behind a quieter weekday, and when it leaves
 * the list it has ended: a step drop, an outage or a block clears as soon as before.
 */

/** A pair listed today is held only while still down at least this share of minDropPercent. */
export const HOLD_LISTED_DROP_SHARE = 0.5;
/**
 * A pair missing from today's list is held after a listed run of this many days; a shorter run
 * only on a day the list is cut too short to show its day 30 back (holdsUnlisted).
 */
export const HOLD_UNLISTED_MIN_DAYS = 3;
/** An unlisted pair is held for at most this many as-of days after its run's last listed day. */
export const HOLD_MAX_GAP_DAYS = 2;
/** Day 30 back is measured over at least this many listed pairs with a baseline (fewer show nothing). */
export const DAY30_MIN_PAIRS = 3;
/**
 * Day 30 back at less than this share of yesterday's weekday was a quieter day (a weekend
 * behind a Monday or a Tuesday): Wednesday to Friday read 0.98-1.09 (docs/alert-quality.md).
 */
export const DAY30_QUIETER_SHARE = 0.95;

/**
 * What today's list says about its comparison day 30 back: summed over the listed pairs whose
 * days 7 and 14 back average at least minBaselineClicks (small counts say little), day 30 back
 * against the mean of those two (the same weekday as yesterday).
 */
export class Day30Evidence {
  private d30 = 0;
  private sameWeekday = 0;
  private pairs = 0;

  constructor(private readonly minBaselineClicks: number) {}

  add(entry: IspTrend): void {
    const mean = (entry.seven_days_ago_total_clicks + entry.fourteen_days_ago_total_clicks) / 2;
    if (mean <= 0 || mean < this.minBaselineClicks) return;
    this.d30 += entry.thirty_days_ago_total_clicks;
    this.sameWeekday += mean;
    this.pairs++;
  }

  /**
   * Day 30 back as a share of yesterday's weekday (days 7 and 14 back), or undefined when fewer
   * than DAY30_MIN_PAIRS pairs show it. Listed pairs are below their day 30 back, so the share
   * reads high, never low: a quieter day 30 back is quieter still.
   */
  share(): number | undefined {
    return this.pairs >= DAY30_MIN_PAIRS ? this.d30 / this.sameWeekday : undefined;
  }

  /**
   * Whether day 30 back could hide a dip from today's list: it was a quieter day (its share
   * under DAY30_QUIETER_SHARE), or the list shows too few pairs to tell.
   */
  quieter(): boolean {
    const share = this.share();
    return share === undefined || share < DAY30_QUIETER_SHARE;
  }
}

/**
 * A pair listed today but under the thresholds: held while it is in a listed run (today's entry
 * has evidence of its own, z >= RUN_MIN_DAY_SIGNIFICANCE against both weeks: it is below all its
 * comparison days, and measurably), still down at least HOLD_LISTED_DROP_SHARE of
 * minDropPercent, and its last alertable drop was moderate.
 */
export function holdsListed(
  run: ListedRun | undefined,
  todayDropPercent: number,
  lastDropPercent: number,
  settings: Pick<Thresholds, 'minDropPercent' | 'criticalDropPercent'>,
): boolean {
  return (
    run !== undefined &&
    todayDropPercent >= settings.minDropPercent * HOLD_LISTED_DROP_SHARE &&
    lastDropPercent < settings.criticalDropPercent
  );
}

/**
 * What the lists showed of day 30 back, remembered per weekday of yesterday (0 = Sunday): the
 * share (Day30Evidence) the last run with that weekday as yesterday read, 0 while none has.
 * Today's share, when the list shows one, replaces yesterday's weekday's.
 */
export function day30SharesAfter(
  shares: readonly number[] | undefined,
  asOf: IsoDate,
  share: number | undefined,
): number[] {
  const next = shares?.length === 7 ? [...shares] : [0, 0, 0, 0, 0, 0, 0];
  // Thousandths: what the hold reads, in few bytes of the stored state.
  if (share !== undefined) next[weekday(addDays(asOf, -1))] = Math.round(share * 1000) / 1000;
  return next;
}

/**
 * Today's day 30 back, as a share of yesterday's weekday, from the runs before: when a list is
 * cut too short to show it (a weekend day 30 back behind a Monday or a Tuesday), what that day
 * was like is remembered from the last run that had it as yesterday. That list compared it
 * with its own day 30 back, two weekdays before it: a weekday, like today's yesterday, when the
 * day is a weekend day. A day that read quieter than that one (a share above 1) is as much
 * quieter than today's yesterday: the inverse of its share. Undefined when that weekday was
 * never read, or did not read quieter.
 */
export function rememberedDay30Share(
  shares: readonly number[] | undefined,
  asOf: IsoDate,
): number | undefined {
  const then = shares?.[weekday(addDays(asOf, -31))];
  return then !== undefined && then > 1 ? 1 / then : undefined;
}

/**
 * A pair missing from today's list: held when its listed run was listed at most
 * HOLD_MAX_GAP_DAYS as-of days ago, its last alertable drop was moderate, and today's day 30
 * back could hide a decline that deep: its share of yesterday's weekday is at most what the
 * pair kept (1 - drop). A decline day 30 back could not hide that is missing has ended.
 *
 * - The list shows day 30 back (`day30Share`, Day30Evidence): a run of HOLD_UNLISTED_MIN_DAYS
 *   or longer is held when that share hides it. A shorter one is not: a weekend dip's (or a
 *   holiday's) recovery falls on exactly the days a quieter day 30 back cuts the list.
 * - The list is cut too short to show it (undefined): a run of HOLD_UNLISTED_MIN_DAYS or longer
 *   is held; a shorter one only when the share that day read when it was yesterday
 *   (`rememberedShare`, rememberedDay30Share) hides it. The runs of an escalation's first,
 *   moderate days told on a weekend are held over the Monday and Tuesday that hide them; a
 *   weekend dip to half is deeper than a quieter weekend day could hide, and clears as before.
 */
export function holdsUnlisted(
  run: ListedRun | undefined,
  asOf: IsoDate,
  lastDropPercent: number,
  day30Share: number | undefined,
  rememberedShare: number | undefined,
  settings: Pick<Thresholds, 'criticalDropPercent'>,
): boolean {
  if (run === undefined || !keepsRunUnlisted(run, asOf)) return false;
  if (lastDropPercent >= settings.criticalDropPercent) return false;
  const hides = (share: number | undefined): boolean =>
    share !== undefined && share <= 1 - lastDropPercent / 100;
  if (run.days >= HOLD_UNLISTED_MIN_DAYS) return day30Share === undefined || hides(day30Share);
  return day30Share === undefined && hides(rememberedShare);
}

/**
 * An active pair out of the list keeps its listed run for HOLD_MAX_GAP_DAYS as-of days (a run
 * is otherwise dropped when its pair leaves the list), so that a hold can span both days a
 * weekend hides it. Listed again later, it starts a new run (extendRun).
 */
export function keepsRunUnlisted(run: ListedRun, asOf: IsoDate): boolean {
  return daysBetween(run.last, asOf) <= HOLD_MAX_GAP_DAYS;
}
