import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { classifyPairs } from '../../src/monitor/classify.js';
import type { ActivePair, IspTrend, WatchedRun } from '../../src/monitor/types.js';
import { HistoryCache } from '../../src/store/history-cache.js';
import { FIELD } from '../../src/store/keys.js';
import { RedisStore, type NetworkState } from '../../src/store/redis-store.js';
import { loadScript } from '../../src/store/scripts.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { SETTINGS, entry } from '../monitor/fixtures.js';
import { runRecord } from './fixtures.js';

/**
 * The history a store committed is kept decoded for its next load (store/history-cache.ts):
 * that load must give exactly what decoding the stored blobs gives (values, key order, field
 * order), Redis must leave the blobs out of its answer, and anything that changed the stored
 * history since (another worker's commit, a deleted network) must be read and decoded again.
 */

let server: TestRedis;
let redis: Redis;
let prefixes = 0;

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
});
afterAll(async () => {
  await server.shutdown();
});

const DAY = '2026-03-01';
const NOW = Date.UTC(2026, 2, 1, 12);
const PAIRS = 6_000;

/**
 * A day's entries: PAIRS pairs over 240 domains, with drops that are not round numbers (stored
 * to 2 decimals), a domain whose URL changes from one pair to the next (stored once per
 * domain), and, from the second day, another tenth of the pairs back to normal each day (a
 * quiet run).
 */
function entries(day: number): IspTrend[] {
  const out: IspTrend[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const recovered = day > 0 && i % 10 === day;
    const domainId = 1000 + (i % 240);
    out.push(
      entry(domainId, `ISP ${i} Communications`, {
        baseline: 1000 + (i % 37),
        yesterday: recovered ? 1000 + (i % 37) : 400 + ((i * 7 + day * 13) % 251),
        url: domainId === 1001 ? `https://t${i}.example.com` : `https://d${domainId}.example.com`,
      }),
    );
  }
  return out;
}

async function runDay(store: RedisStore, day: number): Promise<NetworkState> {
  const asOf = addDays(DAY, day);
  const state = await store.loadNetworkState('acme', {
    asOf,
    kind: 'traffic-check',
    now: NOW + day * 86_400_000,
  });
  const classification = classifyPairs({
    asOf,
    entries: entries(day),
    active: state.active,
    runs: state.runs,
    settings: SETTINGS,
    silences: [],
  });
  const result = await store.commitRun({
    networkId: 'acme',
    expectedRev: state.rev,
    run: runRecord(asOf),
    history: classification.changes,
    notifications: [],
  });
  expect(result.committed).toBe(true);
  return state;
}

const load = (store: RedisStore, day = 0) =>
  store.loadNetworkState('acme', {
    asOf: addDays(DAY, day),
    kind: 'traffic-check',
    now: NOW + day * 86_400_000,
  });

/** Values, the Map's key order and each object's field order. */
function shape(map: ReadonlyMap<string, ActivePair | WatchedRun>) {
  return [...map].map(([key, value]) => [key, Object.keys(value), value]);
}

describe('the history cache of a store', () => {
  it('gives the next load exactly what decoding the stored history gives, from memory', async () => {
    const prefix = `hc${++prefixes}`;
    const store = new RedisStore(redis, prefix);
    for (let day = 0; day < 3; day++) {
      await runDay(store, day);
      const kept = await load(store, day + 1);
      // Another worker's store has nothing kept: it reads and decodes.
      const decoded = await load(new RedisStore(redis, prefix), day + 1);
      expect(kept.active.size).toBeGreaterThan(PAIRS * 0.8);
      expect(kept.runs.size).toBeGreaterThan(0);
      expect(shape(kept.active)).toEqual(shape(decoded.active));
      expect(shape(kept.runs)).toEqual(shape(decoded.runs));
      expect(kept.active).not.toBe(decoded.active);
      // The same maps again: nothing read, nothing decoded.
      expect((await load(store, day + 1)).active).toBe(kept.active);
    }
    // Quiet runs, a changing domain URL and rounded drops were all in play.
    const pairs = [...(await load(store, 3)).active.values()];
    expect(pairs.some((p) => p.quietAsOf !== undefined)).toBe(true);
    expect(new Set(pairs.filter((p) => p.domainId === 1001).map((p) => p.domainUrl)).size).toBe(1);
  }, 60_000);

  it('Redis leaves the blobs out only for the stamp it holds', async () => {
    const prefix = `hc${++prefixes}`;
    const store = new RedisStore(redis, prefix);
    await runDay(store, 0);
    const key = store.keys.network('acme');
    const stamp = await redis.hget(key, FIELD.stamp);
    expect(stamp).toMatch(/^[\w-]{12}$/);
    const fields = [FIELD.stamp, FIELD.active, FIELD.runs, FIELD.rev];
    const held = (await loadScript.run(redis, [key], [stamp!, ...fields])) as unknown[];
    expect(held).toEqual([stamp, null, null, '1']);
    const other = (await loadScript.run(redis, [key], ['another', ...fields])) as unknown[];
    expect(other[1]).toEqual(expect.any(String));
    expect(other[2]).toEqual(expect.any(String));
  });

  it("reads again after another worker's commit or a deleted network", async () => {
    const prefix = `hc${++prefixes}`;
    const store = new RedisStore(redis, prefix);
    const other = new RedisStore(redis, prefix);
    await runDay(store, 0);
    const before = await load(store, 1);
    await runDay(other, 1);
    const after = await load(store, 2);
    expect(after.active).not.toBe(before.active);
    expect(shape(after.active)).toEqual(
      shape((await load(new RedisStore(redis, prefix), 2)).active),
    );
    // The network's state deleted (thm's reset): empty, not the history kept.
    await other.deleteNetworkState('acme');
    expect((await load(store, 2)).active.size).toBe(0);
  }, 60_000);
});

describe('HistoryCache', () => {
  const pairs = (n: number, domainId = 1): ActivePair[] =>
    Array.from({ length: n }, (_, i) => ({
      domainId,
      isp: `isp ${i}`,
      domainUrl: 'https://d.example.com',
      firstSeen: DAY,
      lastSeen: DAY,
      lastNotified: DAY,
      notifiedSeverity: 'warning',
      quietRuns: 0,
      baseline: 100,
      yesterday: 50,
      dropPercent: 50,
    }));

  it('keeps large histories only, within its bound, the least recently used going first', () => {
    const cache = new HistoryCache(10, 25);
    cache.keep('small', 's', { upsert: pairs(9), remove: [] });
    expect(cache.held('small')).toBeUndefined();
    cache.keep('a', 'sa', { upsert: pairs(10), remove: [] });
    cache.keep('b', 'sb', { upsert: pairs(10), remove: [] });
    expect(cache.size).toBe(20);
    cache.held('a'); // a used after b: b goes first
    cache.keep('c', 'sc', { upsert: pairs(10), remove: [] });
    expect(cache.held('b')).toBeUndefined();
    expect(cache.held('a')?.stamp).toBe('sa');
    expect(cache.held('c')?.stamp).toBe('sc');
    expect(cache.size).toBe(20);
    // Larger than the whole bound: not kept, and the network's older history is let go.
    cache.keep('a', 'sa2', { upsert: pairs(26), remove: [] });
    expect(cache.held('a')).toBeUndefined();
    expect(cache.size).toBe(10);
  });
});
