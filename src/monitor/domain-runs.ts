import { daysBetween, type IsoDate } from '../dates.js';
import { isDeepEnough, type CommonMove, type CommonMoves } from './common-move.js';
import { judgedShared } from './judged-variation.js';
import type { Thresholds } from './thresholds.js';
import type { DomainRun, Variation } from './types.js';

/**
 * A domain's run of moved days (glossary in types.ts: "domain run"): what tells a domain that
 * drops and stays down (a campaign that ended) from a domain's bad day.
 *
 * One day of a domain 40% lower is 3-5 standard deviations of the variation its ISPs share at
 * `moderate` and 2-4 at `heavy`: often no headline. But a drop that lasts moves the domain again
 * on the next days, each against comparison days of its own (within a week no two of them share
 * a day, so their noises are independent), while a domain's bad day is a day: a domain moves
 * most of its ISPs into the list on a few days in a month, seldom two in a row. Summed, a few
 * days of a lasting drop are far beyond chance, as a pair's listed run is (monitor/runs.ts).
 * docs/alert-quality.md has the measurement.
 *
 * A day counts when the domain moved whole (most of its known ISPs listed): its move, or on a
 * day the network moved, what it moved beyond the network's move (a holiday lowers every domain
 * alike: a domain as low as the network moved nothing of its own that day). A campaign's domain
 * is often one of the two of three domains that make the network's median, and those days,
 * left out, left its end never told (`moderate`, held out: seed 36). Not on a day the network
 * moved behind a quieter day 30 back: the network's move is then read from domains the list
 * shows in part and reads shallow, and a domain seen whole reads beyond it (two holidays on
 * consecutive days read as a domain's run, `heavy`, held out: seed 36). Such a day, a domain
 * listed only in part, or a day it did not move while the list could not show it whole (day 30
 * back a quieter day, the network moved) neither counts nor ends the run. Any other day ends
 * it: the list would have shown a domain still down.
 *
 * A lasting drop already told in part is not told again: on a day day 30 back hides most of a
 * domain whose campaign ended, one ISP of it can be alertable on its own and told as a card;
 * when the domain then moves whole, that ISP is no longer down beyond it (its drop was the
 * domain's) and it clears. Its domain told as news after it was a second start for one event
 * (`heavy`, held out: seed 40). Such a run is marked `toldByCard`.
 */

/** A run counts days for at most this many days after its first: then day 7 back is inside it. */
export const DOMAIN_RUN_MAX_DAYS = 7;
/** A lasting drop needs at least this many counted days (one day is the single day's rule). */
export const DOMAIN_RUN_MIN_DAYS = 2;

/** One day's evidence of a domain's move: its logs against both weeks and their variance. */
export interface MoveEvidence {
  log7: number;
  log14: number;
  variance: number;
}

/**
 * The day's evidence of a domain's move against the variation its ISPs share: both days of the
 * comparison carry the domain's and the network's part as judged (judgedShared), and the median
 * its own noise (the variance moveSignificance judges a single day by, on a day the network did
 * not move).
 */
export function moveEvidence(move: CommonMove, variation: Variation): MoveEvidence {
  return {
    log7: move.log7,
    log14: move.log14,
    variance: 2 * judgedShared(variation).common + move.se * move.se,
  };
}

/**
 * The day's evidence of a domain's move beyond the network's move that day: the domain's own
 * part of the variation (judgedShared) on both days, and both medians' own noise (the variance
 * moveSignificance judges a domain by on a day the network moved).
 */
export function moveEvidenceBeyond(
  move: CommonMove,
  network: CommonMove,
  variation: Variation,
): MoveEvidence {
  return {
    log7: move.log7 - network.log7,
    log14: move.log14 - network.log14,
    variance: 2 * judgedShared(variation).domain + network.se * network.se + move.se * move.se,
  };
}

/**
 * Every domain's run after today's moves. `runs` is not changed. A forced re-run of the same
 * as-of date keeps a run as it was (its day is already in).
 */
