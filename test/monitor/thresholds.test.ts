import { describe, expect, it } from 'vitest';
import {
  countBySeverity,
  CRITICAL_MARGIN_Z,
  emptyMeasure,
  isClearlyCritical,
  isClearlyUnderCritical,
  measureEntryInto,
  severityAgainst,
  severityOf,
} from '../../src/monitor/thresholds.js';
import { entry, SETTINGS } from './fixtures.js';

describe('severity', () => {
  it('critical from criticalDropPercent on, warning below', () => {
    const critical = SETTINGS.criticalDropPercent;
    expect(severityOf(critical, SETTINGS)).toBe('critical');
    expect(severityOf(critical - 0.1, SETTINGS)).toBe('warning');
  });

  it('counts active pairs by the severity of their last numbers (status, metrics)', () => {
    const critical = SETTINGS.criticalDropPercent;
    expect(countBySeverity([critical, critical + 10, critical - 1, 20], SETTINGS)).toEqual({
      critical: 2,
      warning: 2,
    });
    expect(countBySeverity([], SETTINGS)).toEqual({ critical: 0, warning: 0 });
  });
});

describe('isClearlyCritical: worse only beyond criticalDropPercent by the noise margin', () => {
  // criticalDropPercent 50: yesterday must lie under half of days 7 AND 14 back by
  // CRITICAL_MARGIN_Z (1.5) sd, where half a count c has variance c / 4.
  const table: {
    name: string;
    yesterday: number;
    d7: number;
    d14: number;
    settings?: Partial<typeof SETTINGS>;
    expected: boolean;
  }[] = [
    {
      name: 'a block after a warning',
      yesterday: 100,
      d7: 1000,
      d14: 1000,
      expected: true,
    },
    {
      name: 'a weekend dip measured just over 50% (the case it exists for)',
      yesterday: 231,
      d7: 461,
      d14: 449,
      expected: false,
    },
    {
      name: 'over 50% against day 7 back only: the weaker week decides',
      yesterday: 300,
      d7: 1000,
      d14: 600,
      expected: false,
    },
    {
      // (500 - 440 - 1) / sqrt(0.5 x (1000 + 440)) = 2.20
      name: '56% of 1000: beyond the margin',
      yesterday: 440,
      d7: 1000,
      d14: 1000,
      expected: true,
    },
    {
      // (100 - 84 - 1) / sqrt(0.5 x (200 + 84)) = 1.26
      name: '58% of 200: within the margin',
      yesterday: 84,
      d7: 200,
      d14: 200,
      expected: false,
    },
    { name: 'zero baseline', yesterday: 0, d7: 0, d14: 0, expected: false },
    {
      // (2 - 0 - 1) / sqrt(0.5 x 4) = 0.71
      name: 'tiny: 4 to 0 is not yet certain',
      yesterday: 0,
      d7: 4,
      d14: 4,
      expected: false,
    },
    {
      // (5 - 0 - 1) / sqrt(0.5 x 10) = 1.79
      name: 'tiny: 10 to 0 is',
      yesterday: 0,
      d7: 10,
      d14: 10,
      expected: true,
    },
    {
      name: 'huge: 51% of a million',
      yesterday: 490_000,
      d7: 1_000_000,
      d14: 1_000_000,
      expected: true,
    },
    {
      name: 'minSignificance 0 (the noise test off): severity alone',
      yesterday: 84,
      d7: 200,
      d14: 200,
      settings: { minSignificance: 0 },
      expected: true,
    },
    {
      name: 'criticalDropPercent 100: no room for a margin, severity alone',
      yesterday: 0,
      d7: 3,
      d14: 3,
      settings: { criticalDropPercent: 100 },
      expected: true,
    },
    {
      // keep 0.3: (300 - 200 - 1) / sqrt(0.3 x (1000 + 200)) = 5.2
      name: 'criticalDropPercent 70',
      yesterday: 200,
      d7: 1000,
      d14: 1000,
      settings: { criticalDropPercent: 70 },
      expected: true,
    },
  ];
  it.each(table)('$name', ({ yesterday, d7, d14, settings, expected }) => {
    expect(isClearlyCritical({ yesterday, d7, d14 }, { ...SETTINGS, ...settings })).toBe(expected);
  });

  it('the edge: 1.52 sd is clearly critical, 1.48 is not', () => {
    // (500 - 458 - 1) / sqrt(0.5 x 1458) = 1.52; (500 - 459 - 1) / sqrt(0.5 x 1459) = 1.48
    const at = (yesterday: number) =>
      isClearlyCritical({ yesterday, d7: 1000, d14: 1000 }, SETTINGS);
    expect(CRITICAL_MARGIN_Z).toBe(1.5);
    expect(at(458)).toBe(true);
    expect(at(459)).toBe(false);
  });

  it('against the learned variation too: a large pair needs more than chance', () => {
    // 1000 -> 400 is far below half by chance, but with 15% daily variation ln(500/400) is
    // within 1.5 sd of it.
    const counts = { yesterday: 400, d7: 1000, d14: 1000 };
    expect(isClearlyCritical(counts, SETTINGS)).toBe(true);
    expect(isClearlyCritical(counts, SETTINGS, { extra: 0.0225, share7: 1, share14: 1 })).toBe(
      false,
    );
    expect(
      isClearlyCritical({ ...counts, yesterday: 100 }, SETTINGS, {
        extra: 0.0225,
        share7: 1,
        share14: 1,
      }),
    ).toBe(true);
  });
});

