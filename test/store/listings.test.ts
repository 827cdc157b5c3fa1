import { deflateRawSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ispTrendSchema } from '../../src/api/schemas.js';
import type { IspTrend } from '../../src/monitor/types.js';
import {
  decodeListing,
  encodeListing,
  listingColumns,
  listingEntries,
} from '../../src/store/listing-codec.js';
import { readListings } from '../../src/store/listings.js';
import { RedisStore, type RunEffect } from '../../src/store/redis-store.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { CRIT, WARN, entry, manyEntries } from '../monitor/fixtures.js';
import { runRecord } from './fixtures.js';

/** The fields a listing keeps exactly as they came (the others are computed again). */
const KEPT = [
  'network_id',
  'network_tracking_domain_id',
  'isp',
  'yesterday_total_clicks',
  'seven_days_ago_total_clicks',
  'fourteen_days_ago_total_clicks',
  'thirty_days_ago_total_clicks',
  'yesterday_seven_days_ago_total_clicks_trend',
  'yesterday_conversions',
  'seven_days_ago_conversions',
  'fourteen_days_ago_conversions',
  'thirty_days_ago_conversions',
  'yesterday_revenue',
  'seven_days_ago_revenue',
  'fourteen_days_ago_revenue',
  'thirty_days_ago_revenue',
] as const;

function kept(e: IspTrend) {
  const out: Record<string, unknown> = { url: e.relationship.url };
  for (const field of KEPT) out[field] = e[field] ?? null;
  return out;
}

/** An entry with other day figures than the fixture's. */
function varied(domainId: number, isp: string, i: number, over: Partial<IspTrend> = {}): IspTrend {
  return {
    ...entry(domainId, isp, { baseline: 900 + i, yesterday: 300 + 7 * i, trend: -66.67 + i }),
    fourteen_days_ago_total_clicks: 800 + 3 * i,
    thirty_days_ago_total_clicks: 1000 - i,
    yesterday_conversions: i % 5,
    seven_days_ago_conversions: 20 + i,
    fourteen_days_ago_conversions: 0,
    thirty_days_ago_conversions: 17,
    yesterday_revenue: 12.34 + i,
    seven_days_ago_revenue: 0.1 + 0.2,
    fourteen_days_ago_revenue: 1e-7,
    thirty_days_ago_revenue: 123456.78,
    ...over,
  } as IspTrend;
}

