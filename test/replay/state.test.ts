import { describe, expect, it } from 'vitest';
import { listedEntries, SIM_DAYS } from '../../bench/quality/model.js';
import { DEFAULT_OPTIONS, seedNetworks } from '../../bench/quality/simulate.js';
import { alertsSchema } from '../../src/config/schema.js';
import { isoDateOfDay } from '../../src/dates.js';
import { decideTrafficRun, type DecisionState } from '../../src/monitor/decide.js';
import { pairKey } from '../../src/monitor/pair-key.js';
import { emptyState, stateAfter } from '../../src/replay/state.js';
import { decodeActive, encodeActive } from '../../src/store/active-codec.js';
import { learnedStateSchema } from '../../src/store/records.js';
import { decodeRuns, encodeRuns } from '../../src/store/runs-codec.js';

/** What the next run loads after a commit of `decision`: the store's codecs, both ways. */
function throughTheStore(state: DecisionState, decision: ReturnType<typeof decideTrafficRun>) {
  const history = decision.history!;
  return {
    active: decodeActive(encodeActive(history.upsert, history.added)),
    runs:
      history.runs || history.runsStarted
        ? decodeRuns(encodeRuns(history.runs ?? [], history.runsStarted))
        : state.runs,
    learned: history.learned
      ? learnedStateSchema.parse(JSON.parse(JSON.stringify(history.learned)))
      : state.learned,
  };
}

const byKey = <T extends { domainId: number; isp: string }>(list: readonly T[] | undefined) =>
  [...(list ?? [])].sort((a, b) =>
    pairKey(a.domainId, a.isp) < pairKey(b.domainId, b.isp) ? -1 : 1,
  );

describe('replay state', () => {
  it('carries from run to run what the store gives back, day after day', () => {
    const settings = alertsSchema.parse({});
    for (const network of seedNetworks(4, DEFAULT_OPTIONS).slice(0, 2)) {
      let replayed = emptyState();
      let stored = emptyState();
      for (let day = 1; day <= SIM_DAYS; day++) {
        const input = {
          networkId: 'net',
          asOf: isoDateOfDay(network.day0 + day),
          settings,
          hasPremium: true,
          // Half without the API's trend: their drops, from the totals, have many decimals.
          entries: listedEntries(network, day).map((e, i) =>
            i % 2 ? { ...e, yesterday_seven_days_ago_total_clicks_trend: null } : e,
          ),
          startedAt: 0,
          now: 0,
        };
        // Each from its own state (classification may update a state it owns in place).
        const a = decideTrafficRun({ ...input, state: replayed, stateOwned: true });
        const b = decideTrafficRun({ ...input, state: stored, stateOwned: true });
        expect(a.run.counts).toEqual(b.run.counts);
        replayed = stateAfter(replayed, a);
        stored = { ...emptyState(), ...throughTheStore(stored, b) };
        expect(byKey(replayed.active)).toEqual(byKey(stored.active));
        expect(byKey(replayed.runs)).toEqual(byKey(stored.runs));
        expect(replayed.learned).toEqual(stored.learned);
      }
      expect(replayed.active.length + replayed.runs!.length).toBeGreaterThan(0);
      expect(replayed.learned?.variation?.days).toBeGreaterThan(0);
    }
  });
});
