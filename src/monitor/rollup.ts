import type { DomainRollup, PairClass } from './types.js';

/**
 * The domain roll-up: one group per tracking domain that has a classified pair, worst first by
 * clicks lost. A headline domain is what a blocked domain looks like (glossary in types.ts).
 */
export const HEADLINE_MIN_ISPS = 3;
/** ... and the affected ISPs are at least this share of the domain's pairs listed today. */
export const HEADLINE_MIN_SHARE = 0.5;

export function isHeadline(ispsAffected: number, listedToday: number): boolean {
  return ispsAffected >= HEADLINE_MIN_ISPS && ispsAffected >= listedToday * HEADLINE_MIN_SHARE;
}

interface DomainTally extends DomainRollup {
  /** Distinct pairs of the domain in today's list, alertable or not. */
  listed: number;
  /** Classified pairs of the domain (any class). */
  classified: number;
}

/** Accumulates the pairs of one run; linear, one Map entry per domain. */
export class DomainRollupBuilder {
  private readonly domains = new Map<number, DomainTally>();

  private tally(domainId: number, domainUrl: string): DomainTally {
    let tally = this.domains.get(domainId);
    if (tally === undefined) {
      tally = {
        domainId,
        domainUrl,
        ispsAffected: 0,
        clicksLost: 0,
        baselineClicks: 0,
        headline: false,
        listed: 0,
        classified: 0,
      };
      this.domains.set(domainId, tally);
    }
    return tally;
  }

  /** A distinct pair of today's list. */
  listed(domainId: number, domainUrl: string): void {
    this.tally(domainId, domainUrl).listed++;
  }

  /** A classified pair; it counts toward the totals when alertable today and not silenced. */
  add(
    domainId: number,
    domainUrl: string,
    pairClass: PairClass,
    alertable: boolean,
    baseline: number,
    yesterday: number,
  ): void {
    const tally = this.tally(domainId, domainUrl);
    tally.classified++;
    if (!alertable || pairClass === 'silenced' || pairClass === 'cleared') return;
    tally.ispsAffected++;
    tally.baselineClicks += baseline;
    tally.clicksLost += Math.max(0, baseline - yesterday);
  }

  build(): DomainRollup[] {
    const result: DomainRollup[] = [];
    for (const tally of this.domains.values()) {
      if (tally.classified === 0) continue;
      result.push({
        domainId: tally.domainId,
        domainUrl: tally.domainUrl,
        ispsAffected: tally.ispsAffected,
        clicksLost: tally.clicksLost,
        baselineClicks: tally.baselineClicks,
        headline: isHeadline(tally.ispsAffected, tally.listed),
      });
    }
    return result.sort((a, b) => b.clicksLost - a.clicksLost || a.domainId - b.domainId);
  }
}
