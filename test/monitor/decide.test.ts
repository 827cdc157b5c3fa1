import { describe, expect, it } from 'vitest';
import {
  decideInvoiceSnapshot,
  decideTrafficFailure,
  decideTrafficRun,
  nextPremiumState,
  pairEvents,
  withoutSentEvents,
  type DecisionState,
  type DecidedNotification,
} from '../../src/monitor/decide.js';
import { pairKey, parsePairKey } from '../../src/monitor/pair-key.js';
import { historyAfter } from '../../src/monitor/history-change.js';
import type {
  Classification,
  ClassifiedPair,
  InvoiceSnapshot,
  IspTrend,
  PremiumState,
  ProblemEpisode,
  RunRecord,
} from '../../src/monitor/types.js';
import { CHANCE, CRIT, SETTINGS, WARN, entry } from './fixtures.js';
import { dropEvent } from '../../src/monitor/common-drops.js';
import { ispHash } from '../../src/monitor/known-isps.js';
import { dayNumber } from '../../src/dates.js';

const AS_OF = '2026-11-21';
const STARTED = 1_000;
const NOW = 2_000;

function state(parts: Partial<DecisionState> = {}): DecisionState {
  return { active: [], silences: [], sentEvents: new Set(), learned: CHANCE, ...parts };
}

const premium = (hasPremium: boolean): PremiumState => ({ hasPremium, checkedAt: 10, since: 10 });
const problemOf = (kind: ProblemEpisode['kind']): ProblemEpisode => ({
  kind,
  openedAt: 500,
  code: 'THM_API_AUTH',
  message: 'the API key was not accepted',
});
const earlierRun: RunRecord = {
  networkId: 'acme',
  kind: 'traffic-check',
  asOf: AS_OF,
  outcome: 'failed',
  startedAt: 1,
  finishedAt: 2,
  notificationIds: [],
  runs: 2,
};

const kinds = (list: DecidedNotification[]) => list.map((n) => n.kind);

function trafficRun(
  s: DecisionState,
  hasPremium: boolean,
  entries: IspTrend[] | undefined = hasPremium ? [] : undefined,
) {
  return decideTrafficRun({
    networkId: 'acme',
    asOf: AS_OF,
    state: s,
    settings: SETTINGS,
    hasPremium,
    entries,
    startedAt: STARTED,
    now: NOW,
  });
}

describe('decideTrafficRun: premium', () => {
  it.each([
    // previous state, has premium now, e-mail, first sight, since
    ['first sight with premium: nothing to say', undefined, true, undefined, undefined, NOW],
    ['first sight without premium: one e-mail', undefined, false, 'premium-lost', true, NOW],
    ['premium held: nothing', premium(true), true, undefined, undefined, 10],
    ['premium lost', premium(true), false, 'premium-lost', false, NOW],
    ['still without premium: nothing', premium(false), false, undefined, undefined, 10],
    ['premium regained', premium(false), true, 'premium-regained', false, NOW],
  ] as const)('%s', (_name, previous, hasPremium, email, firstSight, since) => {
    const decision = trafficRun(state({ premium: previous }), hasPremium);
    expect(decision.premium).toEqual({ hasPremium, checkedAt: NOW, since });
    const premiumMails = decision.notifications.filter((n) => n.kind.startsWith('premium-'));
    expect(kinds(premiumMails)).toEqual(email ? [email] : []);
    if (email) expect(premiumMails[0]).toMatchObject({ firstSight, events: [] });
    expect(decision.run.outcome).toBe(hasPremium ? 'ok' : 'premium-inactive');
  });

  it('without premium: no history change, no counts', () => {
    const decision = trafficRun(state({ premium: premium(false) }), false);
    expect(decision.history).toBeUndefined();
    expect(decision.run.counts).toBeUndefined();
    expect(decision.sentEvents).toBeUndefined();
  });
});

describe('decideTrafficRun: problem episodes', () => {
  it.each([
    ['no episode open: left alone', undefined, undefined, []],
    [
      'traffic-check episode: closed, one "restored"',
      problemOf('traffic-check'),
      null,
      ['restored'],
    ],
    [
      'invoice-snapshot episode: not this run kind, left alone',
      problemOf('invoice-snapshot'),
      undefined,
      [],
    ],
  ] as const)('%s', (_name, open, problem, mails) => {
    const decision = trafficRun(state({ premium: premium(true), problem: open }), true);
    expect(decision.problem).toBe(problem);
    expect(kinds(decision.notifications)).toEqual(mails);
    if (open && problem === null) {
      expect(decision.notifications[0]).toEqual({
        kind: 'restored',
        events: [],
        problem: open,
        restoredAt: NOW,
      });
    }
  });
});

