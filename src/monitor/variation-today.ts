import { daysBetween } from '../dates.js';
import { judgedVariation } from './judged-variation.js';
import { straddledDomains } from './level-shifts.js';
import type { PairSlot } from './pair-slots.js';
import type { IsoDate, IspTrend, LearnedState, LearnedVariation, Variation } from './types.js';
import { learnVariation, variationOf, type ComparisonDays } from './variation.js';

/** The network's variation after today's list. */
export interface VariationToday {
  /** What is kept for the runs after (LearnedState.variation). */
  learned: LearnedVariation;
  /** What today's pairs and moves are judged against (judgedVariation). */
  judged: Variation;
}

/**
 * The network's variation, learned with today's list: the comparison days of the listed pairs
 * neither active nor in a decline since yesterday show noise (monitor/variation.ts), and they
 * say nothing of yesterday; nor do a domain's days on both sides of its drop
 * (monitor/level-shifts.ts).
 */
export function learnVariationToday(
  listed: readonly IspTrend[],
  /** The slot of each pair of `listed`, index for index (findPairSlots). */
  listedSlots: readonly PairSlot[],
  learned: LearnedState | undefined,
  asOf: IsoDate,
  minSignificance: number,
): VariationToday {
  const straddled = straddledDomains(learned?.levelShifts, asOf);
  const samples: ComparisonDays[] = [];
  for (let i = 0; i < listed.length; i++) {
    const entry = listed[i]!;
    const { prev, watched } = listedSlots[i]!;
    if (prev !== undefined || (watched !== undefined && daysBetween(watched.last, asOf) === 1)) {
      continue;
    }
    if (straddled.has(entry.network_tracking_domain_id)) continue;
    samples.push({
      domainId: entry.network_tracking_domain_id,
      yesterday: entry.yesterday_total_clicks,
      d7: entry.seven_days_ago_total_clicks,
      d14: entry.fourteen_days_ago_total_clicks,
    });
  }
  const learnedVariation = learnVariation(
    learned?.variation,
    samples,
    variationOf(learned?.variation),
    asOf,
  );
  return {
    learned: learnedVariation,
    judged: judgedVariation(learnedVariation, minSignificance),
  };
}
