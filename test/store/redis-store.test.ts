import { pairKey } from '../../src/monitor/pair-key.js';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyPairs } from '../../src/monitor/classify.js';
import { historyAfter } from '../../src/monitor/history-change.js';
import { latestRuns } from '../../src/monitor/overdue.js';
import { addDays, dayNumber } from '../../src/dates.js';
import type { ActivePair, InvoiceSnapshot, LearnedState } from '../../src/monitor/types.js';
import { hashTag } from '../../src/config/schema.js';
import { FIELD, runField, sentField } from '../../src/store/keys.js';
import { RedisStore, type RunEffect } from '../../src/store/redis-store.js';
import { EXPIRED_SILENCE_RETENTION_MS } from '../../src/store/retention.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { SETTINGS, WARN, entry } from '../monitor/fixtures.js';
import { activeBlobV1, commandCalls, dump, notification, runRecord } from './fixtures.js';

let server: TestRedis;
let redis: Redis;
let prefixCounter = 0;

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
  // The restart test makes a real outage; the client reconnects by itself.
  redis.on('error', () => undefined);
});
afterAll(async () => {
  await server.shutdown();
});

/** A store under a prefix of its own: tests cannot see each other's data. */
function freshStore(): { store: RedisStore; prefix: string } {
  const prefix = `t${++prefixCounter}`;
  return { store: new RedisStore(redis, prefix), prefix };
}

const DAY = '2026-03-01';
const NOW = Date.UTC(2026, 2, 1, 12);
const DAY_MS = 86_400_000;
const load = (store: RedisStore, asOf = DAY, now = NOW) =>
  store.loadNetworkState('acme', { asOf, kind: 'traffic-check', now });

function history(n: number, asOf = DAY): ActivePair[] {
  const result = classifyPairs({
    asOf,
    entries: Array.from({ length: n }, (_, i) => entry(1 + (i % 3), `isp ${i}`, WARN)),
    active: [],
    settings: SETTINGS,
    silences: [],
  });
  return historyAfter(result.changes);
}

function effect(over: Partial<RunEffect> = {}): RunEffect {
  return {
    networkId: 'acme',
    expectedRev: 0,
    run: runRecord(DAY),
    notifications: [],
    ...over,
  };
}