describe('decideTrafficFailure', () => {
  const failure = { code: 'THM_API_AUTH' as const, message: 'the API key was not accepted' };
  it.each([
    ['no episode open: opens one, one problem e-mail', undefined, true],
    ['an episode is open: no second e-mail', problemOf('traffic-check'), false],
  ] as const)('%s', (_name, open, opens) => {
    const decision = decideTrafficFailure({
      networkId: 'acme',
      asOf: AS_OF,
      state: state({ problem: open, run: earlierRun }),
      failure,
      startedAt: STARTED,
      now: NOW,
    });
    expect(decision.run).toEqual({
      networkId: 'acme',
      kind: 'traffic-check',
      asOf: AS_OF,
      outcome: 'failed',
      startedAt: STARTED,
      finishedAt: NOW,
      error: failure,
      runs: 3,
    });
    expect(decision.history).toBeUndefined();
    const opened = { kind: 'traffic-check', openedAt: NOW, ...failure };
    expect(decision.problem).toEqual(opens ? opened : undefined);
    expect(decision.notifications).toEqual(
      opens ? [{ kind: 'problem', events: [failure.code], problem: opened }] : [],
    );
  });
});

describe('decideTrafficRun: pairs and the alert', () => {
  const entries = [entry(7, 'Comcast', WARN), entry(7, 'Verizon', CRIT)];
  const events = [`new|${pairKey(7, 'Comcast')}`, `new|${pairKey(7, 'Verizon')}`];

  it.each([
    ['nothing sent yet: one alert with both pair events', [], events],
    ['one already e-mailed (forced re-run): only the other', [events[0]], [events[1]]],
    ['both already e-mailed: no alert', events, []],
  ] as const)('%s', (_name, sent, carried) => {
    const decision = trafficRun(
      state({ premium: premium(true), sentEvents: new Set<string>(sent as readonly string[]) }),
      true,
      entries,
    );
    expect(decision.run).toMatchObject({ outcome: 'ok', pairsListed: 2, runs: 1 });
    expect(
      historyAfter(decision.history!)
        .map((p) => p.isp)
        .sort(),
    ).toEqual(['Comcast', 'Verizon']);
    const alerts = decision.notifications.filter((n) => n.kind === 'alert');
    expect(alerts.map((a) => a.events)).toEqual(carried.length ? [carried] : []);
    expect(decision.sentEvents).toEqual(carried.length ? carried : undefined);
    expect(decision.run.counts?.new).toBe(carried.length);
  });

  it('the alert comes last, after premium and restored', () => {
    const decision = trafficRun(
      state({ premium: premium(false), problem: problemOf('traffic-check') }),
      true,
      entries,
    );
    expect(kinds(decision.notifications)).toEqual(['premium-regained', 'restored', 'alert']);
  });
});

describe('decideTrafficRun: what is learned, and common drops', () => {
  /** A domain of 30 ISPs known for a month, 28 of them down 98% today. */
  const known = Array.from({ length: 30 }, (_, i) => ispHash(`ISP ${i}`)).sort((a, b) => a - b);
  const learned = {
    ...CHANCE,
    known: [
      {
        domainId: 4,
        since: dayNumber(AS_OF) - 30,
        level: 0,
        hashes: known,
        lastListed: known.map(() => dayNumber(AS_OF) - 2),
      },
    ],
  };
  const outage = Array.from({ length: 28 }, (_, i) =>
    entry(4, `ISP ${i}`, { baseline: 1000, yesterday: 20 }),
  );
  const dropNew = dropEvent('new', 'domain', 4);

  it('a downed domain: one alert with the drop event, no pair event; learned for the next run', () => {
    const decision = trafficRun(state({ premium: premium(true), learned }), true, outage);
    const alerts = decision.notifications.filter((n) => n.kind === 'alert');
    expect(alerts.map((a) => a.events)).toEqual([[dropNew]]);
    expect(decision.sentEvents).toEqual([dropNew]);
    expect(decision.run.counts?.new).toBe(0);
    expect(decision.history?.learned?.drops).toMatchObject([{ scope: 'domain', domainId: 4 }]);
  });

  it('a forced re-run that already e-mailed the drop sends nothing again', () => {
    const decision = trafficRun(
      state({ premium: premium(true), learned, sentEvents: new Set([dropNew]) }),
      true,
      outage,
    );
    expect(decision.notifications.filter((n) => n.kind === 'alert')).toEqual([]);
    expect(decision.sentEvents).toBeUndefined();
  });

  it('nothing learned yet: the run learns, and starts from the prior', () => {
    const decision = trafficRun(state({ premium: premium(true), learned: undefined }), true, [
      entry(7, 'Comcast', WARN),
    ]);
    expect(decision.history?.learned?.variation?.asOf).toBe(AS_OF);
  });
});

