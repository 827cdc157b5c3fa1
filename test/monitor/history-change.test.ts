import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { classifyPairs } from '../../src/monitor/classify.js';
import { historyAfter, runsAfter, startedRun } from '../../src/monitor/history-change.js';
import { pairEvent, pairKey } from '../../src/monitor/pair-key.js';
import type { ActivePair, IspTrend, WatchedRun } from '../../src/monitor/types.js';
import { encodeActive } from '../../src/store/active-codec.js';
import { encodeRuns } from '../../src/store/runs-codec.js';
import { BELOW, CRIT, SETTINGS, WARN, entry, CHANCE } from './fixtures.js';

const DAY = '2026-03-02';

/** The entry with days 14 and 30 back apart from day 7 (the fixture makes them equal). */
const apart = (e: IspTrend, by: number): IspTrend => ({
  ...e,
  fourteen_days_ago_total_clicks: e.seven_days_ago_total_clicks + by,
  thirty_days_ago_total_clicks: e.seven_days_ago_total_clicks + 2 * by,
});

const classify = (
  entries: IspTrend[],
  active: ActivePair[] = [],
  runs: WatchedRun[] = [],
  asOf = DAY,
) =>
  classifyPairs({ asOf, entries, active, runs, settings: SETTINGS, silences: [], learned: CHANCE });

