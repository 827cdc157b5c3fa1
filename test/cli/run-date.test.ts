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
 * every active pair a reminder, and retention counted from it deleted every real run record.
 */
describe('asOfProblem', () => {
  const today = '2026-11-23';
  it.each([
    [{ requested: today, exists: false }, undefined],
    [{ requested: '2026-11-24', exists: false }, undefined],
    [{ requested: '2026-11-25', exists: false }, 'more than one day after today (2026-11-23'],
    [{ requested: '2030-01-01', exists: true }, 'more than one day after today'],
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

  it('refuses a date more than a day ahead: exit 2, saying why, nothing enqueued', async () => {
    const jobs = await jobCount();
    const r = await thm('run', 'traffic-check', '--network', 'acme', '--date', '2030-01-01');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      `thm: --date 2030-01-01 for network acme: is more than one day after today (${today} in the network's time zone); the API serves only today's data, so a later date would mislabel it`,
    );
    expect(await jobCount()).toBe(jobs);
    expect(await asOfs()).toEqual([addDays(today, -2), addDays(today, -3)]);
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

  it('re-running a date that already ran is allowed (with --force), and so is tomorrow', async () => {
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
    const tomorrow = await thm(
      'run',
      'traffic-check',
      '--network',
      'acme',
      '--date',
      addDays(today, 1),
      '--wait',
    );
    expect(tomorrow.code).toBe(0);
    expect(await asOfs()).toContain(addDays(today, 1));
  });

  it('retention counts from the wall clock: a far-future as-of (a job made without the CLI) deletes no run record', async () => {
    const before = await asOfs();
    completed(await stack.run('traffic-check', 'acme', '2030-01-01'));
    expect(await asOfs()).toEqual(['2030-01-01', ...before]);
  });
});
