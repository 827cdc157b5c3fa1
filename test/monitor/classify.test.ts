import { pairFigures } from '../../src/monitor/figures.js';
import { significanceOf } from '../../src/monitor/significance.js';
import { describe, expect, it } from 'vitest';
import {
  classifyPairs,
  isEmailedClass,
  parsePairKey,
  pairKey,
} from '../../src/monitor/classify.js';
import { addDays, dayNumber } from '../../src/dates.js';
import { ispHash } from '../../src/monitor/known-isps.js';
import { historyAfter, runsAfter } from '../../src/monitor/history-change.js';
import type {
  ActiveDrop,
  ActivePair,
  ClassifiedPair,
  Classification,
  IspTrend,
  LearnedState,
  PairClass,
  Silence,
  WatchedRun,
} from '../../src/monitor/types.js';
import { PAIR_CLASSES } from '../../src/monitor/types.js';
import type { AlertSettings } from '../../src/monitor/alert-settings.js';
import { BELOW, CRIT, SETTINGS, WARN, entry, CHANCE } from './fixtures.js';

const keyOf = (p: ClassifiedPair): string => pairKey(p.domainId, p.isp);

const DAY1 = '2026-03-01';

/** One day of a one-pair story: its state in today's list, and whether a silence covers it. */
type DayState = 'warn' | 'crit' | 'below' | 'absent';
interface Day {
  state: DayState;
  silenced?: boolean;
}

const FIGURES = { warn: WARN, crit: CRIT, below: BELOW } as const;
const DOMAIN = 7;
const ISP = 'Comcast';
const KEY = pairKey(DOMAIN, ISP);

function silenceFor(domainId: number): Silence {
  return {
    id: 'abcd1234',
    networkId: 'acme',
    domainId,
    reason: 'test',
    createdAt: 0,
    expiresAt: Number.MAX_SAFE_INTEGER,
  };
}

/** Runs a story day by day, threading the history; returns each day's classification. */
function story(
  days: readonly (Day | DayState)[],
  settings: AlertSettings = SETTINGS,
): { results: Classification[]; history: ActivePair[] } {
  let history: ActivePair[] = [];
  const results: Classification[] = [];
  days.forEach((d, i) => {
    const day = typeof d === 'string' ? { state: d } : d;
    const entries = day.state === 'absent' ? [] : [entry(DOMAIN, ISP, FIGURES[day.state])];
    const result = classifyPairs({
      asOf: addDays(DAY1, i),
      entries,
      active: history,
      settings,
      silences: day.silenced ? [silenceFor(DOMAIN)] : [],
      learned: CHANCE,
    });
    results.push(result);
    history = applyChanges(history, result);
  });
  return { results, history };
}

function applyChanges(history: readonly ActivePair[], result: Classification): ActivePair[] {
  const next = new Set(historyAfter(result.changes).map((p) => pairKey(p.domainId, p.isp)));
  expect(next.size).toBe(historyAfter(result.changes).length);
  for (const key of result.changes.remove) expect(next.has(key)).toBe(false);
  // `upsert` is the whole history after the run: nothing of the old history is carried over.
  for (const { domainId, isp } of history) {
    const key = pairKey(domainId, isp);
    expect(next.has(key) || result.changes.remove.includes(key)).toBe(true);
  }
  return historyAfter(result.changes);
}

function classesOf(results: Classification[]): (PairClass | '-')[] {
  return results.map((r) => {
    expect(r.pairs.length).toBeLessThanOrEqual(1);
    return r.pairs[0]?.class ?? '-';
  });
}

const S = (state: DayState): Day => ({ state, silenced: true });
const repeat = <const T>(n: number, v: T): T[] => Array.from({ length: n }, () => v);

