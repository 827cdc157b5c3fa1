import { day30SharesAfter } from './hold.js';
import { levelShiftsAfter } from './level-shifts.js';
import { networkDipsAfter } from './network-dips.js';
import { outagesAfter } from './outages.js';
import type { Thresholds } from './thresholds.js';
import type {
  ActiveDrop,
  DomainRun,
  IsoDate,
  KnownDomain,
  LearnedState,
  LearnedVariation,
} from './types.js';

/** What today's run adds to what was learned of the network. */
export interface LearnedToday {
  /** The variation kept for the runs after (learnVariationToday). */
  variation: LearnedVariation;
  /** The ISPs each domain has shown, with today's (readTodaysMoves). */
  known: KnownDomain[];
  /** The active common drops after the run (classifyDrops). */
  drops: ActiveDrop[];
  /** The domains' runs of moved days, today's counted (domainRunsAfter). */
  domainRuns: DomainRun[];
  /** How much quieter day 30 back is, as the list shows it today (readTodaysMoves). */
  day30Share: number | undefined;
  /** The network's move against day 7 back today, if it moved together (CommonMoves.network). */
  networkLog7: number | undefined;
}

/**
 * What was learned of the network after the run: `before` with today's learning. The lists of
 * memory (domain runs, outages, network dips, level shifts) are left out when empty.
 */
export function learnedStateAfter(
  before: LearnedState | undefined,
  today: LearnedToday,
  asOf: IsoDate,
  settings: Thresholds,
): LearnedState {
  const drops = today.drops;
  const after: LearnedState = {
    variation: today.variation,
    known: today.known,
    drops,
    day30Shares: day30SharesAfter(before?.day30Shares, asOf, today.day30Share),
  };
  if (today.domainRuns.length > 0) after.domainRuns = today.domainRuns;
  const outages = outagesAfter(before?.outages, drops, asOf, settings);
  if (outages.length > 0) after.outages = outages;
  const networkDips = networkDipsAfter(
    before?.networkDips,
    today.networkLog7,
    drops.some((d) => d.scope === 'network' && d.lastSeen === asOf),
    asOf,
  );
  if (networkDips.length > 0) after.networkDips = networkDips;
  const levelShifts = levelShiftsAfter(before?.levelShifts, drops, asOf);
  if (levelShifts.length > 0) after.levelShifts = levelShifts;
  return after;
}
