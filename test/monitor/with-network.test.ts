import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { leftWithNetwork } from '../../src/monitor/with-network.js';

describe('leftWithNetwork', () => {
  const day = '2026-03-10';
  const network = { scope: 'network' as const, firstSeen: day, lastNotified: day };
  const later = addDays(day, 2);

  it("a card told on the network's dip day, down that day only, leaves with it", () => {
    expect(leftWithNetwork({ firstSeen: day, lastSeen: day, lastNotified: day }, [network])).toBe(
      true,
    );
  });

  it('not a card down beyond noise on a later day: its own decline', () => {
    const pair = { firstSeen: day, lastSeen: later, lastNotified: day };
    expect(leftWithNetwork(pair, [network])).toBe(false);
    expect(leftWithNetwork(pair, [network], false)).toBe(false);
  });

  it('a card down on later days within noise, never e-mailed again: its way back from the dip', () => {
    const pair = { firstSeen: day, lastSeen: later, lastNotified: day };
    expect(leftWithNetwork(pair, [network], true)).toBe(true);
  });

  it('not a card e-mailed again after the dip (worse, or a reminder): told as its own', () => {
    const pair = { firstSeen: day, lastSeen: later, lastNotified: addDays(day, 1) };
    expect(leftWithNetwork(pair, [network], true)).toBe(false);
  });

  it('not a card told on another day than the dip', () => {
    const before = addDays(day, -1);
    const pair = { firstSeen: before, lastSeen: before, lastNotified: before };
    expect(leftWithNetwork(pair, [network])).toBe(false);
    expect(leftWithNetwork(pair, [network], true)).toBe(false);
  });

  it("not beside a domain's drop, nor a network dip only remembered (never told)", () => {
    const pair = { firstSeen: day, lastSeen: day, lastNotified: day };
    expect(leftWithNetwork(pair, [{ ...network, scope: 'domain' }])).toBe(false);
    expect(leftWithNetwork(pair, [{ ...network, lastNotified: undefined }])).toBe(false);
    expect(leftWithNetwork(pair, [])).toBe(false);
  });
});