describe('RedisStore: network state and runs', () => {
  it('an unknown network loads empty', async () => {
    const { store } = freshStore();
    const state = await load(store);
    expect(state).toEqual({
      rev: 0,
      active: [],
      runs: [],
      silences: [],
      sentEvents: new Set(),
    });
  });

  it('keeps the listed runs beside the history, in the same commands; absent: untouched', async () => {
    const { store } = freshStore();
    const runs = [
      { domainId: 1, isp: 'a', since: DAY, last: DAY, days: 1, clicks: 80, d7: 100, d14: 99 },
      { domainId: 2, isp: 'b:c', since: DAY, last: DAY, days: 1, clicks: 5, d7: 60, d14: 70 },
    ];
    await store.commitRun(effect({ history: { upsert: history(2), remove: [], runs } }));
    const state = await load(store);
    expect(state.runs).toEqual(runs);
    expect(state.runs.map((r) => pairKey(r.domainId, r.isp))).toEqual(['1:a', '2:b:c']);
    // A commit without runs (an older decision, or no list today) leaves them as they were.
    await store.commitRun(
      effect({
        expectedRev: 1,
        run: runRecord(addDays(DAY, 1)),
        history: { upsert: [], remove: [] },
      }),
    );
    expect((await load(store, addDays(DAY, 1))).runs).toEqual(runs);
  });

  it('keeps what is learned of the network beside the history; absent: untouched; garbage: unreadable, named', async () => {
    const { store } = freshStore();
    const learned: LearnedState = {
      variation: {
        asOf: DAY,
        spread: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        spreadWeight: [10, 10, 11, 11, 12, 12],
        shared: [0.01, 0.01, 0.02, 0.02, 0.03, 0.03],
        sharedWeight: [3, 3, 3, 3, 3, 3],
        network: [0, 0, 0.01, 0.01, 0.01, 0.01],
        networkWeight: [1, 1, 1, 1, 1, 1],
        days: 12.5,
      },
      known: [
        { domainId: 7, since: 20_000, level: 1, hashes: [3, 9000], lastListed: [20_010, 20_011] },
      ],
      drops: [
        {
          scope: 'domain',
          domainId: 7,
          domainUrl: 'https://d7.example',
          firstSeen: DAY,
          lastSeen: DAY,
          lastNotified: DAY,
          dropPercent: 41.5,
          dropPercent14: 40,
          notifiedDropPercent: 41.5,
          quietRuns: 0,
        },
        {
          scope: 'network',
          domainId: 0,
          domainUrl: '',
          firstSeen: DAY,
          lastSeen: DAY,
          dropPercent: 22,
          dropPercent14: 23,
          notifiedDropPercent: 22,
          quietRuns: 1,
          quietAsOf: DAY,
        },
      ],
    };
    await store.commitRun(effect({ history: { upsert: history(1), remove: [], learned } }));
    expect((await load(store)).learned).toEqual(learned);
    const { state } = await store.networkNow('acme', 'UTC', NOW);
    expect(state.learned).toEqual(learned.variation);
    // A commit without it (no list today, an older version) leaves it as it was.
    await store.commitRun(
      effect({
        expectedRev: 1,
        run: runRecord(addDays(DAY, 1)),
        history: { upsert: [], remove: [] },
      }),
    );
    expect((await load(store, addDays(DAY, 1))).learned).toEqual(learned);
    const key = store.keys.network('acme');
    await redis.hset(key, FIELD.learned, JSON.stringify({ ...learned, known: 'nope' }));
    await expect(load(store, addDays(DAY, 1))).rejects.toMatchObject({
      name: 'StoredStateError',
      field: FIELD.learned,
    });
  });

  it('reads the history and runs an earlier version wrote as JSON; the next commit writes them in binary', async () => {
    const { store } = freshStore();
    const pairs = history(4);
    const runs = [
      { domainId: 1, isp: 'isp 0', since: DAY, last: DAY, days: 1, clicks: 80, d7: 100, d14: 99 },
    ];
    // Version 1, as earlier versions wrote it: {"v":1,"d":[[domainId,(url,)[...values]],...]}.
    const activeV1 = activeBlobV1(pairs);
    const runsV1 = JSON.stringify({
      v: 1,
      d: [[1, ['isp 0', dayNumber(DAY), dayNumber(DAY), 1, 80, 100, 99]]],
    });
    const key = store.keys.network('acme');
    await redis.hset(key, FIELD.active, activeV1, FIELD.runs, runsV1);
    const state = await load(store);
    expect(state.active).toHaveLength(pairs.length);
    expect(state.active).toEqual(
      expect.arrayContaining(
        pairs.map((p) => ({ ...p, dropPercent: Math.round(p.dropPercent * 100) / 100 })),
      ),
    );
    expect(state.runs).toEqual(runs);
    await store.commitRun(
      effect({ history: { upsert: state.active, remove: [], runs: state.runs } }),
    );
    for (const field of [FIELD.active, FIELD.runs]) {
      const stored = await redis.hgetBuffer(key, field);
      // Version 2: a 0x00 byte (no JSON begins so), then the version.
      expect([stored![0], stored![1]]).toEqual([0, 2]);
    }
    const again = await load(store);
    expect(again.active).toEqual(state.active);
    expect(again.runs).toEqual(runs);
  });

  it('commits a run whole and loads it back', async () => {
    const { store, prefix } = freshStore();
    const pairs = history(5);
    const snapshot: InvoiceSnapshot = {
      time: 1,
      status: 'unpaid',
      total_count: 2,
      balance: 3.5,
      billed: 4,
      paid: 0.5,
    };
    const result = await store.commitRun(
      effect({
        run: runRecord(DAY, { notificationIds: ['n1'] }),
        history: { upsert: pairs, remove: [] },
        notifications: [notification('n1', { events: ['new|1:isp 0', 'new|2:a\nb'] })],
        sentEvents: ['new|1:isp 0', 'new|2:a\nb'],
        premium: { hasPremium: true, checkedAt: 5, since: 4 },
        problem: { kind: 'traffic-check', openedAt: 1, code: 'THM_API_AUTH', message: 'm' },
        invoiceSnapshot: { snapshot, keep: 10 },
      }),
    );
    expect(result).toEqual({ committed: true, rev: 1 });
    const state = await load(store);
    expect(state.rev).toBe(1);
    const byKey = (a: ActivePair, b: ActivePair) =>
      a.domainId - b.domainId || a.isp.localeCompare(b.isp);
    expect([...state.active].sort(byKey)).toEqual([...pairs].sort(byKey));
    expect(state.run).toEqual(runRecord(DAY, { notificationIds: ['n1'] }));
    expect(state.sentEvents).toEqual(new Set(['new|1:isp 0', 'new|2:a\nb']));
    expect(state.premium).toEqual({ hasPremium: true, checkedAt: 5, since: 4 });
    expect(state.problem?.code).toBe('THM_API_AUTH');
    expect(state.latestInvoice).toEqual(snapshot);
    expect(await store.listInvoiceSnapshots('acme', 5)).toEqual([snapshot]);
    // The outbox keeps what delivery needs; the events live in the sent-events record only.
    const { events: _events, ...delivered } = notification('n1');
    expect(await store.getNotification('n1')).toEqual({
      notification: delivered,
      state: 'pending',
      attempts: 0,
    });
    expect(await redis.hget(`${prefix}:store:outbox:body`, 'n1')).not.toContain('events');
    expect(await store.getRun('acme', 'traffic-check', DAY)).toEqual(state.run);
    expect(await store.networkIds()).toEqual(['acme']);

    // The next day: another as-of, its own (absent) run record and sent events.
    const next = await load(store, addDays(DAY, 1));
    expect(next.run).toBeUndefined();
    expect(next.sentEvents.size).toBe(0);
    expect(next.active).toHaveLength(5);
  });

  it('a stored error code of the family reads typed; one this version does not know, as THM_INTERNAL', async () => {
    const { store } = freshStore();
    const failed = runRecord(DAY, {
      outcome: 'failed',
      error: { code: 'THM_API_REALM', message: 'Out of realm' },
    });
    await store.commitRun(effect({ run: failed }));
    expect((await load(store)).run?.error).toEqual({
      code: 'THM_API_REALM',
      message: 'Out of realm',
    });
    const episode = {
      kind: 'traffic-check',
      openedAt: 1,
      code: 'THM_FROM_ELSEWHERE',
      message: 'm',
    };
    await redis.hset(store.keys.network('acme'), FIELD.problem, JSON.stringify(episode));
    expect((await load(store)).problem).toEqual({ ...episode, code: 'THM_INTERNAL' });
  });

  it('problem null closes the episode; undefined leaves it', async () => {
    const { store } = freshStore();
    const problem = {
      kind: 'traffic-check' as const,
      openedAt: 1,
      code: 'THM_API_AUTH' as const,
      message: 'm',
    };
    await store.commitRun(effect({ run: runRecord(DAY, { outcome: 'failed' }), problem }));
    await store.commitRun(effect({ expectedRev: 1, run: runRecord(addDays(DAY, 1)) }));
    expect((await load(store)).problem).toEqual(problem);
    await store.commitRun(
      effect({ expectedRev: 2, run: runRecord(addDays(DAY, 2)), problem: null }),
    );
    expect((await load(store)).problem).toBeUndefined();
  });

  it('refuses a commit against a stale revision, and writes nothing', async () => {
    const { store, prefix } = freshStore();
    await store.commitRun(effect({ history: { upsert: history(3), remove: [] } }));
    const before = await dump(redis, prefix);
    const stale = await store.commitRun(
      effect({
        expectedRev: 0,
        run: runRecord(addDays(DAY, 1)),
        history: { upsert: [], remove: [] },
        notifications: [notification('late')],
      }),
    );
    expect(stale).toEqual({ committed: false, reason: 'conflict' });
    expect(await dump(redis, prefix)).toEqual(before);
  });

  it('a second run of (kind, as-of) is refused as exists, with the first record', async () => {
    const { store, prefix } = freshStore();
    const first = runRecord(DAY, {
      counts: { new: 3, worse: 0, reminder: 0, ongoing: 0, cleared: 0, silenced: 0 },
    });
    await store.commitRun(effect({ run: first }));
    const before = await dump(redis, prefix);
    const again = await store.commitRun(
      effect({
        expectedRev: 1,
        run: runRecord(DAY, { runs: 2 }),
        notifications: [notification('x')],
      }),
    );
    expect(again).toEqual({ committed: false, reason: 'exists', run: first });
    expect(await dump(redis, prefix)).toEqual(before);
    // 'exists' wins over a stale revision: the caller learns the run is done.
    expect(await store.commitRun(effect({ run: runRecord(DAY) }))).toMatchObject({
      reason: 'exists',
    });
    // Another kind on the same date is another run.
    const invoiceRun = runRecord(DAY, { kind: 'invoice-snapshot' });
    expect(await store.commitRun(effect({ expectedRev: 1, run: invoiceRun }))).toMatchObject({
      committed: true,
    });
  });

  it('force runs again; a failed record is replaced without force', async () => {
    const { store } = freshStore();
    await store.commitRun(effect({ run: runRecord(DAY, { outcome: 'failed' }) }));
    expect(await store.commitRun(effect({ expectedRev: 1, run: runRecord(DAY) }))).toMatchObject({
      committed: true,
    });
    const forced = runRecord(DAY, { runs: 2 });
    expect(
      await store.commitRun(effect({ expectedRev: 2, run: forced, force: true })),
    ).toMatchObject({ committed: true, rev: 3 });
    expect((await load(store)).run).toEqual(forced);
  });

  it('sent events accumulate per as-of; a notification id is never added twice', async () => {
    const { store } = freshStore();
    await store.commitRun(
      effect({
        notifications: [notification('n1', { subject: 'first' })],
        sentEvents: ['new|1:a'],
      }),
    );
    await store.markSent('n1', NOW);
    await store.commitRun(
      effect({
        expectedRev: 1,
        force: true,
        run: runRecord(DAY, { runs: 2 }),
        notifications: [
          notification('n1', { subject: 'second' }),
          notification('n2'),
          notification('n2'),
        ],
        sentEvents: ['worse|1:b'],
      }),
    );
    expect((await load(store)).sentEvents).toEqual(new Set(['new|1:a', 'worse|1:b']));
    const n1 = await store.getNotification('n1');
    expect(n1?.notification.subject).toBe('first');
    expect(n1?.state).toBe('sent');
    expect(await store.outboxCounts()).toEqual({ pending: 1, sent: 1, failed: 0 });
  });

  it('keeps run records and sent events 60 days; invoice snapshots to `keep`', async () => {
    const { store } = freshStore();
    for (let i = 0; i < 70; i++) {
      const asOf = addDays(DAY, i);
      const snapshot = {
        time: i,
        status: 'unpaid',
        total_count: i,
        balance: 0,
        billed: 0,
        paid: 0,
      };
      const result = await store.commitRun(
        effect({
          expectedRev: i,
          run: runRecord(asOf, { finishedAt: NOW + i * DAY_MS }),
          sentEvents: [`new|1:${i}`],
          invoiceSnapshot: { snapshot, keep: 3 },
        }),
      );
      expect(result.committed).toBe(true);
    }
    const runs = await store.listRuns('acme');
    const last = addDays(DAY, 69);
    expect(runs[0]?.asOf).toBe(last);
    expect(runs.at(-1)?.asOf).toBe(addDays(last, -60));
    expect(runs).toHaveLength(61);
    expect(await store.getRun('acme', 'traffic-check', addDays(last, -61))).toBeUndefined();
    const fields = await redis.hkeys(store.keys.network('acme'));
    expect(fields.filter((f) => f.startsWith('sent:'))).toHaveLength(61);
    expect(fields).not.toContain(sentField(addDays(last, -61)));
    expect((await store.listInvoiceSnapshots('acme', 10)).map((s) => s.time)).toEqual([69, 68, 67]);
    expect(await store.listRuns('acme', { limit: 2 })).toHaveLength(2);
    expect(await store.listRuns('acme', { days: 0, now: NOW + 68 * DAY_MS })).toHaveLength(2);

    // Retention counts from the clock, not from the as-of date: a far-future label (a manual
    // --date) prunes nothing more.
    const future = await store.commitRun(
      effect({ expectedRev: 70, run: runRecord('2030-01-01', { finishedAt: NOW + 69 * DAY_MS }) }),
    );
    expect(future.committed).toBe(true);
    expect(await store.listRuns('acme')).toHaveLength(62);
  });

  it('runDates: the dates with a record of the kind, newest first, from the field names alone', async () => {
    const { store } = freshStore();
    expect(await store.runDates('acme', 'traffic-check')).toEqual([]);
    const runs = [
      runRecord(addDays(DAY, 1)),
      runRecord(DAY),
      runRecord(addDays(DAY, 2), { kind: 'invoice-snapshot' }),
    ];
    for (const [i, run] of runs.entries())
      expect((await store.commitRun(effect({ expectedRev: i, run }))).committed).toBe(true);
    // A record that does not parse is still a date that ran: no record is read.
    await redis.hset(store.keys.network('acme'), runField('traffic-check', addDays(DAY, -3)), '{');
    expect(await store.runDates('acme', 'traffic-check')).toEqual([
      addDays(DAY, 1),
      DAY,
      addDays(DAY, -3),
    ]);
    expect(await store.runDates('acme', 'invoice-snapshot')).toEqual([addDays(DAY, 2)]);
  });

  it('latestRuns: the latest of each kind and the last success, as latestRuns over listRuns', async () => {
    const { store } = freshStore();
    expect(await store.latestRuns('acme')).toEqual({ any: false });
    const records = [
      runRecord(addDays(DAY, 0), { finishedAt: NOW }),
      runRecord(addDays(DAY, 1), { finishedAt: NOW + DAY_MS }),
      // The latest traffic-check failed; the last success is the day before.
      runRecord(addDays(DAY, 2), { finishedAt: NOW + 2 * DAY_MS, outcome: 'failed' }),
      // A backfill of an older date, done last: the latest invoice-snapshot by finish time.
      runRecord(addDays(DAY, 1), { kind: 'invoice-snapshot', finishedAt: NOW + 3 * DAY_MS }),
      runRecord(addDays(DAY, 2), { kind: 'invoice-snapshot', finishedAt: NOW + 2 * DAY_MS }),
    ];
    for (const [i, run] of records.entries())
      expect((await store.commitRun(effect({ expectedRev: i, run }))).committed).toBe(true);
    const latest = await store.latestRuns('acme');
    const expected = latestRuns(await store.listRuns('acme'));
    expect(latest).toEqual({ any: true, ...expected });
    expect(latest.trafficCheck).toMatchObject({ asOf: addDays(DAY, 2), outcome: 'failed' });
    expect(latest.lastSuccess).toMatchObject({ asOf: addDays(DAY, 1), outcome: 'ok' });
    expect(latest.invoiceSnapshot).toMatchObject({ asOf: addDays(DAY, 1) });
  });

  it("latestRuns chooses by the index's lines and reads only the chosen records; a re-run's line replaces its old one", async () => {
    const { store } = freshStore();
    const key = store.keys.network('acme');
    const older = runRecord(addDays(DAY, -1), { finishedAt: NOW - DAY_MS });
    await store.commitRun(effect({ run: older }));
    // A failed record, then the run that replaces it (no force needed): one line, the new one.
    await store.commitRun(
      effect({ expectedRev: 1, run: runRecord(DAY, { finishedAt: NOW, outcome: 'failed' }) }),
    );
    await store.commitRun(effect({ expectedRev: 2, run: runRecord(DAY, { finishedAt: NOW + 1 }) }));
    const index = ((await redis.hget(key, FIELD.index)) ?? '').split('\n');
    expect(index.filter((line) => line.endsWith(` ${runField('traffic-check', DAY)}`))).toEqual([
      `${DAY}|${NOW + 1}|ok ${runField('traffic-check', DAY)}`,
    ]);
    expect(index).toContain(
      `${addDays(DAY, -1)}|${NOW - DAY_MS}|ok ${runField('traffic-check', addDays(DAY, -1))}`,
    );
    // The older record is not read: broken, it does not stop status; listRuns still finds it.
    await redis.hset(key, runField('traffic-check', addDays(DAY, -1)), '{');
    const latest = await store.latestRuns('acme');
    expect(latest).toMatchObject({ any: true, trafficCheck: { asOf: DAY, finishedAt: NOW + 1 } });
    expect(latest.lastSuccess).toBe(latest.trafficCheck);
    await expect(store.listRuns('acme')).rejects.toMatchObject({ name: 'StoredStateError' });
  });

  it("latestRuns: a line that does not say what its record is (an older version's re-run) is not trusted: all records are read", async () => {
    const { store } = freshStore();
    const key = store.keys.network('acme');
    await store.commitRun(effect({ run: runRecord(addDays(DAY, -1), { finishedAt: NOW - 1 }) }));
    await store.commitRun(effect({ expectedRev: 1, run: runRecord(DAY, { finishedAt: NOW }) }));
    const field = runField('traffic-check', addDays(DAY, -1));
    const index = (await redis.hget(key, FIELD.index)) ?? '';
    // Its line says it finished last and failed; its record says neither.
    await redis.hset(
      key,
      FIELD.index,
      index.replace(
        `${addDays(DAY, -1)}|${NOW - 1}|ok ${field}`,
        `${addDays(DAY, -1)}|${NOW + 9}|failed ${field}`,
      ),
    );
    const latest = await store.latestRuns('acme');
    expect(latest).toEqual({ any: true, ...latestRuns(await store.listRuns('acme')) });
    expect(latest.trafficCheck).toMatchObject({ asOf: DAY, finishedAt: NOW });
    // Lines of the old form ("<as-of> <field>"): their records are read and chosen from.
    await redis.hset(
      key,
      FIELD.index,
      `${addDays(DAY, -1)} ${field}\n${DAY} ${runField('traffic-check', DAY)}`,
    );
    expect(await store.latestRuns('acme')).toEqual(latest);
  });

  it('latestRuns: a broken record that could be chosen is unreadable state, naming its field; an older one broken elsewhere is left to listRuns', async () => {
    const { store } = freshStore();
    const key = store.keys.network('acme');
    await store.commitRun(effect({ run: runRecord(DAY, { finishedAt: NOW }) }));
    const older = runField('traffic-check', addDays(DAY, -1));
    const index = (await redis.hget(key, FIELD.index)) ?? '';
    await redis.hset(key, FIELD.index, `${index}\n${addDays(DAY, -1)} ${older}`);
    // Older, and without its notification ids: not chosen, so not read whole.
    const { notificationIds: _, ...incomplete } = runRecord(addDays(DAY, -1), { finishedAt: 1 });
    await redis.hset(key, older, JSON.stringify(incomplete));
    expect((await store.latestRuns('acme')).trafficCheck?.asOf).toBe(DAY);
    await expect(store.listRuns('acme')).rejects.toThrow(/notificationIds/);
    // The same record as the latest: chosen, validated, refused.
    await redis.hset(key, older, JSON.stringify({ ...incomplete, finishedAt: NOW + 1 }));
    await expect(store.latestRuns('acme')).rejects.toMatchObject({
      name: 'StoredStateError',
      field: older,
      message: expect.stringMatching(/notificationIds/),
    });
    // Not JSON, or a kind, outcome or finish time that cannot be chosen by: refused wherever.
    for (const broken of [
      '{"networkId":',
      JSON.stringify({ ...incomplete, outcome: 'maybe' }),
      JSON.stringify({ ...incomplete, finishedAt: 'yesterday' }),
    ]) {
      await redis.hset(key, older, broken);
      await expect(store.latestRuns('acme')).rejects.toMatchObject({
        name: 'StoredStateError',
        field: older,
      });
    }
  });

  it('networkNow (status, metrics): the history as its drops, the rest as a run reads it; a field a run could not read is unreadable state', async () => {
    const { store } = freshStore();
    const upsert = history(3);
    await store.commitRun(effect({ history: { upsert, remove: [] } }));
    const { state, latest } = await store.networkNow('acme', 'UTC', NOW);
    expect(state.activeDrops.sort()).toEqual(upsert.map((p) => p.dropPercent).sort());
    expect(latest.trafficCheck?.asOf).toBe(DAY);
    // In the network's zone: 12:00 UTC on DAY is already the next day in Kiritimati (UTC+14),
    // whose run record is then the one a run would read.
    const key = store.keys.network('acme');
    await redis.hset(key, runField('traffic-check', addDays(DAY, 1)), '{');
    await expect(store.networkNow('acme', 'Pacific/Kiritimati', NOW)).rejects.toMatchObject({
      name: 'StoredStateError',
      field: runField('traffic-check', addDays(DAY, 1)),
    });
    await expect(store.networkNow('acme', 'UTC', NOW)).resolves.toBeDefined();
    // The listed runs and the history are checked though not decoded.
    for (const field of [FIELD.runs, FIELD.active]) {
      const stored = await redis.hgetBuffer(key, field);
      await redis.hset(key, field, '{"v":1,"d":[[1,"u",[7]]]}');
      await expect(store.networkNow('acme', 'UTC', NOW)).rejects.toMatchObject({
        name: 'StoredStateError',
        field,
      });
      if (stored === null) await redis.hdel(key, field);
      else await redis.hset(key, field, stored);
    }
    await expect(store.networkNow('acme', 'UTC', NOW)).resolves.toBeDefined();
  });

  it('deleteNetworkState removes the network and nothing else', async () => {
    const { store, prefix } = freshStore();
    await store.commitRun(
      effect({
        history: { upsert: history(2), remove: [] },
        invoiceSnapshot: {
          snapshot: { time: 1, status: 'unpaid', total_count: 0, balance: 0, billed: 0, paid: 0 },
          keep: 5,
        },
      }),
    );
    const silence = await store.addSilence(
      { networkId: 'acme', reason: 'r', expiresAt: NOW + 1000 },
      NOW,
    );
    await store.commitRun({
      ...effect(),
      networkId: 'other',
      run: runRecord(DAY, { networkId: 'other' }),
    });
    await store.deleteNetworkState('acme');
    expect(await store.networkIds()).toEqual(['other']);
    expect((await load(store)).rev).toBe(0);
    expect(await store.removeSilence(silence.id, NOW)).toBe(false);
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.filter((k) => k.includes('acme'))).toEqual([]);
    expect(await redis.hlen(store.keys.silenceIds)).toBe(0);
  });

  it('rejects a network id that is not a slug, before touching Redis', async () => {
    const { store } = freshStore();
    await expect(load(store).then(() => store.getRun('a:b', 'traffic-check', DAY))).rejects.toThrow(
      /not a network id/,
    );
  });
});