describe('classifyPairs: lifecycle transitions of one pair', () => {
  const table: {
    name: string;
    days: (Day | DayState)[];
    expected: (PairClass | '-')[];
    settings?: Partial<AlertSettings>;
  }[] = [
    { name: 'new, then ongoing', days: ['warn', 'warn'], expected: ['new', 'ongoing'] },
    { name: 'critical from the start', days: ['crit', 'crit'], expected: ['new', 'ongoing'] },
    {
      name: 'worse when warning rises to critical',
      days: ['warn', 'crit', 'crit'],
      expected: ['new', 'worse', 'ongoing'],
    },
    {
      name: 'not worse when it was e-mailed as critical and dipped to warning',
      days: ['crit', 'warn', 'crit'],
      expected: ['new', 'ongoing', 'ongoing'],
    },
    {
      name: 'worse after a quiet run',
      days: ['warn', 'absent', 'crit'],
      expected: ['new', 'ongoing', 'worse'],
    },
    {
      name: 'reminder renotifyAfterDays after the last e-mail, then ongoing again',
      days: repeat(10, 'warn'),
      expected: ['new', ...repeat(6, 'ongoing'), 'reminder', 'ongoing', 'ongoing'],
    },
    {
      name: 'reminder at a lower severity re-arms worse',
      days: ['crit', ...repeat(7, 'warn'), 'crit'],
      expected: ['new', ...repeat(6, 'ongoing'), 'reminder', 'worse'],
    },
    {
      name: 'renotifyAfterDays 0: never a reminder',
      days: repeat(12, 'warn'),
      expected: ['new', ...repeat(11, 'ongoing')],
      settings: { renotifyAfterDays: 0 },
    },
    {
      name: 'no reminder on a quiet run even when due',
      days: ['warn', ...repeat(6, 'warn'), 'absent'],
      expected: ['new', ...repeat(6, 'ongoing'), 'ongoing'],
    },
    {
      name: 'clears after clearAfterRuns (2) quiet runs; a re-decline is new',
      days: ['warn', 'absent', 'absent', 'warn'],
      expected: ['new', 'ongoing', 'cleared', 'new'],
    },
    {
      name: 'clearAfterRuns 1: the first quiet run clears',
      days: ['warn', 'absent', 'warn'],
      expected: ['new', 'cleared', 'new'],
      settings: { clearAfterRuns: 1 },
    },
    {
      name: 'clearAfterRuns 3',
      days: ['warn', 'absent', 'absent', 'absent'],
      expected: ['new', 'ongoing', 'ongoing', 'cleared'],
      settings: { clearAfterRuns: 3 },
    },
    {
      name: 'listed under the thresholds counts as quiet',
      days: ['warn', 'below', 'below'],
      expected: ['new', 'ongoing', 'cleared'],
    },
    {
      name: 'flapping pair stays active and quiet (no new/cleared pair of e-mails)',
      days: ['warn', 'absent', 'warn', 'absent', 'warn', 'absent', 'absent'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'ongoing', 'ongoing', 'cleared'],
    },
    {
      name: 'quiet runs must be in a row',
      days: ['warn', 'below', 'warn', 'below', 'absent'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'cleared'],
    },
    {
      name: 'listed under the thresholds and never active: no class',
      days: ['below', 'absent', 'below'],
      expected: ['-', '-', '-'],
    },
    {
      name: 'silenced new pair is not remembered: new when the silence ends',
      days: [S('warn'), S('warn'), 'warn', 'warn'],
      expected: ['silenced', 'silenced', 'new', 'ongoing'],
    },
    {
      name: 'silenced active pair is tracked and resumes as worse',
      days: ['warn', S('warn'), S('crit'), 'crit'],
      expected: ['new', 'silenced', 'silenced', 'worse'],
    },
    {
      name: 'silenced active pair clears silently; a later decline is new',
      days: ['warn', S('absent'), S('absent'), 'warn'],
      expected: ['new', 'silenced', 'silenced', 'new'],
    },
    {
      name: 'silenced active pair resumes with a due reminder',
      days: ['warn', ...repeat(7, S('warn')), 'warn'],
      expected: ['new', ...repeat(7, 'silenced'), 'reminder'],
    },
    {
      name: 'silence over a quiet run keeps the quiet count going',
      days: ['warn', S('absent'), 'absent'],
      expected: ['new', 'silenced', 'cleared'],
    },
    {
      name: 'silenced pair under the thresholds and not active: no class',
      days: [S('below')],
      expected: ['-'],
    },
  ];

  it.each(table)('$name', ({ days, expected, settings }) => {
    const { results } = story(days, { ...SETTINGS, ...settings });
    expect(classesOf(results)).toEqual(expected);
  });

  it('a silenced pair never changes lastNotified / notifiedSeverity', () => {
    const { history } = story(['warn', S('crit'), S('crit')]);
    const pair = history.find((p) => pairKey(p.domainId, p.isp) === KEY);
    expect(pair).toMatchObject({
      lastNotified: DAY1,
      notifiedSeverity: 'warning',
      lastSeen: addDays(DAY1, 2),
      dropPercent: 80,
    });
  });

  it('keeps firstSeen through the episode and resets it after a clear', () => {
    const { results, history } = story(['warn', 'warn', 'absent', 'absent', 'warn']);
    expect(results[1]?.pairs[0]?.firstSeen).toBe(DAY1);
    expect(results[2]?.pairs[0]).toMatchObject({ firstSeen: DAY1, quietRuns: 1, class: 'ongoing' });
    expect(history.find((p) => pairKey(p.domainId, p.isp) === KEY)?.firstSeen).toBe(
      addDays(DAY1, 4),
    );
  });

  it('remembers the last alertable numbers through quiet runs', () => {
    const { history } = story(['crit', 'below']);
    expect(history.find((p) => pairKey(p.domainId, p.isp) === KEY)).toMatchObject({
      baseline: 1000,
      yesterday: 200,
      dropPercent: 80,
      lastSeen: DAY1,
      quietRuns: 1,
      quietAsOf: addDays(DAY1, 1),
    });
  });
});

