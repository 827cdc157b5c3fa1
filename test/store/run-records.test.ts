import { describe, expect, it } from 'vitest';
import { latestRuns } from '../../src/monitor/overdue.js';
import { addDays } from '../../src/dates.js';
import { FIELD, runField } from '../../src/store/keys.js';
import { DAY, DAY_MS, NOW, effect, runRecord } from './fixtures.js';
import { useStoreRedis } from './store-redis.js';

const db = useStoreRedis();

describe('run records', () => {
  it('runDates: the dates with a record of the kind, newest first, from the field names alone', async () => {
    const { store } = db.freshStore();
    expect(await store.runDates('acme', 'traffic-check')).toEqual([]);
    const runs = [
      runRecord(addDays(DAY, 1)),
      runRecord(DAY),
      runRecord(addDays(DAY, 2), { kind: 'invoice-snapshot' }),
    ];
    for (const [i, run] of runs.entries())
      expect((await store.commitRun(effect({ expectedRev: i, run }))).committed).toBe(true);
    // A record that does not parse is still a date that ran: no record is read.
    await db.redis.hset(
      store.keys.network('acme'),
      runField('traffic-check', addDays(DAY, -3)),
      '{',
    );
    expect(await store.runDates('acme', 'traffic-check')).toEqual([
      addDays(DAY, 1),
      DAY,
      addDays(DAY, -3),
    ]);
    expect(await store.runDates('acme', 'invoice-snapshot')).toEqual([addDays(DAY, 2)]);
  });

  it('latestRuns: the latest of each kind and the last success, as latestRuns over listRuns', async () => {
    const { store } = db.freshStore();
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
    const { store } = db.freshStore();
    const key = store.keys.network('acme');
    const older = runRecord(addDays(DAY, -1), { finishedAt: NOW - DAY_MS });
    await store.commitRun(effect({ run: older }));
    // A failed record, then the run that replaces it (no force needed): one line, the new one.
    await store.commitRun(
      effect({ expectedRev: 1, run: runRecord(DAY, { finishedAt: NOW, outcome: 'failed' }) }),
    );
    await store.commitRun(effect({ expectedRev: 2, run: runRecord(DAY, { finishedAt: NOW + 1 }) }));
    const index = ((await db.redis.hget(key, FIELD.index)) ?? '').split('\n');
    expect(index.filter((line) => line.endsWith(` ${runField('traffic-check', DAY)}`))).toEqual([
      `${DAY}|${NOW + 1}|ok ${runField('traffic-check', DAY)}`,
    ]);
    expect(index).toContain(
      `${addDays(DAY, -1)}|${NOW - DAY_MS}|ok ${runField('traffic-check', addDays(DAY, -1))}`,
    );
    // The older record is not read: broken, it does not stop status; listRuns still finds it.
    await db.redis.hset(key, runField('traffic-check', addDays(DAY, -1)), '{');
    const latest = await store.latestRuns('acme');
    expect(latest).toMatchObject({ any: true, trafficCheck: { asOf: DAY, finishedAt: NOW + 1 } });
    expect(latest.lastSuccess).toBe(latest.trafficCheck);
    await expect(store.listRuns('acme')).rejects.toMatchObject({ name: 'StoredStateError' });
  });

  it("latestRuns: a line that does not say what its record is (an older version's re-run) is not trusted: all records are read", async () => {
    const { store } = db.freshStore();
    const key = store.keys.network('acme');
    await store.commitRun(effect({ run: runRecord(addDays(DAY, -1), { finishedAt: NOW - 1 }) }));
    await store.commitRun(effect({ expectedRev: 1, run: runRecord(DAY, { finishedAt: NOW }) }));
    const field = runField('traffic-check', addDays(DAY, -1));
    const index = (await db.redis.hget(key, FIELD.index)) ?? '';
    // Its line says it finished last and failed; its record says neither.
    await db.redis.hset(
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
    await db.redis.hset(
      key,
      FIELD.index,
      `${addDays(DAY, -1)} ${field}\n${DAY} ${runField('traffic-check', DAY)}`,
    );
    expect(await store.latestRuns('acme')).toEqual(latest);
  });

  it('latestRuns: a broken record that could be chosen is unreadable state, naming its field; an older one broken elsewhere is left to listRuns', async () => {
    const { store } = db.freshStore();
    const key = store.keys.network('acme');
    await store.commitRun(effect({ run: runRecord(DAY, { finishedAt: NOW }) }));
    const older = runField('traffic-check', addDays(DAY, -1));
    const index = (await db.redis.hget(key, FIELD.index)) ?? '';
    await db.redis.hset(key, FIELD.index, `${index}\n${addDays(DAY, -1)} ${older}`);
    // Older, and without its notification ids: not chosen, so not read whole.
    const { notificationIds: _, ...incomplete } = runRecord(addDays(DAY, -1), { finishedAt: 1 });
    await db.redis.hset(key, older, JSON.stringify(incomplete));
    expect((await store.latestRuns('acme')).trafficCheck?.asOf).toBe(DAY);
    await expect(store.listRuns('acme')).rejects.toThrow(/notificationIds/);
    // The same record as the latest: chosen, validated, refused.
    await db.redis.hset(key, older, JSON.stringify({ ...incomplete, finishedAt: NOW + 1 }));
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
      await db.redis.hset(key, older, broken);
      await expect(store.latestRuns('acme')).rejects.toMatchObject({
        name: 'StoredStateError',
        field: older,
      });
    }
  });
});