describe('RedisStore: atomicity (a failure inside the commit leaves nothing behind)', () => {
  async function seeded() {
    const { store, prefix } = freshStore();
    await store.commitRun(
      effect({
        history: { upsert: history(4), remove: [] },
        notifications: [notification('n0')],
        sentEvents: ['new|1:isp 0'],
      }),
    );
    return { store, prefix };
  }

  const doomed = (_store: RedisStore): RunEffect =>
    effect({
      expectedRev: 1,
      run: runRecord(addDays(DAY, 1)),
      history: { upsert: history(1, addDays(DAY, 1)), remove: [] },
      notifications: [notification('n1'), notification('n2')],
      sentEvents: ['new|3:isp 9'],
      premium: { hasPremium: true, checkedAt: 1, since: 1 },
      problem: null,
      invoiceSnapshot: {
        snapshot: { time: 1, status: 'unpaid', total_count: 0, balance: 0, billed: 0, paid: 0 },
        keep: 5,
      },
    });

  it('the outbox queue is of the wrong type (WRONGTYPE at the first write)', async () => {
    const { store, prefix } = await seeded();
    await redis.del(store.keys.outboxPending);
    await redis.set(store.keys.outboxPending, 'not a zset');
    const before = await dump(redis, prefix);
    await expect(store.commitRun(doomed(store))).rejects.toMatchObject({
      code: 'THM_STORE',
      message: expect.stringContaining('WRONGTYPE'),
    });
    expect(await dump(redis, prefix)).toEqual(before);
  });

  it('the invoice series is of the wrong type', async () => {
    const { store, prefix } = await seeded();
    await redis.set(store.keys.invoices('acme'), 'not a list');
    const before = await dump(redis, prefix);
    await expect(store.commitRun(doomed(store))).rejects.toMatchObject({ code: 'THM_STORE' });
    expect(await dump(redis, prefix)).toEqual(before);
  });

  it('the outbox bodies are of the wrong type', async () => {
    const { store, prefix } = await seeded();
    await redis.del(store.keys.outboxBody);
    await redis.set(store.keys.outboxBody, 'x');
    const before = await dump(redis, prefix);
    await expect(store.commitRun(doomed(store))).rejects.toMatchObject({ code: 'THM_STORE' });
    expect(await dump(redis, prefix)).toEqual(before);
  });

  it('a poisoned argument (a notification time that is not a number)', async () => {
    const { store, prefix } = await seeded();
    const before = await dump(redis, prefix);
    const poisoned = doomed(store);
    poisoned.notifications[1] = notification('n2', { createdAt: Number.NaN });
    await expect(store.commitRun(poisoned)).rejects.toMatchObject({
      code: 'THM_STORE',
      message: expect.stringContaining('invalid due time'),
    });
    expect(await dump(redis, prefix)).toEqual(before);
  });

  it('the networks set is of the wrong type on a first commit', async () => {
    const { store, prefix } = freshStore();
    await redis.set(store.keys.networks, 'x');
    const before = await dump(redis, prefix);
    await expect(store.commitRun({ ...doomed(store), expectedRev: 0 })).rejects.toMatchObject({
      code: 'THM_STORE',
    });
    expect(await dump(redis, prefix)).toEqual(before);
  });
});

