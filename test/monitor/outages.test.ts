import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { blindDomains, OUTAGE_MEMORY_DAYS, outagesAfter } from '../../src/monitor/outages.js';
import type { ActiveDrop } from '../../src/monitor/types.js';
import { SETTINGS, toldDomainDrop } from './fixtures.js';

const DAY = '2026-03-10';

function drop(
  domainId: number,
  dropPercent: number,
  overrides: Partial<ActiveDrop> = {},
): ActiveDrop {
  return toldDomainDrop(DAY, dropPercent, {
    domainId,
    domainUrl: `https://d${domainId}.example`,
    lastSeen: addDays(DAY, 1),
    ...overrides,
  });
}

describe('outagesAfter', () => {
  it("remembers a domain's drop of criticalDropPercent or more, as first and last seen", () => {
    expect(outagesAfter(undefined, [drop(7, 98)], addDays(DAY, 1), SETTINGS)).toEqual([
      { domainId: 7, firstSeen: DAY, lastSeen: addDays(DAY, 1) },
    ]);
  });

  it("not a shallower drop (a campaign's end lists its ISPs), nor the network's dip", () => {
    const network = drop(0, 98, { scope: 'network' });
    expect(outagesAfter(undefined, [drop(7, 40), network], DAY, SETTINGS)).toEqual([]);
  });

  it('keeps an outage after its drop has ended, for OUTAGE_MEMORY_DAYS after it was last seen', () => {
    const outage = { domainId: 7, firstSeen: DAY, lastSeen: addDays(DAY, 1) };
    const kept = addDays(outage.lastSeen, OUTAGE_MEMORY_DAYS);
    expect(outagesAfter([outage], [], kept, SETTINGS)).toEqual([outage]);
    expect(outagesAfter([outage], [], addDays(kept, 1), SETTINGS)).toEqual([]);
  });

  it('one per domain and first day: the drop seen again updates its last day', () => {
    const outage = { domainId: 7, firstSeen: DAY, lastSeen: DAY };
    const today = addDays(DAY, 1);
    expect(outagesAfter([outage], [drop(7, 97, { lastSeen: today })], today, SETTINGS)).toEqual([
      { ...outage, lastSeen: today },
    ]);
  });
});

describe('blindDomains', () => {
  // Seen as of DAY and the day after: the clicks of the two days before each (as-of dates).
  const outage = { domainId: 7, firstSeen: DAY, lastSeen: addDays(DAY, 1) };

  it('a domain whose day 7, 14 or 30 back lies inside a remembered outage', () => {
    for (const back of [7, 14, 30]) {
      expect(blindDomains([], [outage], addDays(DAY, back))).toEqual(new Set([7]));
      expect(blindDomains([], [outage], addDays(DAY, back + 1))).toEqual(new Set([7]));
    }
  });

  it('not on the days between: its comparison days are ordinary days', () => {
    for (const asOf of [addDays(DAY, 9), addDays(DAY, 20), addDays(DAY, 32)]) {
      expect(blindDomains([], [outage], asOf)).toEqual(new Set());
    }
  });

  it('an active drop of any depth whose day 7 or 14 back lies inside it (comparesInside)', () => {
    expect(blindDomains([drop(8, 40)], undefined, addDays(DAY, 7))).toEqual(new Set([8]));
    expect(blindDomains([drop(8, 40)], undefined, addDays(DAY, 30))).toEqual(new Set());
  });
});
