import { describe, expect, it } from 'vitest';
import { learnedStateAfter } from '../../src/monitor/learned-after.js';
import type { LearnedVariation } from '../../src/monitor/types.js';
import { SETTINGS, toldDomainDrop } from './fixtures.js';

const ASOF = '2026-03-10';
const VARIATION = { asOf: ASOF } as LearnedVariation;

describe('learnedStateAfter', () => {
  it('keeps today’s learning, leaving the memory lists out when empty', () => {
    const after = learnedStateAfter(
      undefined,
      {
        variation: VARIATION,
        known: [],
        drops: [],
        domainRuns: [],
        day30Share: undefined,
        networkLog7: undefined,
      },
      ASOF,
      SETTINGS,
    );
    expect(after).toEqual({
      variation: VARIATION,
      known: [],
      drops: [],
      day30Shares: after.day30Shares,
    });
  });

  it('remembers a domain’s deep drop as an outage and a level shift', () => {
    const drop = toldDomainDrop(ASOF, 80);
    const after = learnedStateAfter(
      undefined,
      {
        variation: VARIATION,
        known: [],
        drops: [drop],
        domainRuns: [],
        day30Share: undefined,
        networkLog7: undefined,
      },
      ASOF,
      SETTINGS,
    );
    expect(after.drops).toEqual([drop]);
    expect(after.outages?.map((o) => o.domainId)).toEqual([1]);
    expect(after.levelShifts).toEqual([{ domainId: 1, firstSeen: ASOF }]);
    expect(after.networkDips).toBeUndefined();
  });
});