describe('RedisStore: silences', () => {
  it('add, list, remove; ids are 8 hex characters', async () => {
    const { store } = freshStore();
    const a = await store.addSilence(
      { networkId: 'acme', domainId: 5, isp: 'Com*', reason: 'known', expiresAt: NOW + 60_000 },
      NOW,
    );
    const b = await store.addSilence(
      { networkId: 'other', reason: 'all', expiresAt: NOW + 60_000 },
      NOW + 1,
    );
    expect(a.id).toMatch(/^[0-9a-f]{8}$/);
    expect(a).toMatchObject({ createdAt: NOW, domainId: 5, isp: 'Com*', reason: 'known' });
    expect(await store.listSilences('acme', NOW)).toEqual([a]);
    expect(await store.listSilences(undefined, NOW)).toEqual([a, b]);
    expect((await load(store)).silences).toEqual([a]);
    expect(await store.removeSilence(a.id, NOW)).toBe(true);
    expect(await store.removeSilence(a.id, NOW)).toBe(false);
    expect(await store.removeSilence('deadbeef', NOW)).toBe(false);
    expect(await store.listSilences(undefined, NOW)).toEqual([b]);
  });

  it('expire for real, stay listable as expired for a while, then are dropped from storage', async () => {
    const { store } = freshStore();
    const short = await store.addSilence(
      { networkId: 'acme', isp: 'x', reason: 'short', expiresAt: Date.now() + 300 },
      Date.now(),
    );
    expect((await store.listSilences('acme')).map((s) => s.id)).toEqual([short.id]);
    expect(await store.listSilences('acme', Date.now(), { expired: true })).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await store.listSilences('acme')).toEqual([]);
    expect(
      (await store.listSilences('acme', Date.now(), { expired: true })).map((s) => s.id),
    ).toEqual([short.id]);
    const state = await store.loadNetworkState('acme', {
      asOf: DAY,
      kind: 'traffic-check',
      now: Date.now(),
    });
    expect(state.silences).toEqual([]);
    // Past the retention of expired silences, the next write drops it.
    const later = Date.now() + EXPIRED_SILENCE_RETENTION_MS + 1000;
    const long = await store.addSilence(
      { networkId: 'acme', reason: 'long', expiresAt: later + 60_000 },
      later,
    );
    const raw = await redis.hget(store.keys.network('acme'), FIELD.silences);
    expect(raw?.split('\n').map((l) => JSON.parse(l).id)).toEqual([long.id]);
    expect(await redis.hkeys(store.keys.silenceIds)).toEqual([long.id]);
    expect(await store.removeSilence(short.id, later)).toBe(false);
  });

  it('a silence that starts later is listed but not in force until it starts', async () => {
    const { store } = freshStore();
    const later = await store.addSilence(
      { networkId: 'acme', reason: 'window', startsAt: NOW + 1000, expiresAt: NOW + 2000 },
      NOW,
    );
    expect(await store.listSilences('acme', NOW)).toEqual([later]);
    expect((await load(store)).silences).toEqual([]);
    await expect(
      store.addSilence(
        { networkId: 'acme', reason: 'r', startsAt: NOW + 5, expiresAt: NOW + 5 },
        NOW,
      ),
    ).rejects.toThrow(/start before it ends/);
  });

  it('a silence must expire in the future', async () => {
    const { store } = freshStore();
    await expect(
      store.addSilence({ networkId: 'acme', reason: 'r', expiresAt: NOW }, NOW),
    ).rejects.toMatchObject({ code: 'THM_STORE' });
  });

  it('adding a silence does not disturb a run in progress (no revision change)', async () => {
    const { store } = freshStore();
    const state = await load(store);
    await store.addSilence({ networkId: 'acme', reason: 'r', expiresAt: NOW + 1 }, NOW);
    expect(await store.commitRun(effect({ expectedRev: state.rev }))).toMatchObject({
      committed: true,
    });
    expect(await store.listSilences('acme', NOW)).toHaveLength(1);
  });
});