describe('classifyPairs: re-running the same as-of date (force)', () => {
  it('does not count the same quiet date twice', () => {
    const first = classifyPairs({
      asOf: DAY1,
      entries: [entry(DOMAIN, ISP, WARN)],
      active: [],
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    let history = applyChanges([], first);
    const day2 = addDays(DAY1, 1);
    const quiet = { asOf: day2, entries: [], settings: SETTINGS, silences: [], learned: CHANCE };
    const a = classifyPairs({ ...quiet, active: history });
    history = applyChanges(history, a);
    const again = classifyPairs({ ...quiet, active: history });
    expect(again.pairs[0]).toMatchObject({ class: 'ongoing', quietRuns: 1 });
    history = applyChanges(history, again);
    const day3 = classifyPairs({ ...quiet, asOf: addDays(DAY1, 2), active: history });
    expect(day3.pairs[0]?.class).toBe('cleared');
  });

  it('a re-run of the day a pair was new classifies it ongoing (the history stands)', () => {
    const input = {
      asOf: DAY1,
      entries: [entry(DOMAIN, ISP, WARN)],
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    };
    const first = classifyPairs({ ...input, active: [] });
    const again = classifyPairs({ ...input, active: applyChanges([], first) });
    expect(again.pairs[0]?.class).toBe('ongoing');
  });
});

function classifyToday(entries: IspTrend[], settings: AlertSettings = SETTINGS) {
  return classifyPairs({
    asOf: DAY1,
    entries,
    active: [],
    settings,
    silences: [],
    learned: CHANCE,
  });
}

describe('classifyPairs: numbers', () => {
  const table: {
    name: string;
    baseline: number;
    yesterday: number;
    trend?: number | null | 'absent';
    dropPercent: number;
    alertable: boolean;
    severity?: 'warning' | 'critical';
  }[] = [
    {
      name: 'trend used as sent',
      baseline: 1000,
      yesterday: 700,
      trend: -33,
      dropPercent: 33,
      alertable: true,
      severity: 'warning',
    },
    {
      name: 'trend missing: from totals',
      baseline: 1000,
      yesterday: 400,
      trend: 'absent',
      dropPercent: 60,
      alertable: true,
      severity: 'critical',
    },
    {
      name: 'trend null: from totals',
      baseline: 1000,
      yesterday: 700,
      trend: null,
      dropPercent: 30,
      alertable: true,
    },
    {
      name: 'trend NaN: from totals',
      baseline: 1000,
      yesterday: 700,
      trend: Number.NaN,
      dropPercent: 30,
      alertable: true,
    },
    {
      name: 'trend Infinity: from totals',
      baseline: 1000,
      yesterday: 700,
      trend: Number.POSITIVE_INFINITY,
      dropPercent: 30,
      alertable: true,
    },
    {
      name: 'trend -Infinity: from totals',
      baseline: 1000,
      yesterday: 0,
      trend: Number.NEGATIVE_INFINITY,
      dropPercent: 100,
      alertable: true,
      severity: 'critical',
    },
    {
      name: 'baseline 0, trend missing: 0, not alertable',
      baseline: 0,
      yesterday: 0,
      trend: null,
      dropPercent: 0,
      alertable: false,
    },
    {
      name: 'baseline 0 even with a trend: not alertable',
      baseline: 0,
      yesterday: 0,
      trend: -100,
      dropPercent: 100,
      alertable: false,
    },
    {
      name: 'baseline under minBaselineClicks',
      baseline: 49,
      yesterday: 0,
      dropPercent: 100,
      alertable: false,
    },
    {
      name: 'baseline exactly minBaselineClicks',
      baseline: 50,
      yesterday: 0,
      dropPercent: 100,
      alertable: true,
    },
    {
      name: 'drop under minDropPercent',
      baseline: 10_000,
      yesterday: 8_100,
      dropPercent: 19,
      alertable: false,
    },
    {
      name: 'drop exactly minDropPercent',
      baseline: 10_000,
      yesterday: 8_000,
      dropPercent: 20,
      alertable: true,
      severity: 'warning',
    },
    {
      name: 'exactly criticalDropPercent is critical',
      baseline: 10_000,
      yesterday: 5_000,
      dropPercent: 50,
      alertable: true,
      severity: 'critical',
    },
    // 60 -> 40: -33%, but (60-40)/sqrt(60) = 2.58 standard deviations < 3: noise.
    {
      name: 'large percent, small volume: not significant',
      baseline: 60,
      yesterday: 40,
      dropPercent: 100 / 3,
      alertable: false,
    },
  ];

  it.each(table)('$name', (row) => {
    const result = classifyToday([entry(1, 'x', row)]);
    const listed = result.pairs[0];
    expect(listed !== undefined).toBe(row.alertable);
    if (listed) {
      expect(listed.dropPercent).toBeCloseTo(row.dropPercent, 9);
      if (row.severity) expect(listed.severity).toBe(row.severity);
      // The fixture's day 14 back equals day 7 back; the network varies as chance does.
      expect(result.variation?.extra).toBe(0);
      expect(listed.significance).toBeCloseTo(
        significanceOf(
          { yesterday: row.yesterday, d7: row.baseline, d14: row.baseline },
          { extra: result.variation?.extra ?? 0, share7: 1, share14: 1 },
        ),
        9,
      );
    } else {
      expect(result.belowThreshold).toBe(1);
    }
  });

  it('minSignificance 0 turns the noise test off', () => {
    const e = entry(1, 'x', { baseline: 60, yesterday: 40 });
    expect(classifyToday([e], { ...SETTINGS, minSignificance: 0 }).pairs[0]?.class).toBe('new');
    // (60 - 40 - 1) / sqrt(60 + 40) = 1.9
    expect(classifyToday([e], { ...SETTINGS, minSignificance: 1.9 }).pairs[0]?.class).toBe('new');
    expect(classifyToday([e], { ...SETTINGS, minSignificance: 2 }).pairs).toHaveLength(0);
  });

  it('a listed pair carries its API entry by reference, no copied figures; an absent one has none', () => {
    const { results } = story(['warn', 'warn', 'crit', S('crit'), 'below', 'absent']);
    expect(results.map((r) => [r.pairs[0]?.class, r.pairs[0]?.entry !== undefined])).toEqual([
      ['new', true],
      ['ongoing', true],
      ['worse', true],
      ['silenced', true],
      ['ongoing', true],
      ['cleared', false], // absent from today's list: nothing to show but the history
    ]);
    expect(results.every((r) => r.pairs[0]?.figures === undefined)).toBe(true);
    const listedClear = story(['warn', 'below', 'below']).results[2]?.pairs[0];
    expect(listedClear?.class).toBe('cleared');
    expect(listedClear?.entry?.yesterday_total_clicks).toBe(950);
  });

  it('the e-mail figures of an entry: trends that are not finite become null', () => {
    const e = entry(1, 'x', { baseline: 1000, yesterday: 100, trend: Number.NaN });
    const pair = classifyToday([e]).pairs[0];
    expect(pair?.entry).toBe(e);
    const figures = pairFigures(e);
    expect(figures.clickTrend.d7).toBeNull();
    expect(figures.clicks).toEqual({ yesterday: 100, d7: 1000, d14: 1000, d30: 1000 });
  });
});

describe('classifyPairs: identity of pairs', () => {
  const odd = [
    'a:b:c',
    ':leading colon',
    'Ünïcödé ISP 🚀',
    '  spaces  around ',
    '<script>alert(1)</script>',
    'tab\tand\nnewline',
    '',
  ];

  it.each(odd)('ISP %j is kept exactly and its key round-trips', (isp) => {
    const result = classifyToday([entry(42, isp, WARN)]);
    const pair = result.pairs[0];
    expect(pair?.isp).toBe(isp);
    expect(parsePairKey(keyOf(pair!))).toEqual({ domainId: 42, isp });
    expect(historyAfter(result.changes)[0]?.isp).toBe(isp);
  });

  it('odd ISPs are distinct pairs, and never collide with each other', () => {
    const result = classifyToday(odd.map((isp) => entry(42, isp, WARN)));
    expect(new Set(result.pairs.map(keyOf)).size).toBe(odd.length);
  });

  it('the same ISP on two domains is two pairs, with separate histories', () => {
    const day1 = classifyToday([entry(1, 'Comcast', WARN), entry(2, 'Comcast', CRIT)]);
    expect(day1.pairs.map((p) => [keyOf(p), p.severity])).toEqual([
      ['1:Comcast', 'warning'],
      ['2:Comcast', 'critical'],
    ]);
    const history = historyAfter(day1.changes);
    const day2 = classifyPairs({
      asOf: addDays(DAY1, 1),
      entries: [entry(1, 'Comcast', CRIT)],
      active: history,
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    const byKey = Object.fromEntries(day2.pairs.map((p) => [keyOf(p), p.class]));
    expect(byKey).toEqual({ '1:Comcast': 'worse', '2:Comcast': 'ongoing' });
  });

  it('keys are case-sensitive: "Comcast" and "comcast" are two pairs', () => {
    const result = classifyToday([entry(1, 'Comcast', WARN), entry(1, 'comcast', WARN)]);
    expect(result.pairs).toHaveLength(2);
  });

  it('a repeated entry counts once (the first) and is reported', () => {
    const result = classifyToday([entry(1, 'x', WARN), entry(1, 'x', CRIT), entry(1, 'y', BELOW)]);
    expect(result.pairs).toHaveLength(1);
    expect(result.pairs[0]?.severity).toBe('warning');
    expect(result.duplicates).toBe(1);
    expect(result.belowThreshold).toBe(1);
  });
});

describe('classifyPairs: the whole run', () => {
  function history(pairs: Partial<ActivePair>[]): ActivePair[] {
    return pairs.map((p) => ({
      domainId: 1,
      isp: 'x',
      domainUrl: 'https://d1.example',
      firstSeen: DAY1,
      lastSeen: DAY1,
      lastNotified: DAY1,
      notifiedSeverity: 'warning',
      quietRuns: 0,
      baseline: 1000,
      yesterday: 700,
      dropPercent: 30,
      ...p,
    }));
  }

  it('every pair of today and of the history gets exactly one class', () => {
    const active = history([
      { isp: 'a' },
      { isp: 'b' },
      { isp: 'c', quietRuns: 1 },
      { isp: 'd', quietRuns: 1 },
      { isp: 's1', domainId: 9 },
    ]);
    const result = classifyPairs({
      asOf: addDays(DAY1, 1),
      entries: [
        entry(1, 'a', WARN), // ongoing
        entry(1, 'b', CRIT), // worse
        entry(1, 'c', BELOW), // cleared (second quiet run)
        entry(1, 'n', WARN), // new
        entry(1, 'z', BELOW), // below threshold, no class
        entry(9, 's2', WARN), // silenced, not remembered
      ],
      active,
      settings: SETTINGS,
      silences: [silenceFor(9)],
      learned: CHANCE,
    });
    const keys = result.pairs.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.fromEntries(result.pairs.map((p) => [keyOf(p), p.class]))).toEqual({
      '1:a': 'ongoing',
      '1:b': 'worse',
      '1:c': 'cleared',
      '1:n': 'new',
      '9:s2': 'silenced',
      '1:d': 'cleared', // absent, second quiet run
      '9:s1': 'silenced', // active, silenced, alertable? no: absent, first quiet run
    });
    expect(result.counts).toEqual({
      new: 1,
      worse: 1,
      reminder: 0,
      ongoing: 1,
      cleared: 2,
      silenced: 2,
    });
    expect(result.belowThreshold).toBe(1);
    expect(result.changes.remove.sort()).toEqual(['1:c', '1:d']);
    expect(
      historyAfter(result.changes)
        .map((p) => pairKey(p.domainId, p.isp))
        .sort(),
    ).toEqual(['1:a', '1:b', '1:n', '9:s1']);
    expect(result.pairs.find((p) => keyOf(p) === '9:s2')?.silenceId).toBe('abcd1234');
  });

  it('does not modify the history it was given', () => {
    const active = history([{ isp: 'a' }, { isp: 'b', quietRuns: 1 }]);
    const before = structuredClone(active);
    classifyPairs({
      asOf: addDays(DAY1, 1),
      entries: [],
      active,
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    expect(active).toEqual(before);
  });

  it('an empty list clears everything in due course, and only then', () => {
    const active = history([{ isp: 'a' }, { isp: 'b' }, { isp: 'c', domainId: 2 }]);
    const input = { entries: [], settings: SETTINGS, silences: [], learned: CHANCE };
    const one = classifyPairs({ ...input, asOf: addDays(DAY1, 1), active });
    expect(one.counts.ongoing).toBe(3);
    expect(historyAfter(one.changes)).toHaveLength(3);
    const after = historyAfter(one.changes);
    const two = classifyPairs({ ...input, asOf: addDays(DAY1, 2), active: after });
    expect(two.counts.cleared).toBe(3);
    expect(historyAfter(two.changes)).toEqual([]);
    expect(two.changes.remove).toEqual(['1:a', '1:b', '2:c']);
    expect(runsAfter(two.changes)).toEqual([]);
  });

  it("a card told with the network's dip, down that day only, leaves without a clear", () => {
    // Told on DAY1 beside the network's headline: 'a' down that day only, 'b' again the day after.
    const active = history([{ isp: 'a' }, { isp: 'b', lastSeen: addDays(DAY1, 1) }]);
    const dip: ActiveDrop = {
      scope: 'network',
      domainId: 0,
      domainUrl: '',
      firstSeen: DAY1,
      lastSeen: DAY1,
      lastNotified: DAY1,
      dropPercent: 30,
      dropPercent14: 30,
      notifiedDropPercent: 30,
      quietRuns: 0,
    };
    const input = { entries: [], settings: SETTINGS, silences: [] };
    const learned = { ...CHANCE, drops: [dip] };
    const one = classifyPairs({ ...input, asOf: addDays(DAY1, 2), active, learned });
    const two = classifyPairs({
      ...input,
      asOf: addDays(DAY1, 3),
      active: historyAfter(one.changes),
      learned,
    });
    expect(two.pairs.map((p) => [p.isp, p.class])).toEqual([['b', 'cleared']]);
    expect(two.counts.cleared).toBe(1);
    expect(two.changes.remove).toEqual(['1:a', '1:b']);
    expect(historyAfter(two.changes)).toEqual([]);
    // Without the network's dip, both are cleared.
    const alone = classifyPairs({
      ...input,
      asOf: addDays(DAY1, 3),
      active: historyAfter(one.changes),
      learned: CHANCE,
    });
    expect(alone.counts.cleared).toBe(2);
  });

  it('notifyCleared does not change the classification; it only decides the e-mail', () => {
    const active = history([{ isp: 'a', quietRuns: 1 }]);
    const input = {
      asOf: addDays(DAY1, 1),
      entries: [entry(1, 'n', WARN)],
      active,
      silences: [],
      learned: CHANCE,
    };
    const withCleared: AlertSettings = { ...SETTINGS, notifyCleared: true };
    const withoutCleared: AlertSettings = { ...SETTINGS, notifyCleared: false };
    const on = classifyPairs({ ...input, settings: withCleared });
    const off = classifyPairs({ ...input, settings: withoutCleared });
    expect(off).toEqual(on);
    expect(on.counts.cleared).toBe(1);
    const emailed = (notifyCleared: boolean) =>
      PAIR_CLASSES.filter((c) => isEmailedClass(c, { notifyCleared }));
    expect(emailed(true)).toEqual(['new', 'worse', 'reminder', 'cleared']);
    expect(emailed(false)).toEqual(['new', 'worse', 'reminder']);
    expect(isEmailedClass('cleared', { notifyCleared: false })).toBe(false);
    expect(isEmailedClass('ongoing', { notifyCleared: true })).toBe(false);
    expect(isEmailedClass('silenced', { notifyCleared: true })).toBe(false);
  });

  it('a history-only pair reports its remembered numbers', () => {
    const active = history([{ isp: 'a', baseline: 400, yesterday: 100, dropPercent: 75 }]);
    const result = classifyPairs({
      asOf: addDays(DAY1, 1),
      entries: [],
      active,
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    expect(result.pairs[0]).toMatchObject({
      class: 'ongoing',
      alertable: false,
      severity: 'critical',
      dropPercent: 75,
      // Its last numbers, against day 7 back: (400 - 100) / sqrt(400 + 100).
      significance: 300 / Math.sqrt(500),
      quietRuns: 1,
    });
    expect(result.pairs[0]?.figures).toBeUndefined();
  });
});

describe('classifyPairs: cleared pairs that may still be depressed', () => {
  const blocked = { baseline: 1000, yesterday: 50 };
  const table: {
    name: string;
    days: ({ baseline: number; yesterday: number } | null)[];
    flag: boolean;
  }[] = [
    {
      // The textbook block: listed as-of B+1..B+7, gone from B+8 (comparison day blocked).
      name: 'a block that drops out of the list after 7 days',
      days: [...repeat(7, blocked), null, null],
      flag: true,
    },
    {
      name: 'a recovery: the drop shrinks before the pair leaves the list',
      days: [
        blocked,
        blocked,
        blocked,
        { baseline: 1000, yesterday: 300 },
        { baseline: 1000, yesterday: 500 },
        { baseline: 1000, yesterday: 650 },
        { baseline: 1000, yesterday: 700 },
        null,
        null,
      ],
      flag: false,
    },
    { name: 'a short episode (2 days)', days: [blocked, blocked, null, null], flag: false },
    { name: 'a long episode (12 days)', days: [...repeat(12, blocked), null, null], flag: false },
  ];

  it.each(table)('$name', ({ days, flag }) => {
    let active: ActivePair[] = [];
    let last: Classification | undefined;
    days.forEach((figures, i) => {
      last = classifyPairs({
        asOf: addDays(DAY1, i),
        entries: figures ? [entry(1, 'x', figures)] : [],
        active,
        settings: SETTINGS,
        silences: [],
        learned: CHANCE,
      });
      active = historyAfter(last.changes);
    });
    expect(last?.pairs[0]?.class).toBe('cleared');
    expect(last?.pairs[0]?.mayStillBeDepressed).toBe(flag);
  });

  it('is set on cleared pairs only', () => {
    const { results } = story(['crit', 'crit']);
    expect(results.every((r) => r.pairs.every((p) => p.mayStillBeDepressed === undefined))).toBe(
      true,
    );
  });
});

describe('classifyPairs: an active pair stays alertable under minBaselineClicks', () => {
  const run = (active: ActivePair[], entries: IspTrend[], day: number) =>
    classifyPairs({
      asOf: addDays(DAY1, day),
      entries,
      active,
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });

  it('a reported pair whose comparison day dipped under the floor is ongoing, not quiet', () => {
    const first = run([], [entry(DOMAIN, ISP, { baseline: 60, yesterday: 0 })], 0);
    expect(first.pairs[0]?.class).toBe('new');
    const history = applyChanges([], first);
    const second = run(history, [entry(DOMAIN, ISP, { baseline: 40, yesterday: 0 })], 1);
    expect(second.pairs[0]).toMatchObject({ class: 'ongoing', alertable: true, quietRuns: 0 });
  });

  it('the same numbers do not make a pair nobody was told about new', () => {
    const result = run([], [entry(DOMAIN, ISP, { baseline: 40, yesterday: 0 })], 0);
    expect(result.pairs).toHaveLength(0);
    expect(result.belowThreshold).toBe(1);
  });
});

/** Everything but `pairs` is the same whether or not the ongoing pairs are listed. */
function bothWays(input: Omit<Parameters<typeof classifyPairs>[0], 'listOngoing'>) {
  const listed = classifyPairs({ ...input, listOngoing: true });
  const counted = classifyPairs({ ...input, listOngoing: false });
  const { pairs: all, ...rest } = listed;
  const { pairs, ...same } = counted;
  expect(same).toEqual(rest);
  expect(pairs).toEqual(all.filter((p) => p.class !== 'ongoing'));
  return { all, pairs, counts: counted.counts };
}

describe('classifyPairs: listOngoing false (what a run asks for)', () => {
  it('leaves the ongoing pairs out of `pairs` and in the counts, the rest as listed', () => {
    const active = [
      { isp: 'a' },
      { isp: 'b' },
      { isp: 'c', quietRuns: 1 },
      { isp: 'h' },
      { isp: 'q' },
      { isp: 's1', domainId: 9 },
    ].map((p) => ({
      domainId: 1,
      domainUrl: 'https://d1.example',
      firstSeen: DAY1,
      lastSeen: DAY1,
      lastNotified: DAY1,
      notifiedSeverity: 'warning' as const,
      quietRuns: 0,
      baseline: 1000,
      yesterday: 700,
      dropPercent: 30,
      ...p,
    }));
    const { all, pairs, counts } = bothWays({
      asOf: addDays(DAY1, 1),
      entries: [
        entry(1, 'a', WARN), // ongoing, alertable
        entry(1, 'b', CRIT), // worse
        entry(1, 'c', BELOW), // cleared
        entry(1, 'n', WARN), // new
        entry(9, 's2', WARN), // silenced
      ],
      active,
      settings: SETTINGS,
      silences: [silenceFor(9)],
      learned: CHANCE,
    });
    // h and q: absent, first quiet run: ongoing, with a's three ongoing pairs in all.
    expect(all.filter((p) => p.class === 'ongoing').map((p) => p.isp)).toEqual(['a', 'h', 'q']);
    expect(counts.ongoing).toBe(3);
    expect(pairs.map((p) => `${p.isp}:${p.class}`)).toEqual([
      'b:worse',
      'c:cleared',
      'n:new',
      's2:silenced',
      's1:silenced',
    ]);
  });
});

describe('classifyPairs: an ISP joining a domain that is already reported down', () => {
  const down = (isps: string[], baseline = 300) =>
    isps.map((isp) => entry(DOMAIN, isp, { baseline, yesterday: 0 }));
  const six = ['a', 'b', 'c', 'd', 'e', 'f'];

  function twoDays(dayTwo: IspTrend[]) {
    const first = classifyPairs({
      asOf: DAY1,
      entries: [...down(six), ...down(['late'], 40)],
      active: [],
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    const history = applyChanges([], first);
    const second = classifyPairs({
      asOf: addDays(DAY1, 1),
      entries: dayTwo,
      active: history,
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    return { first, second };
  }

  it('is ongoing (reported with its domain), and active from now on', () => {
    const { first, second } = twoDays([...down(six), ...down(['late'], 60)]);
    expect(first.counts.new).toBe(6);
    expect(first.domains[0]?.headline).toBe(true);
    const late = second.pairs.find((p) => p.isp === 'late');
    expect(late).toMatchObject({ class: 'ongoing', alertable: true });
    expect(second.counts).toMatchObject({ new: 0, ongoing: 7 });
    expect(historyAfter(second.changes).map((p) => p.isp)).toContain('late');
  });

  it('a run, which lists no ongoing pairs, counts it and lists nothing', () => {
    const { first } = twoDays([]);
    const { all, pairs, counts } = bothWays({
      asOf: addDays(DAY1, 1),
      entries: [...down(six), ...down(['late'], 60)],
      active: applyChanges([], first),
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    expect(all.find((p) => p.isp === 'late')?.class).toBe('ongoing');
    expect(pairs).toEqual([]);
    expect(counts).toMatchObject({ new: 0, ongoing: 7 });
  });

  it('is new when the domain is no longer a headline (the others recovered)', () => {
    const { second } = twoDays(down(['late'], 60));
    expect(second.pairs.find((p) => p.isp === 'late')?.class).toBe('new');
  });

  it('is new in another domain', () => {
    const { second } = twoDays([
      ...down(six),
      entry(DOMAIN + 1, 'late', { baseline: 60, yesterday: 0 }),
    ]);
    expect(second.pairs.find((p) => p.isp === 'late')?.class).toBe('new');
  });
});

describe('classifyPairs: a steady decline, from the memory of listed days', () => {
  // Each day alone: (120 - 90 - 1) / sqrt(210) = 2.0, under minSignificance 3; the three days
  // together: (360 - 270 - 1) / sqrt(630) = 3.5.
  const day = () => [entry(DOMAIN, ISP, { baseline: 120, yesterday: 90 })];

  function threeDays(thread: boolean) {
    let runs: WatchedRun[] = [];
    const results: Classification[] = [];
    for (let i = 0; i < 3; i++) {
      const result = classifyPairs({
        asOf: addDays(DAY1, i),
        entries: day(),
        active: [],
        settings: SETTINGS,
        silences: [],
        learned: CHANCE,
        runs: thread ? runs : [],
      });
      results.push(result);
      runs = runsAfter(result.changes) ?? [];
    }
    return results;
  }

  it('is new on the third day in a row, marked steady, with its run', () => {
    const results = threeDays(true);
    expect(results.map((r) => r.pairs[0]?.class ?? '-')).toEqual(['-', '-', 'new']);
    expect(runsAfter(results[0]!.changes)).toEqual([
      expect.objectContaining({ isp: ISP, days: 1, clicks: 90, d7: 120, d14: 120 }),
    ]);
    expect(results[2]?.pairs[0]).toMatchObject({
      steady: true,
      alertable: true,
      run: { since: DAY1, last: addDays(DAY1, 2), days: 3, clicks: 270, d7: 360, d14: 360 },
    });
  });

  it('without the memory the same days are never alertable', () => {
    expect(threeDays(false).map((r) => r.pairs.length)).toEqual([0, 0, 0]);
  });

  it("a pair not in today's list leaves the memory", () => {
    const result = classifyPairs({
      asOf: DAY1,
      entries: [],
      active: [],
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
      runs: [
        {
          domainId: DOMAIN,
          isp: ISP,
          since: DAY1,
          last: DAY1,
          days: 1,
          clicks: 1,
          d7: 9,
          d14: 9,
        },
      ],
    });
    expect(runsAfter(result.changes)).toEqual([]);
  });
});

describe('classifyPairs: held runs, a moderate decline that looks quiet for a day or two', () => {
  // The pair at 1000 clicks a day. 'warn': -30%, alertable. 'still': -12% (under minDropPercent,
  // and under 3/4 of it: no steady decline) with z (120 - 1) / sqrt(1880) = 2.7 of its own:
  // listed in its run.
  // 'faint': -5%, under half of minDropPercent. 'edge': -52%, critical but within the noise
  // margin ((500 - 480 - 1) / sqrt(250 + 480) = 0.7). Three other pairs are listed every day
  // (-4%, no class, no run): day 30 back like their days 7 and 14 back ('alike'), or at 60% of
  // them ('quieter': yesterday a Monday after quieter weekends, say), which hides a 30% decline,
  // or at 80% ('mild'), which does not: the pair would still be listed.
  type HeldState = 'warn' | 'still' | 'faint' | 'crit' | 'edge' | 'alike' | 'quieter' | 'mild';
  const PAIR = {
    warn: { baseline: 1000, yesterday: 700 },
    still: { baseline: 1000, yesterday: 880 },
    faint: { baseline: 1000, yesterday: 950 },
    crit: { baseline: 1000, yesterday: 200 },
    edge: { baseline: 1000, yesterday: 480 },
  } as const;
  const others = (d30: number): IspTrend[] =>
    ['o1', 'o2', 'o3'].map((isp) => ({
      ...entry(DOMAIN + 1, isp, { baseline: 500, yesterday: 480 }),
      thirty_days_ago_total_clicks: d30,
    }));

  function heldStory(states: HeldState[], memory = true) {
    let history: ActivePair[] = [];
    let runs: WatchedRun[] = [];
    return states.map((state, i) => {
      const unlisted = state === 'alike' || state === 'quieter' || state === 'mild';
      const entries = [
        ...(unlisted ? [] : [entry(DOMAIN, ISP, PAIR[state])]),
        ...others(state === 'quieter' ? 300 : state === 'mild' ? 400 : 500),
      ];
      const result = classifyPairs({
        asOf: addDays(DAY1, i),
        entries,
        active: history,
        settings: SETTINGS,
        silences: [],
        learned: CHANCE,
        runs,
      });
      history = applyChanges(history, result);
      if (memory) {
        runs = runsAfter(result.changes) ?? [];
      }
      return result;
    });
  }
  const classes = (results: Classification[]) =>
    results.map((r) => r.pairs.find((p) => keyOf(p) === KEY)?.class ?? '-');

  const table: { name: string; states: HeldState[]; expected: (PairClass | '-')[] }[] = [
    {
      name: 'listed under minDropPercent in its run: held, then two quiet runs clear it',
      states: ['warn', 'still', 'still', 'still', 'alike', 'alike'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'ongoing', 'cleared'],
    },
    {
      name: 'listed at -5% (under half of minDropPercent) is quiet, as before',
      states: ['warn', 'faint', 'faint'],
      expected: ['new', 'ongoing', 'cleared'],
    },
    {
      name: 'a deep decline listed under the thresholds is quiet: it has ended',
      states: ['crit', 'still', 'still'],
      expected: ['new', 'ongoing', 'cleared'],
    },
    {
      name: 'missing after 3 listed days while day 30 back is quieter: held, back without an e-mail',
      states: ['warn', 'warn', 'warn', 'quieter', 'quieter', 'warn'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'ongoing', 'ongoing'],
    },
    {
      name: 'the same days with day 30 back alike: cleared, and new again',
      states: ['warn', 'warn', 'warn', 'alike', 'alike', 'warn'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'cleared', 'new'],
    },
    {
      name: 'missing while day 30 back is too busy to hide a 30% decline: it ended, cleared',
      states: ['warn', 'warn', 'warn', 'mild', 'mild', 'warn'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'cleared', 'new'],
    },
    {
      name: 'held two days at most, then quiet runs count',
      states: ['warn', 'warn', 'warn', 'quieter', 'quieter', 'quieter', 'quieter'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'ongoing', 'ongoing', 'cleared'],
    },
    {
      name: 'missing after only 2 listed days (a weekend dip): quiet',
      states: ['warn', 'warn', 'quieter', 'quieter'],
      expected: ['new', 'ongoing', 'ongoing', 'cleared'],
    },
    {
      name: 'a deep decline missing on a quieter day: quiet, it clears on time',
      states: ['crit', 'crit', 'crit', 'quieter', 'quieter'],
      expected: ['new', 'ongoing', 'ongoing', 'ongoing', 'cleared'],
    },
    {
      name: 'critical within the noise margin is not worse; clearly critical is',
      states: ['warn', 'edge', 'edge', 'crit'],
      expected: ['new', 'ongoing', 'ongoing', 'worse'],
    },
  ];
  it.each(table)('$name', ({ states, expected }) => {
    expect(classes(heldStory(states))).toEqual(expected);
  });

  it('without the memory of listed days nothing is held', () => {
    const states: HeldState[] = ['warn', 'warn', 'warn', 'quieter', 'quieter', 'warn'];
    expect(classes(heldStory(states, false))).toEqual([
      'new',
      'ongoing',
      'ongoing',
      'ongoing',
      'cleared',
      'new',
    ]);
  });

  it('a held run is not a quiet run: the history is unchanged and the run is kept', () => {
    const results = heldStory(['warn', 'warn', 'warn', 'quieter', 'quieter']);
    const held = results[3]?.pairs.find((p) => keyOf(p) === KEY);
    expect(held).toMatchObject({ class: 'ongoing', alertable: false, quietRuns: 0 });
    const after = results[4]!.changes;
    expect(historyAfter(after).find((p) => p.isp === ISP)).toMatchObject({
      lastSeen: addDays(DAY1, 2),
      quietRuns: 0,
    });
    expect(runsAfter(after)?.find((r) => r.isp === ISP)).toMatchObject({
      since: DAY1,
      last: addDays(DAY1, 2),
      days: 3,
    });
  });

  it('a critical pair within the margin stays notified as a warning', () => {
    const results = heldStory(['warn', 'edge']);
    expect(results[1]?.pairs.find((p) => keyOf(p) === KEY)).toMatchObject({
      class: 'ongoing',
      severity: 'critical',
    });
    expect(historyAfter(results[1]!.changes).find((p) => p.isp === ISP)?.notifiedSeverity).toBe(
      'warning',
    );
  });
});

describe("classifyPairs: a week after the network's dip (dip-week.ts)", () => {
  const day2 = addDays(DAY1, 1);
  /** The network told down 31% on the run a week before day2 (network-dips.ts). */
  const holiday: LearnedState = {
    ...CHANCE,
    networkDips: [{ seen: addDays(day2, -7), kept: 0.69, told: true }],
  };
  const listed = (yesterday: number, d7: number, d14: number): IspTrend => ({
    ...entry(DOMAIN, ISP, { yesterday, baseline: d7 }),
    fourteen_days_ago_total_clicks: d14,
    yesterday_fourteen_days_ago_total_clicks_trend: ((yesterday - d14) / d14) * 100,
  });
  const twoDays = (first: IspTrend, second: IspTrend, learned: LearnedState) => {
    const told = classifyPairs({
      asOf: DAY1,
      entries: [first],
      active: [],
      settings: SETTINGS,
      silences: [],
      learned: CHANCE,
    });
    expect(told.pairs[0]?.class).toBe('new');
    return classifyPairs({
      asOf: day2,
      entries: [second],
      active: applyChanges([], told),
      settings: SETTINGS,
      silences: [],
      learned,
    });
  };

  it('an ISP told before is judged against day 7 back as it was without the dip', () => {
    // 31% told; then 44% against the holiday, 63% against day 14 back: worse on its first day.
    const first = listed(398, 576, 580);
    const second = listed(212, 377, 577);
    expect(twoDays(first, second, holiday).pairs[0]?.class).toBe('worse');
    expect(twoDays(first, second, CHANCE).pairs[0]?.class).toBe('ongoing');
  });

  it('worse only when also minDropPercent points deeper than the day before', () => {
    // 50% told; then 58% against day 7 back without the dip, 59% against day 14 back.
    const first = listed(157, 312, 313);
    const second = listed(142, 229, 348);
    const deeper: LearnedState = {
      ...CHANCE,
      networkDips: [{ seen: addDays(day2, -7), kept: 0.67, told: true }],
    };
    const result = twoDays(first, second, deeper);
    expect(result.pairs[0]?.severity).toBe('critical');
    expect(result.pairs[0]?.class).toBe('ongoing');
  });

  it('not up to a dip of day 7 back that was never told', () => {
    const first = listed(398, 576, 580);
    const second = listed(212, 377, 577);
    const untold = { ...CHANCE, networkDips: [{ seen: addDays(day2, -7), kept: 0.69 }] };
    expect(twoDays(first, second, untold).pairs[0]?.class).toBe('ongoing');
  });

  it('an ISP told before is judged against day 14 back as it was without the dip, told or not', () => {
    // 25% told; then 64% against day 7 back, 44% against the holiday of day 14 back (down 25%,
    // short of a headline): critical beyond noise only against day 14 back without the dip.
    const first = listed(439, 583, 590);
    const second = listed(261, 715, 468);
    const fortnight = { ...CHANCE, networkDips: [{ seen: addDays(day2, -14), kept: 0.75 }] };
    expect(twoDays(first, second, fortnight).pairs[0]?.class).toBe('worse');
    expect(twoDays(first, second, CHANCE).pairs[0]?.class).toBe('ongoing');
  });
});

describe("classifyPairs: on the day the network's dip is a headline", () => {
  /** Two domains of 30 ISPs known for a month, every one of them listed 30% down today. */
  const names = Array.from({ length: 30 }, (_, i) => `ISP ${i}`);
  const hashes = [...new Set(names.map(ispHash))].sort((a, b) => a - b);
  const learned: LearnedState = {
    ...CHANCE,
    known: [1, 2].map((domainId) => ({
      domainId,
      since: dayNumber(DAY1) - 30,
      level: 0,
      hashes,
      lastListed: hashes.map(() => dayNumber(DAY1) - 2),
    })),
  };
  const dip = [1, 2].flatMap((domainId) =>
    names.map((name) => entry(domainId, name, { baseline: 1000, yesterday: 700 })),
  );

  it('a pair a little below the dip begins no listed run; one well beyond it does', () => {
    // 640 and 450 of 1000: beyond the dip's 700, z 1.7 and 7.8 (DIP_DAY_RUN_MIN_SIGNIFICANCE 2).
    const result = classifyPairs({
      asOf: DAY1,
      entries: [
        ...dip,
        entry(1, 'Chance', { baseline: 1000, yesterday: 640 }),
        entry(1, 'Moderate', { baseline: 1000, yesterday: 450 }),
      ],
      active: [],
      settings: SETTINGS,
      silences: [],
      learned,
    });
    expect(result.drops?.map((d) => [d.scope, d.class])).toEqual([['network', 'new']]);
    const started = result.changes.runsStarted?.entries.map((e) => e.isp) ?? [];
    const runs = result.changes.runs?.map((r) => r.isp) ?? [];
    expect([...started, ...runs].filter((isp) => !isp.startsWith('ISP'))).toEqual(['Moderate']);
  });
});

describe('a listed pair cleared: its run begins anew with the clear', () => {
  it('keeps only the day it is cleared on, so a later day cannot tell the old run again', () => {
    let active: ActivePair[] = [];
    let runs: WatchedRun[] = [];
    const results: Classification[] = [];
    for (const [i, figures] of [CRIT, BELOW, BELOW, BELOW].entries()) {
      const result = classifyPairs({
        asOf: addDays(DAY1, i),
        entries: [entry(DOMAIN, ISP, figures)],
        active,
        runs,
        settings: SETTINGS,
        silences: [],
        learned: CHANCE,
      });
      results.push(result);
      active = historyAfter(result.changes);
      runs = runsAfter(result.changes) ?? [];
    }
    expect(results.map((r) => r.pairs[0]?.class ?? '-')).toEqual([
      'new',
      'ongoing',
      'cleared',
      '-',
    ]);
    // Each below day has some evidence of its own (z 1.1): listed on, the run goes on from the
    // clear, not from the day the pair was told.
    const run = (r: Classification) => runsAfter(r.changes)?.find((w) => w.isp === ISP);
    expect(run(results[1]!)).toMatchObject({ since: DAY1, days: 2 });
    expect(run(results[2]!)).toMatchObject({ since: addDays(DAY1, 2), days: 1, clicks: 950 });
    expect(run(results[3]!)).toMatchObject({ since: addDays(DAY1, 2), days: 2, clicks: 1900 });
  });
});

describe('classifyPairs: a domain seen whole on a day day 30 back hides the others', () => {
  /** Three domains of 30 ISPs known for a month. */
  const names = Array.from({ length: 30 }, (_, i) => `ISP ${i}`);
  const hashes = [...new Set(names.map(ispHash))].sort((a, b) => a - b);
  const learned: LearnedState = {
    ...CHANCE,
    known: [1, 2, 3].map((domainId) => ({
      domainId,
      since: dayNumber(DAY1) - 30,
      level: 0,
      hashes,
      lastListed: hashes.map(() => dayNumber(DAY1) - 2),
    })),
  };
  /** Listed with day 30 back a quieter Sunday: 60% of the weekday. */
  const onSunday = (domainId: number, name: string, baseline: number, yesterday: number) => ({
    ...entry(domainId, name, { baseline, yesterday }),
    thirty_days_ago_total_clicks: Math.round(baseline * 0.6),
  });
  /** Domain 1 seen whole, 45% down: a headline of its own when nothing else shows the dip. */
  const whole = names.slice(0, 20).map((name) => onSunday(1, name, 1000, 550));
  const classify = (entries: IspTrend[]) =>
    classifyPairs({ asOf: DAY1, entries, active: [], settings: SETTINGS, silences: [], learned });

  it("beside a third of another domain's ISPs listed as deep: the network's dip, not the domain's", () => {
    // 11 of domain 2's 30 ISPs at 20 -> 10 clicks: each within 2 sd on its own (z 1.6).
    const wide = names.slice(0, 11).map((name) => onSunday(2, name, 20, 10));
    expect(classify([...whole, ...wide]).drops?.map((d) => [d.scope, d.class])).toEqual([
      ['network', 'new'],
    ]);
    // Fewer than a third of them listed: the first domain's own drop.
    const few = wide.slice(0, 9);
    expect(classify([...whole, ...few]).drops?.map((d) => [d.scope, d.domainId])).toEqual([
      ['domain', 1],
    ]);
  });
});
