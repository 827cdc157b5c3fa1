import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_HTTP } from '../harness/sandbox.js';
import { startJobStack, type JobStack } from './stack.js';

/**
 * A slow API must not starve the other networks: two networks whose API drips its answers one
 * byte at a time (no per-step timeout ever trips) fill both worker slots; api.requestTimeoutMs
 * ends them, so a third, healthy network is checked, and the slow ones fail with a clear reason
 * (and their problem e-mails go out).
 */
describe('a dripping API and worker.concurrency 2', () => {
  let stack: JobStack;

  beforeAll(async () => {
    stack = await startJobStack(
      [],
      {
        api: { ...TEST_HTTP, requestTimeoutMs: 1_500, bodyTimeoutMs: 3_000 },
        worker: { concurrency: 2, attempts: 1, backoffMs: 100, lockDurationMs: 5_000 },
      },
      {
        rawNetworks: (sbx) => [
          sbx.rawNetwork('acme', { id: 'slow-a', apiKeyEnv: sbx.keyEnv('acme') }),
          sbx.rawNetwork('acme', { id: 'slow-b', apiKeyEnv: sbx.keyEnv('acme') }),
          sbx.rawNetwork('globex', { id: 'healthy', apiKeyEnv: sbx.keyEnv('globex') }),
        ],
      },
    );
  });
  afterAll(() => stack.close());

  it('the healthy network is checked; the slow ones fail on the deadline with a problem e-mail', async () => {
    // A full access body at one byte per 400 ms takes about 40 s: far past the waits below.
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'access', dripMs: 400, times: 2 });
    await stack.startWorker();
    const runs = ['slow-a', 'slow-b', 'healthy'].map((id) =>
      stack.run('traffic-check', id, '2026-11-15', { timeoutMs: 20_000 }),
    );
    const [slowA, slowB, healthy] = await Promise.all(runs);
    expect(healthy).toMatchObject({ state: 'completed', value: { status: 'done' } });
    for (const slow of [slowA, slowB]) {
      expect(slow?.state).toBe('failed');
      // The run's deadline and the request's are the same length here: either may end it.
      expect(slow && 'error' in slow ? slow.error : '').toMatch(
        /^network slow-[ab]: GET \/networks\/traffic\/access: .*api\.requestTimeoutMs \(1500 ms\)/,
      );
    }
    const problems = await stack.smtp.waitForMessages(3);
    const subjects = problems.map((m) => m.parsed.subject ?? '');
    expect(subjects.filter((s) => /problem/i.test(s))).toHaveLength(2);
  });
});
