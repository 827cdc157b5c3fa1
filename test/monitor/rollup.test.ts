import { describe, expect, it } from 'vitest';
import { classifyPairs } from '../../src/monitor/classify.js';
import { isHeadline } from '../../src/monitor/rollup.js';
import type { Silence } from '../../src/monitor/types.js';
import { BELOW, CRIT, SETTINGS, WARN, entry, CHANCE } from './fixtures.js';

describe('isHeadline', () => {
  const table: [affected: number, listed: number, expected: boolean][] = [
    [2, 2, false],
    [3, 3, true],
    [3, 6, true],
    [3, 7, false],
    [10, 20, true],
    [10, 21, false],
  ];
  it.each(table)('%s affected of %s listed -> %s', (affected, listed, expected) => {
    expect(isHeadline(affected, listed)).toBe(expected);
  });
});

describe('domain roll-up', () => {
  it('groups by domain with totals, worst first, and marks the blocked domain', () => {
    const silence: Silence = {
      id: 'x',
      networkId: 'acme',
      isp: 'Silenced ISP',
      reason: 'r',
      createdAt: 0,
      expiresAt: 1,
    };
    const result = classifyPairs({
      asOf: '2026-03-01',
      entries: [
        entry(1, 'a', CRIT), // lost 800
        entry(1, 'b', CRIT),
        entry(1, 'c', WARN), // lost 300
        entry(1, 'd', BELOW), // listed, not alertable
        entry(2, 'a', WARN),
        entry(2, 'Silenced ISP', CRIT),
        entry(2, 'b', WARN),
        entry(2, 'c', WARN),
        entry(2, 'e', BELOW),
        entry(2, 'f', BELOW),
        entry(2, 'g', BELOW),
        entry(2, 'h', BELOW),
        entry(3, 'only', CRIT),
      ],
      active: [],
      settings: SETTINGS,
      silences: [silence],
      learned: CHANCE,
    });
    expect(result.domains).toEqual([
      {
        domainId: 1,
        domainUrl: 'https://d1.example',
        ispsAffected: 3,
        clicksLost: 1900,
        baselineClicks: 3000,
        headline: true,
      },
      {
        domainId: 2,
        domainUrl: 'https://d2.example',
        ispsAffected: 3,
        clicksLost: 900,
        baselineClicks: 3000,
        // 3 of 8 listed: a few ISPs, not the domain
        headline: false,
      },
      {
        domainId: 3,
        domainUrl: 'https://d3.example',
        ispsAffected: 1,
        clicksLost: 800,
        baselineClicks: 1000,
        headline: false,
      },
    ]);
  });

  it('a domain with only quiet or cleared pairs is listed with nothing affected', () => {
    const result = classifyPairs({
      asOf: '2026-03-02',
      entries: [],
      active: [
        {
          domainId: 4,
          isp: 'x',
          domainUrl: 'https://d4.example',
          firstSeen: '2026-03-01',
          lastSeen: '2026-03-01',
          lastNotified: '2026-03-01',
          notifiedSeverity: 'warning',
          quietRuns: 1,
          baseline: 100,
          yesterday: 10,
          dropPercent: 90,
        },
      ],
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    expect(result.domains).toEqual([
      {
        domainId: 4,
        domainUrl: 'https://d4.example',
        ispsAffected: 0,
        clicksLost: 0,
        baselineClicks: 0,
        headline: false,
      },
    ]);
  });
});