describe('listing codec', () => {
  const cases: Array<[string, IspTrend[]]> = [
    ['nothing declining', []],
    ['one entry', [varied(7, 'Comcast', 1)]],
    [
      'trends absent, null and exact',
      [
        entry(1, 'a', { ...WARN, trend: 'absent' }),
        entry(1, 'b', { ...WARN, trend: null }),
        entry(1, 'c', { ...CRIT, trend: -80.0049 }),
        entry(1, 'd', { ...CRIT, trend: 1e-300 }),
      ],
    ],
    [
      'a domain with two URLs, a pair listed twice, names out of the ordinary',
      [
        varied(1, 'Comcast', 1),
        varied(1, 'Verizon', 2, { relationship: { url: 'https://other.example' } }),
        varied(1, 'Comcast', 3),
        varied(2, '\u202emoc.tsacmoc \ud800 "quoted"\n', 4),
        varied(2, '', 5, { relationship: { url: '' } }),
      ],
    ],
    ['a large network', manyEntries(3_000, 40)],
  ];

  it.each(cases)('%s: the kept fields come back as they came, in order', async (_name, entries) => {
    const back = listingEntries(listingColumns(entries));
    expect(back.map(kept)).toEqual(entries.map(kept));
    const stored = decodeListing(await encodeListing({ entries, sent: null }), 'test');
    expect(listingEntries(stored.listing).map(kept)).toEqual(entries.map(kept));
  });

  it('keeps every number as it came: -0, fractions of a cent, counts beyond 32 bits', async () => {
    const odd = [
      entry(1, 'a', { ...CRIT, trend: -0 }),
      { ...varied(2, 'b', 1), yesterday_revenue: 0.001, thirty_days_ago_total_clicks: 2 ** 40 },
      { ...varied(3, 'c', 2), seven_days_ago_revenue: -0, fourteen_days_ago_revenue: 1e21 },
    ];
    const back = listingEntries(
      decodeListing(await encodeListing({ entries: odd, sent: null }), 'x').listing,
    );
    expect(back.map(kept)).toEqual(odd.map(kept));
    expect(Object.is(back[0]?.yesterday_seven_days_ago_total_clicks_trend, -0)).toBe(true);
    expect(Object.is(back[2]?.seven_days_ago_revenue, -0)).toBe(true);
  });

  it('reads back what a run reads of an entry; the trends not kept are null', () => {
    const [e] = listingEntries(listingColumns([varied(3, 'x', 2)]));
    expect(e).toMatchObject({
      seven_days_ago_total_clicks: 902,
      thirty_days_ago_conversions: 17,
      yesterday_revenue: 14.34,
      yesterday_seven_days_ago_total_clicks_trend: -64.67,
      yesterday_fourteen_days_ago_total_clicks_trend: null,
      yesterday_thirty_days_ago_revenue_trend: null,
    });
    expect(Object.keys(e!).sort()).toEqual(Object.keys(ispTrendSchema.shape).sort());
  });

  it('keeps what the run sent, and its counts', async () => {
    const counts = { new: 2, worse: 0, reminder: 1, ongoing: 5, cleared: 0, silenced: 1 };
    const blob = await encodeListing({
      entries: [varied(1, 'a', 1)],
      sent: { subject: '[Traffic Health] Acme: 2 new (2026-03-01)' },
      counts,
    });
    const stored = decodeListing(blob, 'test');
    expect(stored.sent).toEqual({ subject: '[Traffic Health] Acme: 2 new (2026-03-01)' });
    expect(stored.counts).toEqual(counts);
    expect(decodeListing(await encodeListing({ entries: [], sent: null }), 'x').sent).toBeNull();
  });

  it('a listing of 3,000 pairs takes a small fraction of its JSON', async () => {
    const entries = manyEntries(3_000, 40);
    const blob = await encodeListing({ entries, sent: null });
    expect(blob.length).toBeLessThan(JSON.stringify(entries).length / 20);
  });

  /** A stored listing's bytes as the store lays them out (store/listing-codec.ts), made by hand. */
  const raw = (header: unknown, columns: number[] = []) => {
    const text = Buffer.from(JSON.stringify(header));
    const out = Buffer.alloc(4 + text.length + 4 * columns.length);
    out.writeUInt32LE(text.length, 0);
    text.copy(out, 4);
    columns.forEach((v, i) => out.writeUInt32LE(v, 4 + text.length + 4 * i));
    return deflateRawSync(out);
  };
  const header = (over: Record<string, unknown> = {}) => ({
    v: 2,
    sent: null,
    network: 1,
    domains: [1, 'u'],
    isps: ['a'],
    n: 1,
    kinds: [...Array(14).fill('u32'), 'hundredths'],
    ...over,
  });
  const damaged: Array<[string, Buffer, RegExp]> = [
    ['not deflate', Buffer.from('garbage'), /the listing is unreadable \(/],
    [
      'a header that is not JSON',
      deflateRawSync(Buffer.from('\x05\0\0\0{"v":')),
      /unreadable \(.*JSON/,
    ],
    ['another version', raw({ v: 1 }), /unreadable \(version 1, expected 2\)$/],
    [
      'a column kind it does not know',
      raw(header({ kinds: Array(15).fill('u64') })),
      /not 15 known column kinds/,
    ],
    ['columns cut short', raw(header(), Array(14).fill(0)), /\(56 bytes of columns, expected 60\)/],
    [
      'an ISP index out of its list',
      raw(header(), [0, 1, ...Array(13).fill(0)]),
      /entry 0 names no stored domain or ISP/,
    ],
  ];

  it.each(damaged)('%s: a THM_STORE error naming the listing', (_name, blob, message) => {
    expect(() => decodeListing(blob, 'the listing')).toThrow(message);
    try {
      decodeListing(blob, 'the listing');
    } catch (error) {
      expect((error as { code: string }).code).toBe('THM_STORE');
    }
  });
});

describe('RedisStore: the listing is part of the run commit', () => {
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

  const DAY_MS = 86_400_000;
  const NOW = Date.now();
  const fresh = () => new RedisStore(redis, `l${++prefixes}`);
  const effect = (asOf: string, over: Partial<RunEffect> = {}): RunEffect => ({
    networkId: 'acme',
    expectedRev: 0,
    run: runRecord(asOf, { finishedAt: NOW }),
    notifications: [],
    ...over,
  });
  const listing = (entries: IspTrend[], expiresAt = NOW + 90 * DAY_MS) => ({
    record: { entries, sent: { subject: 'subject' } },
    expiresAt,
  });

  it('written with the run, expiring when it is due; read back by date, in order', async () => {
    const store = fresh();
    const entries = [varied(1, 'a', 1), varied(2, 'b', 2)];
    await store.commitRun(effect('2026-03-01', { listing: listing(entries) }));
    await store.commitRun(
      effect('2026-03-03', { expectedRev: 1, listing: listing([], NOW + 30 * DAY_MS) }),
    );
    const key = store.keys.listing('acme', '2026-03-01');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(90 * DAY_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(90 * DAY_MS);
    const read = await readListings(redis, store.keys, 'acme', [
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
    ]);
    expect(read.map((r) => r.asOf)).toEqual(['2026-03-01', '2026-03-03']);
    const first = decodeListing(read[0]!.bytes, 'x');
    expect(listingEntries(first.listing).map(kept)).toEqual(entries.map(kept));
    expect(first.sent).toEqual({ subject: 'subject' });
    expect(listingEntries(decodeListing(read[1]!.bytes, 'x').listing)).toEqual([]);
  });

  it('a listing whose keeping time is over when its run commits is not kept at all', async () => {
    const store = fresh();
    await store.commitRun(effect('2026-03-01', { listing: listing([varied(1, 'a', 1)], 1_000) }));
    expect(await redis.exists(store.keys.listing('acme', '2026-03-01'))).toBe(0);
    // The run itself is committed.
    expect(await store.getRun('acme', 'traffic-check', '2026-03-01')).toBeDefined();
  });

  it('a commit that loses (conflict, or the run exists) writes no listing; one without leaves it', async () => {
    const store = fresh();
    const key = store.keys.listing('acme', '2026-03-01');
    await store.commitRun(effect('2026-03-01', { listing: listing([varied(1, 'a', 1)]) }));
    const before = await redis.getBuffer(key);
    const conflict = await store.commitRun(
      effect('2026-03-02', { expectedRev: 0, listing: listing([varied(9, 'z', 9)]) }),
    );
    expect(conflict).toEqual({ committed: false, reason: 'conflict' });
    expect(await redis.exists(store.keys.listing('acme', '2026-03-02'))).toBe(0);
    const exists = await store.commitRun(
      effect('2026-03-01', { expectedRev: 1, listing: listing([varied(9, 'z', 9)]) }),
    );
    expect(exists.committed).toBe(false);
    // A forced re-run without a listing (a run that fetched nothing) leaves the stored one.
    await store.commitRun(effect('2026-03-01', { expectedRev: 1, force: true }));
    expect(await redis.getBuffer(key)).toEqual(before);
  });
});
