import { beforeAll, describe, expect, it } from 'vitest';
import { LEVELS, type VariationLevel } from '../../bench/quality/model.js';
import { DEFAULT_OPTIONS, runQuality, type QualityReport } from '../../bench/quality/simulate.js';
import {
  SMALL_BLOCK_DAYS,
  STEP_DAYS,
  stepDrops,
  targetMisses,
  type TargetMisses,
} from '../../bench/quality/targets.js';

/**
 * The alert-quality targets (docs/alert-quality.md) on the simulation `npm run quality` runs:
 * default settings, the default 8 seeds, at every level of extra-Poisson variation. A change
 * that brings noise back, or catches an incident later, fails here. Where a target is not met
 * the test holds the measured figure instead (named so, and listed in docs/alert-quality.md,
 * "What is not met"), so that it can only get better.
 */

interface LevelTargets {
  /** Noise e-mails per 60 days per network. */
  noise: number;
  /** E-mails on quiet days: the target is 0. */
  quietDayEmails: number;
  /** Noise e-mails in the 4 runs after a holiday: the target is 0. */
  holidayNoiseAfter: number;
  /** Holidays e-mailed without saying the whole network dipped: the target is 0. */
  holidaysWithoutHeadline: number;
  /** Step drops told later than stepDays: the target is 0. */
  stepsLate: number;
  /** Whole domains down not told on their first day in one e-mail: the target is 0. */
  domainsDownMissed: number;
  /** Campaigns' ends told more than once or beyond their budget: the target is 0. */
  campaignsOverBudget: number;
  /** Campaigns' ends never told (no start e-mail in their window): the target is 0. */
  campaignsNeverTold: number;
  /** At poisson, incidents beyond their e-mail budget, the slides aside: the target is 0. */
  overBudget?: number;
  /** At poisson, escalations (>= 500 clicks a day) told worse after their deeper drop's first day. */
  escalationsLate?: number;
  /** The 6%-a-day slide's median delay over the seeds (a target at poisson and moderate). */
  slideMedian?: number;
  /** Whether blocks for good on 50-200 clicks a day are held to SMALL_BLOCK_DAYS (poisson, mild). */
  smallBlocks?: boolean;
}

// Measured on seeds 1-8 where a target is not met (docs/alert-quality.md, "What is not met").
const TARGETS: Record<VariationLevel, LevelTargets> = {
  poisson: {
    noise: 0.5,
    quietDayEmails: 0,
    holidayNoiseAfter: 0,
    holidaysWithoutHeadline: 0,
    stepsLate: 0,
    domainsDownMissed: 0,
    campaignsOverBudget: 0,
    campaignsNeverTold: 0,
    overBudget: 0,
    escalationsLate: 0,
    slideMedian: 4,
    smallBlocks: true,
  },
  mild: {
    noise: 0.5,
    quietDayEmails: 0,
    holidayNoiseAfter: 0,
    holidaysWithoutHeadline: 0,
    stepsLate: 0,
    domainsDownMissed: 0,
    campaignsOverBudget: 0,
    campaignsNeverTold: 0,
    smallBlocks: true,
  },
  moderate: {
    noise: 0.5,
    quietDayEmails: 0,
    holidayNoiseAfter: 0,
    holidaysWithoutHeadline: 0,
    stepsLate: 0,
    domainsDownMissed: 0,
    campaignsOverBudget: 0,
    campaignsNeverTold: 0,
    slideMedian: 10,
  },
  heavy: {
    noise: 1,
    quietDayEmails: 0,
    holidayNoiseAfter: 0,
    holidaysWithoutHeadline: 0,
    stepsLate: 0,
    domainsDownMissed: 0,
    campaignsOverBudget: 0,
    campaignsNeverTold: 0,
  },
};