describe('severityAgainst: a drop beside a common move is told by what the pair lost beyond it', () => {
  // An escalation's first 30% on a holiday that took 43% of the network: 418 clicks against
  // 981 and 936 reads 57%, but against what the holiday left (0.573 and 0.576 of them) 26%.
  const holiday = { extra: 0, share7: 0.573, share14: 0.576 };
  const escalation = { yesterday: 418, d7: 981, d14: 936 };

  it('a warning when its own part is clearly under criticalDropPercent', () => {
    // Half of 0.573 x 981 = 281 lies under 418: (418 / 0.2865 - 981 - 1) / sqrt(3.49 x 1399) = 6.8.
    expect(isClearlyUnderCritical(escalation, SETTINGS, holiday)).toBe(true);
    expect(severityAgainst(escalation, 57.4, SETTINGS, holiday)).toBe('warning');
  });

  it('critical as listed when its own part could still be critical', () => {
    // A step drop of a smaller pair: 71 against half of 0.715 x 167 = 60 is 1.2 sd above it.
    const step = { yesterday: 71, d7: 167, d14: 193 };
    const dip = { extra: 0, share7: 0.715, share14: 0.779 };
    expect(isClearlyUnderCritical(step, SETTINGS, dip)).toBe(false);
    expect(severityAgainst(step, 57.5, SETTINGS, dip)).toBe('critical');
  });

  it('against the learned variation too: a large pair needs more than chance', () => {
    // ln(418 / 281) = 0.40 against a 20% daily variation on both days, with chance: 1.37 sd.
    expect(isClearlyUnderCritical(escalation, SETTINGS, { ...holiday, extra: 0.04 })).toBe(false);
    expect(severityAgainst(escalation, 57.4, SETTINGS, { ...holiday, extra: 0.04 })).toBe(
      'critical',
    );
  });

  it('as listed without a common move, with the noise test off, or a warning already', () => {
    const none = { extra: 0, share7: 1, share14: 1 };
    expect(severityAgainst(escalation, 57.4, SETTINGS, none)).toBe('critical');
    expect(severityAgainst(escalation, 57.4, { ...SETTINGS, minSignificance: 0 }, holiday)).toBe(
      'critical',
    );
    expect(isClearlyUnderCritical(escalation, { ...SETTINGS, minSignificance: 0 }, holiday)).toBe(
      false,
    );
    expect(severityAgainst({ ...escalation, yesterday: 600 }, 38.8, SETTINGS, holiday)).toBe(
      'warning',
    );
  });

  it('is the severity a listed pair is measured with; its drop in percent stays as listed', () => {
    const listed = entry(1, 'isp', { yesterday: 418, baseline: 981 });
    const today = measureEntryInto(emptyMeasure(), listed, SETTINGS, holiday);
    expect(today.dropPercent).toBeCloseTo(57.4, 1);
    expect(today.severity).toBe('warning');
    expect(measureEntryInto(emptyMeasure(), listed, SETTINGS).severity).toBe('critical');
  });
});
