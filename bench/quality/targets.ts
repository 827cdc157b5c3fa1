import type { VariationLevel } from './model.js';
import type { IncidentResult, QualityReport } from './simulate.js';

/**
 * The alert-quality targets counted the way the test counts them (test/quality/quality.test.ts,
 * docs/alert-quality.md): how many incidents miss each target in one report. `npm run quality`
 * prints them per level, so a held-out seed set (`--seeds 9-40`) is read against the same
 * targets as the default seeds.
 */
export interface TargetMisses {
  /** Holidays e-mailed without saying the whole network dipped. */
  holidaysWithoutHeadline: number;
  /** Step drops of 60% or more (>= 200 clicks a day): how many, and how many told late. */
  steps: number;
  stepsLate: number;
  /** Whole domains down not told on their first day in one e-mail. */
  domainsDownMissed: number;
  /** Campaigns' ends told more than once or beyond their budget, and never told. */
  campaignsOverBudget: number;
  campaignsNeverTold: number;
  /** Blocks for good on 50-200 clicks a day told after SMALL_BLOCK_DAYS (or never). */
  smallBlocksLate: number;
  /** Incidents beyond their e-mail budget, the slides aside (a target at poisson). */
  overBudget: number;
  /** Escalations (>= 500 clicks a day) not told worse on their deeper drop's first day. */
  escalationsLate: number;
}

/** Days a step drop may take to be e-mailed, per level (the target). */
export const STEP_DAYS: Record<VariationLevel, number> = {
  poisson: 1,
  mild: 1,
  moderate: 1,
  heavy: 2,
};

/** Days a block for good on 50-200 clicks a day may take (a target at poisson and mild). */
export const SMALL_BLOCK_DAYS = 3;

/** Step drops the step target counts: a 60% filter or block on a pair of >= 200 clicks a day. */
export function stepDrops(report: QualityReport): IncidentResult[] {
  return report.incidents.filter(
    (i) => (i.shape === 'isp-filter' || i.shape === 'permanent-block') && i.minVolume >= 200,
  );
}

export function targetMisses(report: QualityReport): TargetMisses {
  const of = (shape: IncidentResult['shape']): IncidentResult[] =>
    report.incidents.filter((i) => i.shape === shape);
  const steps = stepDrops(report);
  const stepDays = STEP_DAYS[report.level];
  const campaigns = of('campaign-end');
  return {
    holidaysWithoutHeadline: report.holidays.emailed - report.holidays.networkHeadlines,
    steps: steps.length,
    stepsLate: steps.filter((i) => i.delay === null || i.delay > stepDays).length,
    domainsDownMissed: of('domain-down').filter((i) => i.delay !== 1 || i.startEmails !== 1).length,
    campaignsOverBudget: campaigns.filter((i) => i.startEmails > 1 || i.excess !== 0).length,
    campaignsNeverTold: campaigns.filter((i) => i.delay === null).length,
    smallBlocksLate: of('small-block').filter((i) => i.delay === null || i.delay > SMALL_BLOCK_DAYS)
      .length,
    overBudget: report.incidents.filter((i) => !i.shape.startsWith('slide') && i.excess > 0).length,
    escalationsLate: of('escalation').filter((i) => i.minVolume >= 500 && i.escalationDelay !== 1)
      .length,
  };
}

/** One line of the misses, for the printed summary. */
export function targetLine(report: QualityReport): string {
  const m = targetMisses(report);
  return (
    `  targets missed: holidays without headline ${m.holidaysWithoutHeadline}, ` +
    `steps late ${m.stepsLate} of ${m.steps} (> ${STEP_DAYS[report.level]} day), ` +
    `domains down ${m.domainsDownMissed}, campaign ends over budget ${m.campaignsOverBudget}, ` +
    `never told ${m.campaignsNeverTold}, small blocks late ${m.smallBlocksLate}, ` +
    `over budget ${m.overBudget}, escalations late ${m.escalationsLate}`
  );
}