describe('RedisStore: scheduled since', () => {
  it('keeps the first time a network was scheduled, in one command for all', async () => {
    const { store } = freshStore();
    expect(await store.scheduledSince(['acme', 'globex'])).toEqual(new Map());
    const before = await commandCalls(redis);
    await store.markScheduled(['acme', 'globex'], 1_000);
    const after = await commandCalls(redis);
    expect(after - before).toBe(2); // the two HSETNX, pipelined
    await store.markScheduled(['acme', 'initech'], 2_000); // a restart: acme keeps 1,000
    expect(await store.scheduledSince(['acme', 'globex', 'initech', 'nope'])).toEqual(
      new Map([
        ['acme', 1_000],
        ['globex', 1_000],
        ['initech', 2_000],
      ]),
    );
    await expect(store.markScheduled(['Bad Id'], 1)).rejects.toThrow(/not a network id/);
  });
});

describe('RedisStore: the episode of a network whose state is unreadable', () => {
  const episode = {
    kind: 'traffic-check' as const,
    openedAt: 5,
    code: 'THM_STORE' as const,
    message: 'x',
  };

  it('opens once with its notice; a second failure adds nothing', async () => {
    const { store } = freshStore();
    expect(await store.openUnreadableEpisode('acme', episode, [notification('p1')])).toBe(true);
    expect(await store.openUnreadableEpisode('acme', episode, [notification('p2')])).toBe(false);
    expect(await store.pendingNotificationIds(10, NOW)).toEqual(['p1']);
    expect(await store.unreadableEpisodeNetworks()).toEqual(['acme']);
  });

  it("hands over to the network's state as its open problem, and moves the revision on", async () => {
    const { store } = freshStore();
    await store.commitRun(effect());
    await store.openUnreadableEpisode('acme', episode, []);
    expect(await store.handOverUnreadableEpisode('acme')).toBe(true);
    const state = await load(store);
    expect(state).toMatchObject({ rev: 2, problem: episode });
    expect(await store.unreadableEpisodeNetworks()).toEqual([]);
    expect(await store.handOverUnreadableEpisode('acme')).toBe(false);
  });

  it('keeps a problem already open there; a deleted network gets the episode, no revision', async () => {
    const open = { ...episode, code: 'THM_API_AUTH' as const };
    const { store } = freshStore();
    await store.commitRun(effect({ problem: open }));
    await store.openUnreadableEpisode('acme', episode, []);
    await store.handOverUnreadableEpisode('acme');
    expect((await load(store)).problem).toEqual(open);

    const { store: fresh, prefix } = freshStore();
    await fresh.openUnreadableEpisode('acme', episode, []);
    await fresh.handOverUnreadableEpisode('acme');
    expect(await redis.hgetall(`${prefix}:store:net:acme`)).toEqual({
      problem: JSON.stringify(episode),
    });
  });

  it('an entry that is not an episode is dropped, never copied into the state', async () => {
    const { store, prefix } = freshStore();
    await store.commitRun(effect());
    await redis.hset(store.keys.unreadableEpisodes, 'acme', '{not json');
    expect(await store.handOverUnreadableEpisode('acme')).toBe(true);
    expect(await redis.hexists(`${prefix}:store:net:acme`, FIELD.problem)).toBe(0);
    expect((await load(store)).problem).toBeUndefined();
  });
});

