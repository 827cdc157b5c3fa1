import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync } from '../harness/cli.js';
import { startJobStack, type JobStack } from '../jobs/stack.js';

/**
 * `thm run --all --wait` over a fleet: one waiter per network, each listening on the events and
 * the queue. Node warns past 10 listeners (MaxListenersExceededWarning), which printed two
 * warnings with a stack hint under the answer of every run of more than 10 networks.
 */
describe('thm run --all --wait over more than 10 networks (the real binary)', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startJobStack(['acme']);
    const networks = Array.from({ length: 12 }, (_, i) =>
      stack.sbx.rawNetwork('acme', { id: `net${i + 1}`, name: `Network ${i + 1}` }),
    );
    env = stack.processEnv({ worker: {}, networks });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('answers for every network without a listener warning', async () => {
    // No worker runs: every job waits out the timeout, with all its listeners in place.
    const run = await runThmAsync(['run', 'traffic-check', '--all', '--wait', '--timeout', '2'], {
      env,
    });
    const lines = run.stdout.split('\n').filter((line) => line.startsWith('traffic-check net'));
    expect(lines).toHaveLength(12);
    for (const line of lines) expect(line).toMatch(/: timeout: no outcome within \d s/);
    expect(run.stderr).not.toContain('MaxListenersExceededWarning');
    expect(run.stderr).toBe('');
  }, 60_000);
});