describe('decideInvoiceSnapshot', () => {
  const snapshot: InvoiceSnapshot = {
    time: 1_700_000_000,
    status: 'unpaid',
    total_count: 3,
    balance: 30,
    billed: 40,
    paid: 10,
  };
  it.each([
    ['no previous snapshot, notify on', undefined, true, undefined],
    [
      'previous of the same status: the change',
      { ...snapshot, time: 1, total_count: 1, balance: 10 },
      true,
      { total_count: 2, balance: 20, billed: 0, paid: 0 },
    ],
    ['previous of another status: no change', { ...snapshot, status: 'paid' }, true, undefined],
    ['notify off: stored, no e-mail', undefined, false, undefined],
  ] as const)('%s', (_name, latestInvoice, notify, change) => {
    const decision = decideInvoiceSnapshot({
      networkId: 'acme',
      asOf: AS_OF,
      state: state({ latestInvoice }),
      snapshot,
      invoices: { notify, keep: 30 },
      startedAt: STARTED,
      now: NOW,
    });
    expect(decision.run).toMatchObject({ kind: 'invoice-snapshot', outcome: 'ok', runs: 1 });
    expect(decision.invoiceSnapshot).toEqual({ snapshot, keep: 30 });
    expect(decision.notifications).toEqual(
      notify ? [{ kind: 'invoice', events: [`invoice|${snapshot.time}`], snapshot, change }] : [],
    );
  });
});

const pair = (key: string, cls: ClassifiedPair['class']): ClassifiedPair => ({
  ...parsePairKey(key),
  domainUrl: 'https://d.example',
  class: cls,
  alertable: true,
  severity: 'warning',
  dropPercent: 30,
  significance: 5,
  firstSeen: '2026-11-20',
  quietRuns: 0,
});

const classification: Classification = {
  asOf: AS_OF,
  pairs: [
    pair('1:a', 'new'),
    pair('1:b', 'worse'),
    pair('1:c', 'cleared'),
    pair('1:d', 'ongoing'),
    pair('1:e', 'reminder'),
    pair('1:f', 'silenced'),
  ],
  counts: { new: 1, worse: 1, reminder: 1, ongoing: 1, cleared: 1, silenced: 1 },
  domains: [],
  changes: { upsert: [], remove: [] },
};

describe('pairEvents: the events an alert carries', () => {
  it.each([
    [true, ['new|1:a', 'worse|1:b', 'cleared|1:c', 'reminder|1:e']],
    [false, ['new|1:a', 'worse|1:b', 'reminder|1:e']],
  ])('notifyCleared %s', (notifyCleared, expected) => {
    expect(pairEvents(classification, { notifyCleared })).toEqual(expected);
  });
});

describe('withoutSentEvents: a forced re-run never e-mails a pair event twice', () => {
  it('moves pairs whose (class, pair) was already sent to ongoing, and fixes the counts', () => {
    const result = withoutSentEvents(
      classification,
      new Set(['new|1:a', 'cleared|1:c', 'worse|1:x']),
    );
    expect(result.pairs.map((p) => [pairKey(p.domainId, p.isp), p.class])).toEqual([
      ['1:a', 'ongoing'],
      ['1:b', 'worse'],
      ['1:c', 'ongoing'],
      ['1:d', 'ongoing'],
      ['1:e', 'reminder'],
      ['1:f', 'silenced'],
    ]);
    expect(result.counts).toEqual({
      new: 0,
      worse: 1,
      reminder: 1,
      ongoing: 3,
      cleared: 0,
      silenced: 1,
    });
  });

  it('an event of another class for the same pair is not the same event', () => {
    const result = withoutSentEvents(classification, new Set(['new|1:b']));
    expect(result.pairs[1]?.class).toBe('worse');
  });

  it('nothing sent: the classification itself', () => {
    expect(withoutSentEvents(classification, new Set())).toBe(classification);
  });
});

describe('nextPremiumState', () => {
  it('keeps "since" while the state holds, restarts it on a change or the first sight', () => {
    expect(nextPremiumState(undefined, false, 100)).toEqual({
      hasPremium: false,
      checkedAt: 100,
      since: 100,
    });
    expect(nextPremiumState({ hasPremium: false, checkedAt: 100, since: 100 }, false, 200)).toEqual(
      { hasPremium: false, checkedAt: 200, since: 100 },
    );
    expect(nextPremiumState({ hasPremium: false, checkedAt: 200, since: 100 }, true, 300)).toEqual({
      hasPremium: true,
      checkedAt: 300,
      since: 300,
    });
  });
});