describe('RedisStore: outbox', () => {
  async function withPending(store: RedisStore, ...ids: string[]) {
    await store.commitRun(
      effect({ notifications: ids.map((id, i) => notification(id, { createdAt: 1000 + i })) }),
    );
  }

  it('pending -> attempt (due later) -> failed -> retried -> sent', async () => {
    const { store } = freshStore();
    await withPending(store, 'a', 'b');
    expect(await store.pendingNotificationIds(10, 5000)).toEqual(['a', 'b']);
    expect(await store.pendingNotificationIds(1, 5000)).toHaveLength(1);
    expect(await store.pendingNotificationIds(10, 999)).toEqual([]);

    await store.recordAttempt('a', '421 try later', 9000);
    expect(await store.pendingNotificationIds(10, 5000)).toEqual(['b']);
    const attempted = await store.getNotification('a');
    expect(attempted).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: '421 try later',
      nextAttemptAt: 9000,
    });
    expect(await store.pendingNotificationIds(10, 9000)).toEqual(['b', 'a']);

    await store.markFailed('a', '550 no such user', 9100);
    expect(await store.getNotification('a')).toMatchObject({
      state: 'failed',
      attempts: 2,
      lastError: '550 no such user',
      failedAt: 9100,
    });
    expect((await store.failedNotifications()).map((e) => e.notification.id)).toEqual(['a']);
    expect(await store.outboxCounts()).toEqual({ pending: 1, sent: 0, failed: 1 });
    // A failed entry is not retried by the sender ...
    expect(await store.pendingNotificationIds(10, 99_999)).toEqual(['b']);
    // ... until the operator says so.
    expect(await store.retryFailed('a', 9200)).toBe(true);
    expect(await store.retryFailed('a', 9200)).toBe(false);
    // A fresh start: the backoff and a channel's give-up bound count from the retry.
    expect(await store.getNotification('a')).toMatchObject({ state: 'pending', attempts: 0 });

    await store.markSent('a', 9300);
    await store.markSent('b', 9400);
    expect(await store.getNotification('a')).toMatchObject({
      state: 'sent',
      sentAt: 9300,
      attempts: 1,
    });
    expect(await store.outboxCounts()).toEqual({ pending: 0, sent: 2, failed: 0 });
    expect(await store.pendingNotificationIds(10, 99_999)).toEqual([]);
    // Late reports about a sent entry change nothing.
    await store.recordAttempt('a', 'late', 10_000);
    await store.markFailed('a', 'late', 10_000);
    expect(await store.getNotification('a')).toMatchObject({ state: 'sent', attempts: 1 });
    expect(await store.getNotification('nope')).toBeUndefined();
  });

  it('the delivery lease: one holder at a time, ended by a transition or its owner', async () => {
    const { store } = freshStore();
    const NOW_MS = 9_000;
    await withPending(store, 'a', 'b');
    const first = await store.claimNotification('a', 'one', 60_000, NOW_MS);
    expect(first).toMatchObject({ status: 'claimed', entry: { state: 'pending', attempts: 0 } });
    expect(first.status === 'claimed' && first.entry.notification.id).toBe('a');
    expect(await store.claimNotification('a', 'two', 60_000, NOW_MS)).toEqual({ status: 'busy' });
    expect(await store.claimNotification('a', 'one', 60_000, NOW_MS)).toEqual({ status: 'busy' });
    // Someone else's release does not end it; the owner's does.
    await store.releaseNotification('a', 'two');
    expect(await store.claimNotification('a', 'two', 60_000, NOW_MS)).toEqual({ status: 'busy' });
    await store.releaseNotification('a', 'one');
    expect((await store.claimNotification('a', 'two', 60_000, NOW_MS)).status).toBe('claimed');
    // A transition ends it, and the claim sees the new state.
    await store.recordAttempt('a', '451 later', 5000);
    // Not before its next attempt is due, whoever asks.
    expect(await store.claimNotification('a', 'three', 60_000, 4999)).toEqual({
      status: 'not-due',
      dueAt: 5000,
    });
    const again = await store.claimNotification('a', 'three', 60_000, NOW_MS);
    expect(again).toMatchObject({ status: 'claimed', entry: { attempts: 1, nextAttemptAt: 5000 } });
    await store.markSent('a', 6000);
    expect(await store.claimNotification('a', 'four', 60_000, NOW_MS)).toEqual({ status: 'sent' });
    await store.markFailed('b', '550 no', 6000);
    expect(await store.claimNotification('b', 'four', 60_000, NOW_MS)).toEqual({
      status: 'failed',
    });
    expect(await store.claimNotification('nope', 'four', 60_000, NOW_MS)).toEqual({
      status: 'missing',
    });
    // It expires by itself.
    await store.retryFailed('b', 7000);
    expect((await store.claimNotification('b', 'five', 50, NOW_MS)).status).toBe('claimed');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await store.claimNotification('b', 'six', 60_000, NOW_MS)).status).toBe('claimed');
  });

  it('sent entries are trimmed after 7 days', async () => {
    const { store } = freshStore();
    await withPending(store, 'old', 'new');
    await store.markSent('old', 1_000);
    const week = 7 * 24 * 60 * 60 * 1000;
    await store.markSent('new', 1_000 + week + 1);
    expect(await store.getNotification('old')).toBeUndefined();
    expect(await store.outboxCounts()).toEqual({ pending: 0, sent: 1, failed: 0 });
    expect(await redis.hlen(store.keys.outboxMeta)).toBe(1);
  });
});

