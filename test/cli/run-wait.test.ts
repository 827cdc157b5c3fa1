import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync } from '../harness/cli.js';
import { TEST_HTTP } from '../harness/sandbox.js';
import { startJobStack, type JobStack } from '../jobs/stack.js';

/**
 * What `thm run --wait` says when the run did not succeed: the job's own failure (an API
 * timeout is one, not "no outcome"), the reason of a fast failure (never BullMQ's "Missing key
 * for job"), and a run the API delayed with Retry-After: until when.
 */
describe('thm run --wait reports what happened to the job (the real binary)', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  const wait = (...extra: string[]) =>
    runThmAsync(
      ['run', 'traffic-check', '--network', 'acme', '--wait', '--timeout', '20', ...extra],
      {
        env,
      },
    );

  beforeAll(async () => {
    stack = await startJobStack(['acme'], {
      api: { ...TEST_HTTP, headersTimeoutMs: 500, attempts: 1, retryBudgetMs: 1_000 },
      worker: { concurrency: 2, attempts: 1, backoffMs: 100 },
    });
    await stack.startWorker();
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-wait-'));
    const file = path.join(dir, 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: stack.redis.url, prefix: stack.config.redis.prefix },
        worker: { attempts: 1, backoffMs: 100 },
        networks: [stack.sbx.rawNetwork('acme')],
      }),
    );
    env = { ...stack.sbx.env, THM_CONFIG: file };
  });
  afterAll(() => stack.close());

  it('an API headers timeout is the job failure, not "no outcome (is a worker running?)"', async () => {
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'access', hang: true });
    const r = await wait();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('failed:');
    expect(r.stdout).toContain('timed out waiting for the response headers');
    expect(r.stdout).not.toContain('is a worker running');
  });

  it('a fast failure prints its reason every time, never "Missing key for job"', async () => {
    for (let i = 0; i < 4; i++) {
      stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'access', status: 401 });
      const r = await wait('--force');
      expect(r.code).toBe(1);
      expect(r.stdout).not.toContain('Missing key');
      expect(r.stdout).toContain('THM_API_AUTH');
    }
  });

  it('a 429 with a Retry-After beyond the budget: delayed until when, at once', async () => {
    stack.sbx.sandbox.injectFault({
      network: 'acme',
      endpoint: 'access',
      status: 429,
      retryAfter: 3_600,
    });
    const started = Date.now();
    const r = await wait('--force');
    expect(r.code).toBe(1);
    const until = /delayed until (\S+) \(the API asked to retry later\)/.exec(r.stdout)?.[1];
    expect(until).toBeDefined();
    expect(Math.abs(Date.parse(until!) - (started + 3_600_000))).toBeLessThan(60_000);
    expect(r.stdout).not.toContain('is a worker running');
  });
});
