import { beforeAll, describe, expect, it } from 'vitest';
import { LEVELS, type VariationLevel } from '../../bench/quality/model.js';
import {
  DEFAULT_OPTIONS,
  runQuality,
  type IncidentResult,
  type QualityReport,
} from '../../bench/quality/simulate.js';

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
  /** Days a step drop of 60% or more (>= 200 clicks a day) may take to be e-mailed. */
  stepDays: number;
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
  /** Days a block for good of 60% or more on 50-200 clicks a day may take (poisson, mild). */
  smallBlockDays?: number;
}

// Measured on seeds 1-8 where a target is not met (docs/alert-quality.md, "What is not met").
const TARGETS: Record<VariationLevel, LevelTargets> = {
  // A campaign's end told twice.
  poisson: {
    noise: 0.5,
    quietDayEmails: 0,
    holidayNoiseAfter: 0,
    holidaysWithoutHeadline: 0,
    stepDays: 1,
    stepsLate: 0,
    domainsDownMissed: 0,
    campaignsOverBudget: 1,
    campaignsNeverTold: 0,
    overBudget: 1,
    escalationsLate: 0,
    slideMedian: 4,
    smallBlockDays: 3,
  },
  mild: {
    noise: 0.5,
    quietDayEmails: 0,
    holidayNoiseAfter: 0,
    holidaysWithoutHeadline: 0,
    stepDays: 1,
    stepsLate: 0,
    domainsDownMissed: 0,
    campaignsOverBudget: 0,
    campaignsNeverTold: 0,
    smallBlockDays: 3,
  },
  moderate: {
    noise: 0.5,
    quietDayEmails: 0,
    holidayNoiseAfter: 0,
    holidaysWithoutHeadline: 0,
    stepDays: 1,
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
    stepDays: 2,
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
    const of = (...shapes: string[]): IncidentResult[] =>
      report.incidents.filter((i) => shapes.includes(i.shape));
    beforeAll(() => {
      report = runQuality({ ...DEFAULT_OPTIONS, level });
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
      expect(report.holidays.emailed - report.holidays.networkHeadlines).toBeLessThanOrEqual(
        targets.holidaysWithoutHeadline,
      );
      expect(report.holidays.noiseAfter).toBeLessThanOrEqual(targets.holidayNoiseAfter);
    });

    it(`a step drop of 60% or more on >= 200 clicks a day: e-mailed within ${targets.stepDays} day(s)`, () => {
      const steps = of('isp-filter', 'permanent-block').filter((i) => i.minVolume >= 200);
      expect(steps.length).toBeGreaterThanOrEqual(16);
      for (const incident of steps) expect(incident.delay).not.toBeNull();
      const late = steps.filter((i) => i.delay! > targets.stepDays);
      expect(late.length).toBeLessThanOrEqual(targets.stepsLate);
    });

    it('a whole domain down: e-mailed on its first day, in one e-mail', () => {
      const missed = of('domain-down').filter((i) => i.delay !== 1 || i.startEmails !== 1);
      expect(missed.length).toBeLessThanOrEqual(targets.domainsDownMissed);
    });

    it('a campaign that ends (a domain down 40% for good) is told at most once', () => {
      const over = of('campaign-end').filter((i) => i.startEmails > 1 || i.excess !== 0);
      expect(over.length).toBeLessThanOrEqual(targets.campaignsOverBudget);
    });

    it('a campaign that ends is told within the week the list shows it', () => {
      const never = of('campaign-end').filter((i) => i.delay === null);
      expect(never.length).toBeLessThanOrEqual(targets.campaignsNeverTold);
    });

    it.runIf(targets.slideMedian !== undefined)(
      `a 6%-a-day slide (>= 500 clicks a day): median delay over the seeds at most ${targets.slideMedian}`,
      () => {
        expect(report.slide.perSeed).toHaveLength(report.seeds.length);
        expect(report.slide.median).not.toBeNull();
        expect(report.slide.median).toBeLessThanOrEqual(targets.slideMedian!);
      },
    );

    it.runIf(targets.smallBlockDays !== undefined)(
      `a block for good of 60% or more on 50-200 clicks a day: within ${targets.smallBlockDays} days`,
      () => {
        for (const incident of of('small-block')) {
          expect(incident.delay).not.toBeNull();
          expect(incident.delay).toBeLessThanOrEqual(targets.smallBlockDays!);
        }
      },
    );

    it.runIf(level === 'poisson')(
      'the earlier targets at poisson: budgets, clears on time, escalations worse on their first day',
      () => {
        // Per incident at most start, one reminder per renotifyAfterDays, clear (an escalation
        // one worse more); the slides aside (they flap: docs/alert-quality.md).
        const over = report.incidents.filter((i) => !i.shape.startsWith('slide') && i.excess > 0);
        expect(over.length).toBeLessThanOrEqual(targets.overBudget ?? 0);
        // An incident that ends is cleared at most clearAfterRuns runs after its last listed day.
        for (const incident of of('isp-filter', 'domain-down', 'low-volume', 'escalation')) {
          if (incident.clearLag !== null) expect(incident.clearLag).toBeLessThanOrEqual(2);
        }
        const escalations = of('escalation').filter((i) => i.minVolume >= 500);
        expect(escalations.length).toBeGreaterThanOrEqual(8);
        const late = escalations.filter((i) => i.escalationDelay !== 1);
        expect(late.length).toBeLessThanOrEqual(targets.escalationsLate ?? 0);
      },
    );
  },
);
