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

  it('a 6%-a-day slide (pairs of >= 500 clicks a day): e-mailed within 4 days, median over the seeds', () => {
    expect(report.slide.perSeed).toHaveLength(report.seeds.length);
    expect(report.slide.median).not.toBeNull();
    expect(report.slide.median).toBeLessThanOrEqual(4);
  });

  it('per incident at most: start, one reminder per renotifyAfterDays, clear (every shape)', () => {
    // An escalation may add one worse e-mail: its deeper drop is news.
    expect(report.incidents.length).toBeGreaterThanOrEqual(8 * 16);
    for (const incident of report.incidents) expect(incident).toMatchObject({ excess: 0 });
  });

  it('an incident that ends is cleared at most clearAfterRuns runs after its last listed day', () => {
    // Held runs (monitor/hold.ts) must not keep a step drop, an outage or a block active longer.
    const ending = report.incidents.filter((i) => !i.shape.startsWith('slide'));
    expect(ending.filter((i) => i.clearLag !== null).length).toBeGreaterThanOrEqual(6 * 16);
    for (const incident of ending) {
      if (incident.clearLag !== null) expect(incident.clearLag).toBeLessThanOrEqual(2);
    }
  });

  it('an escalation to critical (pairs of >= 500 clicks a day): worse on its first day', () => {
    const escalations = report.incidents.filter(
      (i) => i.shape === 'escalation' && i.minVolume >= 500,
    );
    expect(escalations.length).toBeGreaterThanOrEqual(8);
    for (const incident of escalations) expect(incident).toMatchObject({ escalationDelay: 1 });
  });
});