describe('RedisStore: Redis stopped and restarted', () => {
  it('keeps everything (AOF), and the same client carries on', async () => {
    const { store, prefix } = freshStore();
    await store.commitRun(
      effect({ history: { upsert: history(10), remove: [] }, notifications: [notification('n')] }),
    );
    const before = await dump(redis, prefix);
    await server.stop();
    // Issued during the outage: the client holds it and sends it once Redis is back.
    const during = load(store);
    await server.start();
    const state = await during;
    expect(state.active).toHaveLength(10);
    expect(await dump(redis, prefix)).toEqual(before);
  }, 30_000);
});

describe('RedisStore: Redis Cluster hash tags', () => {
  it('with a "{thm}" prefix every key hashes to the same slot', async () => {
    const store = new RedisStore(redis, '{thm}');
    await store.commitRun(
      effect({
        notifications: [notification('c1')],
        invoiceSnapshot: {
          snapshot: { time: 1, status: 'unpaid', total_count: 0, balance: 0, billed: 0, paid: 0 },
          keep: 5,
        },
      }),
    );
    await store.addSilence({ networkId: 'acme', reason: 'r', expiresAt: NOW + 1 }, NOW);
    await store.markFailed('c1', 'x', NOW);
    await store.retryFailed('c1', NOW);
    await store.markSent('c1', NOW);
    const keys = await redis.keys('{thm}*');
    const k = store.keys;
    // pending and failed are empty again (Redis drops empty zsets); the rest must be there.
    for (const key of [k.network('acme'), k.invoices('acme'), k.networks, k.silenceIds]) {
      expect(keys).toContain(key);
    }
    for (const key of [k.outboxBody, k.outboxMeta, k.outboxSent]) expect(keys).toContain(key);
    expect(new Set(keys.map(hashTag))).toEqual(new Set(['thm']));
    expect(hashTag('thm:store:net:acme')).toBeUndefined();
  });
});

