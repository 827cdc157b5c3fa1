import { pairKey } from '../../src/monitor/pair-key.js';
import { describe, expect, it } from 'vitest';
import { classifyPairs } from '../../src/monitor/classify.js';
import { addDays, dayNumber } from '../../src/dates.js';
import type { ActivePair, InvoiceSnapshot, LearnedState } from '../../src/monitor/types.js';
import { FIELD, runField, sentField } from '../../src/store/keys.js';
import { RedisStore, type RunEffect } from '../../src/store/redis-store.js';
import { SETTINGS, WARN, entry } from '../monitor/fixtures.js';
import {
  DAY,
  DAY_MS,
  NOW,
  activeBlobV1,
  commandCalls,
  dump,
  effect,
  history,
  load,
  notification,
  runRecord,
} from './fixtures.js';
import { useStoreRedis } from './store-redis.js';

const db = useStoreRedis();

describe('network state: load and commit', () => {
  it('an unknown network loads empty', async () => {
    const { store } = db.freshStore();
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
    const { store } = db.freshStore();
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
    const { store } = db.freshStore();
    const learned: LearnedState = {
      variation: {
        asOf: DAY,
        spread: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        spreadWeight: [10, 10, 11, 11, 12, 12],
        shared: [0.01, 0.01, 0.02, 0.02, 0.03, 0.03],
        sharedWeight: [3, 3, 3, 3, 3, 3],
        network: [0, 0, 0.01, 0.01, 0.01, 0.01],
        networkSquares: [0, 0, 1e-4, 1e-4, 2e-4, 2e-4],
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
      networkDips: [
        { seen: addDays(DAY, -14), kept: 0.72, told: true },
        { seen: addDays(DAY, -3), kept: 0.83 },
      ],
      levelShifts: [{ domainId: 7, firstSeen: DAY }],
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
    await db.redis.hset(key, FIELD.learned, JSON.stringify({ ...learned, known: 'nope' }));
    await expect(load(store, addDays(DAY, 1))).rejects.toMatchObject({
      name: 'StoredStateError',
      field: FIELD.learned,
    });
    // Status's read (networkNow) checks it as a run reads it: the part it shows and the rest.
    await expect(store.networkNow('acme', 'UTC', NOW)).rejects.toMatchObject({
      name: 'StoredStateError',
      field: FIELD.learned,
      message: expect.stringContaining('learned variation is invalid at known'),
    });
    const spread = ['0.1', ...learned.variation!.spread.slice(1)];
    await db.redis.hset(
      key,
      FIELD.learned,
      JSON.stringify({ ...learned, variation: { ...learned.variation, spread } }),
    );
    await expect(store.networkNow('acme', 'UTC', NOW)).rejects.toMatchObject({
      field: FIELD.learned,
      message: expect.stringContaining('learned variation is invalid at variation.spread.0'),
    });
  });

  it('reads the history and runs an earlier version wrote as JSON; the next commit writes them in binary', async () => {
    const { store } = db.freshStore();
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
    await db.redis.hset(key, FIELD.active, activeV1, FIELD.runs, runsV1);
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
      const stored = await db.redis.hgetBuffer(key, field);
      // Version 2: a 0x00 byte (no JSON begins so), then the version.
      expect([stored![0], stored![1]]).toEqual([0, 2]);
    }
    const again = await load(store);
    expect(again.active).toEqual(state.active);
    expect(again.runs).toEqual(runs);
  });

  it('commits a run whole and loads it back', async () => {
    const { store, prefix } = db.freshStore();
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
    expect(await db.redis.hget(`${prefix}:store:outbox:body`, 'n1')).not.toContain('events');
    expect(await store.getRun('acme', 'traffic-check', DAY)).toEqual(state.run);
    expect(await store.networkIds()).toEqual(['acme']);

    // The next day: another as-of, its own (absent) run record and sent events.
    const next = await load(store, addDays(DAY, 1));
    expect(next.run).toBeUndefined();
    expect(next.sentEvents.size).toBe(0);
    expect(next.active).toHaveLength(5);
  });

  it('a stored error code of the family reads typed; one this version does not know, as THM_INTERNAL', async () => {
    const { store } = db.freshStore();
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
    await db.redis.hset(store.keys.network('acme'), FIELD.problem, JSON.stringify(episode));
    expect((await load(store)).problem).toEqual({ ...episode, code: 'THM_INTERNAL' });
  });

  it('problem null closes the episode; undefined leaves it', async () => {
    const { store } = db.freshStore();
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
    const { store, prefix } = db.freshStore();
    await store.commitRun(effect({ history: { upsert: history(3), remove: [] } }));
    const before = await dump(db.redis, prefix);
    const stale = await store.commitRun(
      effect({
        expectedRev: 0,
        run: runRecord(addDays(DAY, 1)),
        history: { upsert: [], remove: [] },
        notifications: [notification('late')],
      }),
    );
    expect(stale).toEqual({ committed: false, reason: 'conflict' });
    expect(await dump(db.redis, prefix)).toEqual(before);
  });

  it('a second run of (kind, as-of) is refused as exists, with the first record', async () => {
    const { store, prefix } = db.freshStore();
    const first = runRecord(DAY, {
      counts: { new: 3, worse: 0, reminder: 0, ongoing: 0, cleared: 0, silenced: 0 },
    });
    await store.commitRun(effect({ run: first }));
    const before = await dump(db.redis, prefix);
    const again = await store.commitRun(
      effect({
        expectedRev: 1,
        run: runRecord(DAY, { runs: 2 }),
        notifications: [notification('x')],
      }),
    );
    expect(again).toEqual({ committed: false, reason: 'exists', run: first });
    expect(await dump(db.redis, prefix)).toEqual(before);
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
    const { store } = db.freshStore();
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
    const { store } = db.freshStore();
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
    const { store } = db.freshStore();
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
    const fields = await db.redis.hkeys(store.keys.network('acme'));
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

  it('networkNow (status, metrics): the history as its drops, the rest as a run reads it; a field a run could not read is unreadable state', async () => {
    const { store } = db.freshStore();
    const upsert = history(3);
    await store.commitRun(effect({ history: { upsert, remove: [] } }));
    const { state, latest } = await store.networkNow('acme', 'UTC', NOW);
    expect(state.activeDrops.sort()).toEqual(upsert.map((p) => p.dropPercent).sort());
    expect(latest.trafficCheck?.asOf).toBe(DAY);
    // In the network's zone: 12:00 UTC on DAY is already the next day in Kiritimati (UTC+14),
    // whose run record is then the one a run would read.
    const key = store.keys.network('acme');
    await db.redis.hset(key, runField('traffic-check', addDays(DAY, 1)), '{');
    await expect(store.networkNow('acme', 'Pacific/Kiritimati', NOW)).rejects.toMatchObject({
      name: 'StoredStateError',
      field: runField('traffic-check', addDays(DAY, 1)),
    });
    await expect(store.networkNow('acme', 'UTC', NOW)).resolves.toBeDefined();
    // The listed runs and the history are checked though not decoded.
    for (const field of [FIELD.runs, FIELD.active]) {
      const stored = await db.redis.hgetBuffer(key, field);
      await db.redis.hset(key, field, '{"v":1,"d":[[1,"u",[7]]]}');
      await expect(store.networkNow('acme', 'UTC', NOW)).rejects.toMatchObject({
        name: 'StoredStateError',
        field,
      });
      if (stored === null) await db.redis.hdel(key, field);
      else await db.redis.hset(key, field, stored);
    }
    await expect(store.networkNow('acme', 'UTC', NOW)).resolves.toBeDefined();
  });

  it('deleteNetworkState removes the network and nothing else', async () => {
    const { store, prefix } = db.freshStore();
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
    const keys = await db.redis.keys(`${prefix}*`);
    expect(keys.filter((k) => k.includes('acme'))).toEqual([]);
    expect(await db.redis.hlen(store.keys.silenceIds)).toBe(0);
  });

  it('rejects a network id that is not a slug, before touching Redis', async () => {
    const { store } = db.freshStore();
    await expect(load(store).then(() => store.getRun('a:b', 'traffic-check', DAY))).rejects.toThrow(
      /not a network id/,
    );
  });
});

describe('network state: a failure inside the commit leaves nothing behind', () => {
  async function seeded() {
    const { store, prefix } = db.freshStore();
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
    await db.redis.del(store.keys.outboxPending);
    await db.redis.set(store.keys.outboxPending, 'not a zset');
    const before = await dump(db.redis, prefix);
    await expect(store.commitRun(doomed(store))).rejects.toMatchObject({
      code: 'THM_STORE',
      message: expect.stringContaining('WRONGTYPE'),
    });
    expect(await dump(db.redis, prefix)).toEqual(before);
  });

  it('the invoice series is of the wrong type', async () => {
    const { store, prefix } = await seeded();
    await db.redis.set(store.keys.invoices('acme'), 'not a list');
    const before = await dump(db.redis, prefix);
    await expect(store.commitRun(doomed(store))).rejects.toMatchObject({ code: 'THM_STORE' });
    expect(await dump(db.redis, prefix)).toEqual(before);
  });

  it('the outbox bodies are of the wrong type', async () => {
    const { store, prefix } = await seeded();
    await db.redis.del(store.keys.outboxBody);
    await db.redis.set(store.keys.outboxBody, 'x');
    const before = await dump(db.redis, prefix);
    await expect(store.commitRun(doomed(store))).rejects.toMatchObject({ code: 'THM_STORE' });
    expect(await dump(db.redis, prefix)).toEqual(before);
  });

  it('a poisoned argument (a notification time that is not a number)', async () => {
    const { store, prefix } = await seeded();
    const before = await dump(db.redis, prefix);
    const poisoned = doomed(store);
    poisoned.notifications[1] = notification('n2', { createdAt: Number.NaN });
    await expect(store.commitRun(poisoned)).rejects.toMatchObject({
      code: 'THM_STORE',
      message: expect.stringContaining('invalid due time'),
    });
    expect(await dump(db.redis, prefix)).toEqual(before);
  });

  it('the networks set is of the wrong type on a first commit', async () => {
    const { store, prefix } = db.freshStore();
    await db.redis.set(store.keys.networks, 'x');
    const before = await dump(db.redis, prefix);
    await expect(store.commitRun({ ...doomed(store), expectedRev: 0 })).rejects.toMatchObject({
      code: 'THM_STORE',
    });
    expect(await dump(db.redis, prefix)).toEqual(before);
  });
});

describe('network state: commands per run and memory per pair', () => {
  /** Day 1 makes `n` pairs active; day 2 is measured: load, classify, commit with an e-mail. */
  async function commandsPerRun(n: number): Promise<number> {
    const { store } = db.freshStore();
    const admin = db.server.client();
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
    const { store } = db.freshStore();
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
      await db.redis.call('MEMORY', 'USAGE', store.keys.network('acme'), 'SAMPLES', '0'),
    );
    console.log(`P4: ${(bytes / n).toFixed(1)} bytes per active pair (MEMORY USAGE of the hash)`);
    expect((await load(store)).active).toHaveLength(n);
    expect(bytes / n).toBeLessThanOrEqual(300);
  }, 60_000);
});