describe('what begins in a run (HistoryChange: added, runsStarted)', () => {
  it('a first day builds no history record and no run object: the pairs and entries stand for them', () => {
    const entries = [
      entry(1, 'a', WARN),
      entry(1, 'b', CRIT),
      entry(2, 'c', WARN),
      entry(2, 'below', BELOW),
    ];
    const result = classify(entries);
    expect(result.counts.new).toBe(3);
    expect(result.changes.upsert).toEqual([]);
    expect(result.changes.runs).toEqual([]);
    expect(result.changes.added?.map((p) => p.isp)).toEqual(['a', 'b', 'c']);
    // A run of one day has nothing to show: the new pairs carry none.
    expect(result.pairs.every((p) => p.run === undefined)).toBe(true);
    // The listed pair under the thresholds begins a run too (it has evidence of its own).
    expect(result.changes.runsStarted?.entries.map((e) => e.isp)).toEqual(['a', 'b', 'c', 'below']);

    expect(historyAfter(result.changes)).toEqual([
      {
        domainId: 1,
        isp: 'a',
        domainUrl: 'https://d1.example',
        firstSeen: DAY,
        lastSeen: DAY,
        lastNotified: DAY,
        notifiedSeverity: 'warning',
        quietRuns: 0,
        baseline: 1000,
        yesterday: 700,
        dropPercent: 30,
        quietAsOf: undefined,
      },
      expect.objectContaining({ isp: 'b', notifiedSeverity: 'critical', dropPercent: 80 }),
      expect.objectContaining({ domainId: 2, isp: 'c', domainUrl: 'https://d2.example' }),
    ]);
    expect(runsAfter(result.changes)).toEqual(
      entries.map((e) => ({
        domainId: e.network_tracking_domain_id,
        isp: e.isp,
        since: DAY,
        last: DAY,
        days: 1,
        clicks: e.yesterday_total_clicks,
        d7: e.seven_days_ago_total_clicks,
        d14: e.fourteen_days_ago_total_clicks,
      })),
    );
  });

  it('the next day goes on from them as from objects: ongoing pairs, runs of two days', () => {
    const entries = [entry(1, 'a', WARN), entry(1, 'below', BELOW)];
    const day1 = classify(entries);
    const day2 = classify(
      entries,
      historyAfter(day1.changes),
      runsAfter(day1.changes),
      addDays(DAY, 1),
    );
    expect(day2.counts).toMatchObject({ new: 0, ongoing: 1 });
    expect(day2.changes.added).toEqual([]);
    expect(day2.changes.runsStarted?.entries).toEqual([]);
    expect(historyAfter(day2.changes)).toEqual([
      expect.objectContaining({ isp: 'a', firstSeen: DAY, lastSeen: addDays(DAY, 1) }),
    ]);
    expect(runsAfter(day2.changes)).toEqual([
      expect.objectContaining({ isp: 'a', since: DAY, last: addDays(DAY, 1), days: 2 }),
      expect.objectContaining({ isp: 'below', since: DAY, last: addDays(DAY, 1), days: 2 }),
    ]);
  });

  it('a pair with history whose run begins today gets its run as an object (holding reads it)', () => {
    const day1 = classify([entry(1, 'a', WARN)]);
    // Not listed on day 2: its run ends; listed under the thresholds on day 3, a new run begins.
    const day2 = classify([], historyAfter(day1.changes), runsAfter(day1.changes), addDays(DAY, 1));
    const day3 = classify(
      [entry(1, 'a', BELOW)],
      historyAfter(day2.changes),
      runsAfter(day2.changes),
      addDays(DAY, 2),
    );
    expect(day3.changes.runsStarted?.entries).toEqual([]);
    expect(day3.changes.runs).toEqual([
      expect.objectContaining({ isp: 'a', since: addDays(DAY, 2), days: 1 }),
    ]);
  });

  it('a pair without history whose run had a gap begins a new one, from its entry', () => {
    const below = entry(1, 'below', BELOW);
    const day1 = classify([below]);
    const day3 = classify([below], [], runsAfter(day1.changes), addDays(DAY, 2));
    expect(day3.changes.runs).toEqual([]);
    expect(runsAfter(day3.changes)).toEqual([startedRun(below, addDays(DAY, 2))]);
  });

  it("the store's encoders write the same bytes as for the objects they stand for", () => {
    const odd = ['a:b "quoted"\n<script>', 'Ünïcödé 🚀', '', 'plain'];
    const day1 = classify(
      odd.flatMap((isp, i) => [entry(1 + (i % 3), isp, WARN), entry(7, `${isp}|x`, BELOW)]),
    );
    const today = [
      ...odd.map((isp, i) => entry(1 + (i % 3), isp, i % 2 === 0 ? CRIT : BELOW)),
      entry(2, 'fresh', WARN),
      entry(9, 'fresh too', CRIT),
      entry(7, 'new below', BELOW),
    ].map((e, i) => apart(e, 3 + i));
    const day2 = classify(
      today,
      historyAfter(day1.changes),
      runsAfter(day1.changes),
      addDays(DAY, 1),
    );
    const change = day2.changes;
    // Some of each: carried over and begun today, pairs and runs.
    expect(change.upsert.length).toBeGreaterThan(0);
    expect(change.added?.length).toBe(2);
    expect(change.runs?.length).toBeGreaterThan(0);
    expect(change.runsStarted?.entries.length).toBeGreaterThan(0);

    const active = encodeActive(change.upsert, change.added);
    expect(active.toString('utf8')).toBe(encodeActive(historyAfter(change)).toString('utf8'));
    const runs = encodeRuns(change.runs ?? [], change.runsStarted);
    expect(runs.toString('utf8')).toBe(encodeRuns(runsAfter(change) ?? []).toString('utf8'));
  });
});

describe('pairEvent', () => {
  it('is the class, a bar, and the pair key, for any ISP and domain id', () => {
    // Latin-1 and beyond (made another way), longer than the event buffer, odd ids.
    const isps = ['Comcast', 'a:b:c', '', 'Télé2 ÿ', 'Ünïcödé 🚀', 'x|y', '  ', 'L'.repeat(5000)];
    for (const domainId of [0, 7, 123456, 2 ** 31, 2 ** 53 - 1, 2 ** 53, -4, 1.5, Number.NaN]) {
      for (const isp of isps) {
        for (const pairClass of ['new', 'worse', 'reminder', 'cleared']) {
          expect(pairEvent(pairClass, domainId, isp)).toBe(
            `${pairClass}|${pairKey(domainId, isp)}`,
          );
        }
      }
    }
  });
});
