import type { Redis } from 'ioredis';
import { dayNumber } from '../../src/dates.js';
import { classifyPairs } from '../../src/monitor/classify.js';
import { historyAfter } from '../../src/monitor/history-change.js';
import type { ActivePair, RunRecord } from '../../src/monitor/types.js';
import type { Notification } from '../../src/notify/types.js';
import type { RedisStore, RunEffect } from '../../src/store/redis-store.js';
import { CHANCE, SETTINGS, WARN, entry } from '../monitor/fixtures.js';

export const DAY = '2026-03-01';
export const NOW = Date.UTC(2026, 2, 1, 12);
export const DAY_MS = 86_400_000;

export const load = (store: RedisStore, asOf = DAY, now = NOW) =>
  store.loadNetworkState('acme', { asOf, kind: 'traffic-check', now });

/**
 * The history after a run in which `n` pairs became active, on a network whose days vary as
 * chance does (what the lifecycle tests run on): a new network's first few pairs are judged
 * against a variation its days have not pinned down yet (monitor/judged-variation.ts).
 */
export function history(n: number, asOf = DAY): ActivePair[] {
  const result = classifyPairs({
    asOf,
    entries: Array.from({ length: n }, (_, i) => entry(1 + (i % 3), `isp ${i}`, WARN)),
    active: [],
    settings: SETTINGS,
    silences: [],
    learned: CHANCE,
  });
  return historyAfter(result.changes);
}

/** A run's effect on network `acme` at DAY, committing nothing but its record unless told. */
export function effect(over: Partial<RunEffect> = {}): RunEffect {
  return {
    networkId: 'acme',
    expectedRev: 0,
    run: runRecord(DAY),
    notifications: [],
    ...over,
  };
}

export function notification(id: string, over: Partial<Notification> = {}): Notification {
  return {
    id,
    messageId: `<${id}@thm.test>`,
    networkId: 'acme',
    kind: 'alert',
    asOf: '2026-03-01',
    to: ['ops@acme.example'],
    events: [],
    createdAt: 1_000,
    subject: `subject ${id}`,
    text: 'text',
    html: '<p>html</p>',
    ...over,
  };
}

export function runRecord(asOf: string, over: Partial<RunRecord> = {}): RunRecord {
  return {
    networkId: 'acme',
    kind: 'traffic-check',
    asOf,
    outcome: 'ok',
    startedAt: 1_000,
    finishedAt: 2_000,
    notificationIds: [],
    runs: 1,
    ...over,
  };
}

/** Total commands the server has run (INFO commandstats), INFO itself excluded. */
export async function commandCalls(admin: Redis): Promise<number> {
  const info = await admin.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (match[1] !== 'info') total += Number(match[2]);
  }
  return total;
}

/** Every key and value under a prefix, for "nothing changed" assertions. */
export async function dump(redis: Redis, prefix: string): Promise<Record<string, unknown>> {
  const keys = (await redis.keys(`${prefix}*`)).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const type = await redis.type(key);
    if (type === 'hash') out[key] = await redis.hgetall(key);
    else if (type === 'zset') out[key] = await redis.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'list') out[key] = await redis.lrange(key, 0, -1);
    else if (type === 'set') out[key] = (await redis.smembers(key)).sort();
    else out[key] = await redis.get(key);
  }
  return out;
}

/**
 * A history as earlier versions stored it (version 1, JSON):
 * {"v":1,"d":[[domainId,"domainUrl",[...values]],...]}, each domain once in the order of its first
 * pair, with its first pair's URL, its pairs' values flattened (store/active-codec.ts).
 */
export function activeBlobV1(pairs: readonly ActivePair[]): string {
  const domains = [...new Set(pairs.map((p) => p.domainId))];
  return JSON.stringify({
    v: 1,
    d: domains.map((id) => {
      const own = pairs.filter((p) => p.domainId === id);
      return [
        id,
        own[0]!.domainUrl,
        own.flatMap((p) => [
          p.isp,
          dayNumber(p.firstSeen),
          dayNumber(p.lastSeen),
          dayNumber(p.lastNotified),
          p.notifiedSeverity === 'critical' ? 1 : 0,
          p.quietRuns,
          p.baseline,
          p.yesterday,
          Math.round(p.dropPercent * 100) / 100,
          p.quietAsOf === undefined ? 0 : dayNumber(p.quietAsOf),
        ]),
      ];
    }),
  });
}