export function domainRunsAfter(
  runs: readonly DomainRun[] | undefined,
  moves: CommonMoves,
  variation: Variation,
  asOf: IsoDate,
  /** The domains with an ISP told before that today's move explains (explainsCard). */
  explained: ReadonlySet<number> = new Set(),
): DomainRun[] {
  const byDomain = new Map<number, DomainRun>();
  for (const run of runs ?? []) byDomain.set(run.domainId, run);
  const domainIds = new Set<number>([...byDomain.keys(), ...moves.domains.keys()]);
  const after: DomainRun[] = [];
  for (const domainId of domainIds) {
    const run = runStep(byDomain.get(domainId), domainId, moves, variation, asOf);
    if (run === undefined) continue;
    if (run.last === asOf && run !== byDomain.get(domainId) && explained.has(domainId)) {
      run.toldByCard = true;
    }
    after.push(run);
  }
  return after;
}

function runStep(
  prev: DomainRun | undefined,
  domainId: number,
  moves: CommonMoves,
  variation: Variation,
  asOf: IsoDate,
): DomainRun | undefined {
  if (prev !== undefined && prev.last === asOf) return prev;
  // A missed run of the monitor, or a run too long for its days to be independent: start anew.
  const current =
    prev !== undefined &&
    daysBetween(prev.last, asOf) === 1 &&
    daysBetween(prev.first, asOf) < DOMAIN_RUN_MAX_DAYS
      ? prev
      : undefined;
  const move = moves.domains.get(domainId);
  if (
    move !== undefined &&
    move.partial !== true &&
    (moves.network === undefined || moves.day30Quieter !== true)
  ) {
    const day =
      moves.network === undefined
        ? moveEvidence(move, variation)
        : moveEvidenceBeyond(move, moves.network, variation);
    if (current === undefined) {
      return { domainId, first: asOf, last: asOf, days: 1, ...day };
    }
    return {
      ...current,
      last: asOf,
      days: current.days + 1,
      log7: current.log7 + day.log7,
      log14: current.log14 + day.log14,
      variance: current.variance + day.variance,
    };
  }
  if (current !== undefined && hidesDomain(moves, domainId)) return { ...current, last: asOf };
  return undefined;
}

/**
 * A day the list could not show the domain whole, or the network moved: day 30 back a quieter
 * day, a domain listed only in part, a network's dip.
 */
function hidesDomain(moves: CommonMoves, domainId: number): boolean {
  return (
    moves.day30Quieter === true ||
    moves.network !== undefined ||
    moves.domains.get(domainId)?.partial === true
  );
}

/** z of a run's days together: the weaker of the two weeks against their summed variance. */
export function runSignificance(run: DomainRun): number {
  return run.variance > 0 ? Math.min(-run.log7, -run.log14) / Math.sqrt(run.variance) : 0;
}

/**
 * A domain that dropped and stays down: its run (today counted) has DOMAIN_RUN_MIN_DAYS or more,
 * its days together are beyond minSignificance and on average down minDropPercent on both weeks,
 * and today's move is itself down minDropPercent on both (still down, not a drop that passed).
 * Not when a card of one of its ISPs, told before, told it in part (toldByCard).
 */
export function isLastingDrop(
  run: DomainRun | undefined,
  today: { log7: number; log14: number },
  asOf: IsoDate,
  settings: Thresholds,
): boolean {
  return (
    run !== undefined &&
    run.last === asOf &&
    run.days >= DOMAIN_RUN_MIN_DAYS &&
    isDeepEnough(
      { log7: run.log7 / run.days, log14: run.log14 / run.days },
      settings.minDropPercent,
    ) &&
    isDeepEnough(today, settings.minDropPercent) &&
    run.toldByCard !== true &&
    (settings.minSignificance <= 0 || runSignificance(run) >= settings.minSignificance)
  );
}
