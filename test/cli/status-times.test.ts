import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.js';
import { runThmAsync } from '../harness/cli.js';
import { startRedis, type TestRedis } from '../harness/redis.js';
import { runRecord } from '../store/fixtures.js';

/** `thm status`: the last run and the last success by finish time, in UTC and the network's zone. */
describe('thm status times (the real binary)', () => {
  let redis: TestRedis;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    redis = await startRedis();
    const prefix = 'st';
    const store = new RedisStore(redis.client(), prefix);
    const commit = async (run: ReturnType<typeof runRecord>) => {
      const state = await store.loadNetworkState('acme', {
        asOf: run.asOf,
        kind: 'traffic-check',
        now: run.finishedAt,
      });
      const result = await store.commitRun({
        networkId: 'acme',
        expectedRev: state.rev,
        run,
        notifications: [],
        force: true,
      });
      expect(result.committed).toBe(true);
    };
    // The scheduled run of the 20th, then a backfill of the 18th that failed a day later: by
    // as-of date the 20th looks last, by finish time the backfill is.
    await commit(
      runRecord('2026-11-20', {
        startedAt: Date.parse('2026-11-20T06:29:00Z'),
        finishedAt: Date.parse('2026-11-20T06:30:00Z'),
      }),
    );
    await commit(
      runRecord('2026-11-18', {
        outcome: 'failed',
        startedAt: Date.parse('2026-11-21T08:59:00Z'),
        finishedAt: Date.parse('2026-11-21T09:00:00Z'),
        error: { code: 'THM_API_AUTH', message: 'key revoked' },
      }),
    );
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-status-')), 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: redis.url, prefix },
        networks: [
          {
            id: 'acme',
            baseUrl: 'https://api.acme.example/v1',
            apiKeyEnv: 'ACME_API_KEY',
            recipients: ['ops@acme.example'],
            timezone: 'Europe/Berlin',
          },
        ],
      }),
    );
    env = { THM_CONFIG: file, ACME_API_KEY: 'sk_status_times_0123456789' };
  });
  afterAll(() => redis.shutdown());

  it('text: last run and last success by finish time, in UTC and the zone', async () => {
    const r = await runThmAsync(['status'], { env });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /traffic-check: +failed for 2026-11-18, finished 2026-11-21 09:00 UTC \(10:00 Europe\/Berlin\), \d+[hd] ago: key revoked/,
    );
    expect(r.stdout).toMatch(
      /last success: +ok for 2026-11-20, finished 2026-11-20 06:30 UTC \(07:30 Europe\/Berlin\)/,
    );
  });

  it('--json: the same runs, every time in ISO 8601', async () => {
    const r = await runThmAsync(['status', '--json'], { env });
    const doc = JSON.parse(r.stdout) as {
      networks: Array<{
        timezone: string;
        lastRuns: { trafficCheck: { asOf: string; finishedAt: string } };
        lastSuccessfulTrafficCheck: { asOf: string; startedAt: string };
      }>;
    };
    const [acme] = doc.networks;
    expect(acme?.timezone).toBe('Europe/Berlin');
    expect(acme?.lastRuns.trafficCheck).toMatchObject({
      asOf: '2026-11-18',
      finishedAt: '2026-11-21T09:00:00.000Z',
    });
    expect(acme?.lastSuccessfulTrafficCheck).toMatchObject({
      asOf: '2026-11-20',
      startedAt: '2026-11-20T06:29:00.000Z',
    });
  });
});
