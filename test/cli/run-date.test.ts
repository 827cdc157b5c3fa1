import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/dates.js';
import { asOfProblem } from '../../src/jobs/as-of.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { runThmAsync } from '../harness/cli.js';
import { completed, startJobStack, type JobStack } from '../jobs/stack.js';

/**
 * `--date` only labels today's data (the API has no date parameter): a far-future label made
 * every active pair a reminder, retention counted from it deleted every real run record, and a
 * label of tomorrow spent tomorrow's run ("already done for this date" when it came), so that
 * day's real data was never checked.
 */
describe('asOfProblem', () => {
  const today = '2026-11-23';
  it.each([
    [{ requested: today, exists: false }, undefined],
    [{ requested: '2026-11-24', exists: false }, "is after today (2026-11-23 in the network's"],
    [{ requested: '2026-11-25', exists: false }, 'is after today (2026-11-23'],
    [{ requested: '2026-11-24', exists: true }, 'is after today'],
    [{ requested: '2030-01-01', exists: true }, 'is after today'],
    [{ requested: '2026-11-20', newest: '2026-11-22', exists: false }, 'older than the newest'],
    [{ requested: '2026-11-20', newest: '2026-11-22', exists: true }, undefined],
    [{ requested: '2026-11-22', newest: '2026-11-22', exists: true }, undefined],
    [{ requested: '2026-11-01', exists: false }, undefined],
  ])('%o -> %s', (facts, expected) => {
    const problem = asOfProblem({ today, ...facts });
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
  });
});

describe('thm run --date against recorded runs (the real binary)', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  let store: RedisStore;
  const today = localDate(Date.now(), 'UTC');
  const thm = (...args: string[]) => runThmAsync(args, { env });
  const asOfs = async () =>
    (await store.listRuns('acme')).filter((r) => r.kind === 'traffic-check').map((r) => r.asOf);
  const jobCount = async () =>
    Object.values(
      await stack.queue.getJobCounts('wait', 'delayed', 'active', 'completed', 'failed'),
    ).reduce((a, b) => a + b, 0);

  beforeAll(async () => {
    stack = await startJobStack(['acme']);
    await stack.startWorker();
    stack.sbx.sandbox.setDay('2026-11-15');
    for (const asOf of [addDays(today, -3), addDays(today, -2)])
      completed(await stack.run('traffic-check', 'acme', asOf));
    store = new RedisStore(stack.redis.client(), stack.config.redis.prefix);
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-date-'));
    const file = path.join(dir, 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: stack.redis.url, prefix: stack.config.redis.prefix },
        networks: [stack.sbx.rawNetwork('acme', { name: 'Acme Network' })],
      }),
    );
    env = { ...stack.sbx.env, THM_CONFIG: file };
  });
  afterAll(() => stack.close());

  it.each([
    ['tomorrow', addDays(today, 1)],
    ['a far-future date', '2030-01-01'],
  ])('refuses %s: exit 2, saying why, nothing enqueued or recorded', async (_, date) => {
    const jobs = await jobCount();
    const r = await thm('run', 'traffic-check', '--network', 'acme', '--date', date, '--wait');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      `thm: --date ${date} for network acme: is after today (${today} in the network's time zone): the API serves only today's data, and a run labelled ${date} would take the place of that day's real run`,
    );
    expect(await jobCount()).toBe(jobs);
    expect(await asOfs()).toEqual([addDays(today, -2), addDays(today, -3)]);
  });

  it("today in the network's zone: a zone ahead of UTC has its own today", async () => {
    // Kiritimati is UTC+14: from 10:00 UTC on, its today is UTC's tomorrow.
    const zone = 'Pacific/Kiritimati';
    expect(
      asOfProblem({
        requested: localDate(Date.now(), zone),
        today: localDate(Date.now(), zone),
        exists: false,
      }),
    ).toBeUndefined();
    expect(
      asOfProblem({
        requested: addDays(localDate(Date.now(), zone), 1),
        today: localDate(Date.now(), zone),
        exists: false,
      }),
    ).toContain('is after today');
  });

  it('refuses a date older than the newest run that has no run of its own', async () => {
    const jobs = await jobCount();
    const old = addDays(today, -10);
    const r = await thm('run', 'traffic-check', '--all', '--date', old);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `--date ${old} for network acme: is older than the newest recorded run (${addDays(today, -2)})`,
    );
    expect(await jobCount()).toBe(jobs);
  });

  it('re-running a date that already ran is allowed (with --force), and so is today', async () => {
    const again = await thm(
      'run',
      'traffic-check',
      '--network',
      'acme',
      '--date',
      addDays(today, -3),
      '--force',
      '--wait',
    );
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const todays = await thm(
      'run',
      'traffic-check',
      '--network',
      'acme',
      '--date',
      today,
      '--wait',
    );
    expect(todays.code).toBe(0);
    expect(await asOfs()).toContain(today);
  });

  it('the worker refuses a job that carries a future date (made without the CLI): failed with the reason, nothing left behind', async () => {
    const redis = stack.redis.client();
    const before = await asOfs();
    const networkBefore = await redis.hgetall(store.keys.network('acme'));
    const requestsBefore = stack.sbx.sandbox.requests();
    const result = await stack.run('traffic-check', 'acme', '2030-01-01');
    expect(result).toEqual({
      state: 'failed',
      error: `as-of date 2030-01-01 of network acme is after today (${today} in the network's time zone): the API serves only today's data, and a run labelled 2030-01-01 would take the place of that day's real run`,
    });
    // No run record, no problem episode, no API call, no e-mail decided.
    expect(await asOfs()).toEqual(before);
    expect(await redis.hgetall(store.keys.network('acme'))).toEqual(networkBefore);
    expect(stack.sbx.sandbox.requests()).toBe(requestsBefore);
    const failed = await stack.queue.getFailed();
    expect(failed.map((j) => j.attemptsMade)).toEqual([1]);
  });
});