describe('RedisStore: targets P2 (commands per run) and P4 (memory per pair)', () => {
  /** Day 1 makes `n` pairs active; day 2 is measured: load, classify, commit with an e-mail. */
  async function commandsPerRun(n: number): Promise<number> {
    const { store } = freshStore();
    const admin = server.client();
    const entries = Array.from({ length: n }, (_, i) =>
      entry(1000 + Math.floor(i / 25), `ISP ${i} Communications`, WARN),
    );
    const day = async (asOf: string, measure: boolean): Promise<number> => {
      const before = measure ? await commandCalls(admin) : 0;
      const state = await load(store, asOf);
      const classification = classifyPairs({
        asOf,
        entries,
        active: state.active,
        settings: SETTINGS,
        silences: state.silences,
      });
      const result = await store.commitRun(
        effect({
          expectedRev: state.rev,
          run: runRecord(asOf, { counts: classification.counts, pairsListed: n }),
          history: classification.changes,
          notifications: [notification(`alert-${asOf}`)],
          sentEvents: [
            `worse|${pairKey(classification.pairs[0]!.domainId, classification.pairs[0]!.isp)}`,
          ],
          premium: { hasPremium: true, checkedAt: 1, since: 1 },
        }),
      );
      expect(result.committed).toBe(true);
      expect(classification.pairs).toHaveLength(n);
      return measure ? (await commandCalls(admin)) - before : 0;
    };
    await day(DAY, false);
    return day(addDays(DAY, 1), true);
  }

  it('a traffic-check costs the same few commands at 1,000 and 50,000 pairs', async () => {
    const small = await commandsPerRun(1_000);
    const large = await commandsPerRun(50_000);
    console.log(`P2: commands per traffic-check: ${small} at 1,000 pairs, ${large} at 50,000`);
    expect(small).toBeLessThanOrEqual(10);
    expect(large).toBe(small);
  }, 120_000);

  it('an active pair costs at most 300 bytes of Redis memory', async () => {
    const { store } = freshStore();
    const n = 10_000;
    const entries = Array.from({ length: n }, (_, i) =>
      entry(1000 + Math.floor(i / 25), `ISP ${i} Communications`, WARN),
    );
    const classification = classifyPairs({
      asOf: DAY,
      entries,
      active: [],
      settings: SETTINGS,
      silences: [],
    });
    await store.commitRun(effect({ history: classification.changes }));
    const bytes = Number(
      await redis.call('MEMORY', 'USAGE', store.keys.network('acme'), 'SAMPLES', '0'),
    );
    console.log(`P4: ${(bytes / n).toFixed(1)} bytes per active pair (MEMORY USAGE of the hash)`);
    expect((await load(store)).active).toHaveLength(n);
    expect(bytes / n).toBeLessThanOrEqual(300);
  }, 60_000);
});

describe('RedisStore: keys', () => {
  it('run and sent fields are dated per as-of date', () => {
    expect(runField('traffic-check', DAY)).toBe('run:traffic-check:2026-03-01');
    expect(sentField(DAY)).toBe('sent:2026-03-01');
  });
});
