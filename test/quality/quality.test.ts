import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, runQuality, type QualityReport } from '../../bench/quality/simulate.js';

/**
 * The alert-quality targets (docs/alert-quality.md) on the simulation `npm run quality` runs:
 * default settings, the default 8 seeds. A change that brings noise back, or catches an incident
 * later, fails here.
 */
describe('alert quality (simulation, 8 seeds, default settings)', () => {
  let report: QualityReport;
  beforeAll(() => {
    report = runQuality(DEFAULT_OPTIONS);
  });

  it('runs at least 8 seeds, and incidents of every shape', () => {
    expect(report.seeds.length).toBeGreaterThanOrEqual(8);
    for (const shape of report.shapes) expect(shape.incidents).toBeGreaterThanOrEqual(8);
  });

  it('noise e-mails: at most 0.5 per 60 days per network', () => {
    expect(report.noiseEmailsPer60DaysPerNetwork).toBeLessThanOrEqual(0.5);
  });

  it('no e-mail on a quiet day', () => {
    expect(report.quietDays).toBeGreaterThan(0);
    expect(report.quietDayEmails).toBe(0);
  });

  it('a step drop of 60% or more on a pair of >= 200 clicks a day: e-mailed on its first day', () => {
    const steps = report.incidents.filter(
      (i) => (i.shape === 'isp-filter' || i.shape === 'permanent-block') && i.minVolume >= 200,
    );
    expect(steps.length).toBeGreaterThanOrEqual(16);
    for (const incident of steps) expect(incident).toMatchObject({ delay: 1 });
  });

  it('a whole domain down: e-mailed on its first day, in one e-mail', () => {
    const downs = report.incidents.filter((i) => i.shape === 'domain-down');
    for (const incident of downs) expect(incident).toMatchObject({ delay: 1, startEmails: 1 });
  });
});
