import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { leftWithNetwork } from '../../src/monitor/with-network.js';

describe('leftWithNetwork', () => {
  const day = '2026-03-10';
  const network = { scope: 'network' as const, firstSeen: day, lastNotified: day };

  it("a card told on the network's dip day, down that day only, leaves with it", () => {
    expect(leftWithNetwork({ firstSeen: day, lastSeen: day }, [network])).toBe(true);
  });

  it('not a card still down on a later day: its own decline', () => {
    expect(leftWithNetwork({ firstSeen: day, lastSeen: addDays(day, 1) }, [network])).toBe(false);
  });

  it('not a card told on another day than the dip', () => {
    const before = addDays(day, -1);
    expect(leftWithNetwork({ firstSeen: before, lastSeen: before }, [network])).toBe(false);
  });

  it("not beside a domain's drop, nor a network dip only remembered (never told)", () => {
    const pair = { firstSeen: day, lastSeen: day };
    expect(leftWithNetwork(pair, [{ ...network, scope: 'domain' }])).toBe(false);
    expect(leftWithNetwork(pair, [{ ...network, lastNotified: undefined }])).toBe(false);
    expect(leftWithNetwork(pair, [])).toBe(false);
  });
});