describe.each(LEVELS)(
  'alert quality at level %s (simulation, 8 seeds, default settings)',
  (level) => {
    const targets = TARGETS[level];
    let report: QualityReport;
    let misses: TargetMisses;
    beforeAll(() => {
      report = runQuality({ ...DEFAULT_OPTIONS, level });
      misses = targetMisses(report);
    });

    it('runs at least 8 seeds, and incidents of every shape', () => {
      expect(report.seeds.length).toBeGreaterThanOrEqual(8);
      for (const shape of report.shapes) expect(shape.incidents).toBeGreaterThanOrEqual(8);
    });

    it(`noise e-mails: at most ${targets.noise} per 60 days per network`, () => {
      expect(report.noiseEmailsPer60DaysPerNetwork).toBeLessThanOrEqual(targets.noise);
    });

    it(`e-mails on quiet days: target 0, at most ${targets.quietDayEmails} measured`, () => {
      expect(report.quietDays).toBeGreaterThan(0);
      expect(report.quietDayEmails).toBeLessThanOrEqual(targets.quietDayEmails);
    });

    it('a holiday: at most one e-mail, at most 3 pairs listed in it, a network headline', () => {
      expect(report.holidays.count).toBeGreaterThanOrEqual(40);
      expect(report.holidays.overOneEmail).toBe(0);
      expect(report.holidays.maxPairsListed).toBeLessThanOrEqual(3);
      expect(misses.holidaysWithoutHeadline).toBeLessThanOrEqual(targets.holidaysWithoutHeadline);
      expect(report.holidays.noiseAfter).toBeLessThanOrEqual(targets.holidayNoiseAfter);
    });

    it(`a step drop of 60% or more on >= 200 clicks a day: e-mailed within ${STEP_DAYS[level]} day(s)`, () => {
      const steps = stepDrops(report);
      expect(steps.length).toBeGreaterThanOrEqual(16);
      for (const incident of steps) expect(incident.delay).not.toBeNull();
      expect(misses.stepsLate).toBeLessThanOrEqual(targets.stepsLate);
    });

    it('a whole domain down: e-mailed on its first day, in one e-mail', () => {
      expect(misses.domainsDownMissed).toBeLessThanOrEqual(targets.domainsDownMissed);
    });

    it('a campaign that ends (a domain down 40% for good) is told at most once', () => {
      expect(misses.campaignsOverBudget).toBeLessThanOrEqual(targets.campaignsOverBudget);
    });

    it('a campaign that ends is told within the week the list shows it', () => {
      expect(misses.campaignsNeverTold).toBeLessThanOrEqual(targets.campaignsNeverTold);
    });

    it.runIf(targets.slideMedian !== undefined)(
      `a 6%-a-day slide (>= 500 clicks a day): median delay over the seeds at most ${targets.slideMedian}`,
      () => {
        expect(report.slide.perSeed).toHaveLength(report.seeds.length);
        expect(report.slide.median).not.toBeNull();
        expect(report.slide.median).toBeLessThanOrEqual(targets.slideMedian!);
      },
    );

    it.runIf(targets.smallBlocks === true)(
      `a block for good of 60% or more on 50-200 clicks a day: within ${SMALL_BLOCK_DAYS} days`,
      () => {
        expect(report.incidents.some((i) => i.shape === 'small-block')).toBe(true);
        expect(misses.smallBlocksLate).toBe(0);
      },
    );

    it.runIf(level === 'poisson')(
      'the earlier targets at poisson: budgets, clears on time, escalations worse on their first day',
      () => {
        // Per incident at most start, one reminder per renotifyAfterDays, clear (an escalation
        // one worse more); the slides aside (they flap: docs/alert-quality.md).
        expect(misses.overBudget).toBeLessThanOrEqual(targets.overBudget ?? 0);
        // An incident that ends is cleared at most clearAfterRuns runs after its last listed day.
        const ending = ['isp-filter', 'domain-down', 'low-volume', 'escalation'];
        for (const incident of report.incidents.filter((i) => ending.includes(i.shape))) {
          if (incident.clearLag !== null) expect(incident.clearLag).toBeLessThanOrEqual(2);
        }
        const escalations = report.incidents.filter(
          (i) => i.shape === 'escalation' && i.minVolume >= 500,
        );
        expect(escalations.length).toBeGreaterThanOrEqual(8);
        expect(misses.escalationsLate).toBeLessThanOrEqual(targets.escalationsLate ?? 0);
      },
    );
  },
);
