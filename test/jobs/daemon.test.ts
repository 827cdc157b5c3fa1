import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { spawnWorkerProcess } from '../harness/worker-process.js';
import { completed, startJobStack, type JobStack } from './stack.js';

/** `thm worker` as a real process: signals, crashes, and `thm run --wait` against it. */
describe('thm worker (the real daemon process)', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    stack = await startJobStack(['acme']);
    env = stack.processEnv({
      worker: { ...stack.config.worker, lockDurationMs: 2000, stalledIntervalMs: 1000 },
      networks: [stack.sbx.rawNetwork('acme', { name: 'Acme Network' })],
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await stack.close();
  });

  /** A `thm worker` process on the stack, once it logged "worker started". */
  async function startedWorker() {
    const w = spawnWorkerProcess(env, children);
    await w.started();
    return w;
  }

  it('starts, logs JSON without the key, and exits 0 on SIGTERM', async () => {
    const w = await startedWorker();
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(w.stderr()).toContain('worker stopped');
    expect(w.stderr()).not.toContain(stack.sbx.key('acme'));
    // It says at start where its e-mails go.
    const started = w
      .stderr()
      .split('\n')
      .find((line) => line.includes('worker started'));
    expect(JSON.parse(started ?? '{}')).toMatchObject({
      msg: `worker started; e-mails go to ${stack.smtp.url}`,
      mail: stack.smtp.url,
    });
  });

  it('thm run --wait prints the outcome and exits 0; a second one says already done', async () => {
    const w = await startedWorker();
    stack.sbx.sandbox.setDay('2026-11-15');
    const first = await runThmAsync(
      [
        'run',
        'traffic-check',
        '--network',
        'acme',
        '--date',
        '2026-11-15',
        '--wait',
        '--timeout',
        '20',
      ],
      { env },
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /traffic-check acme 2026-11-15: ok; 2 new, 0 worse, 0 reminder, 0 ongoing, 0 cleared, 0 silenced; \d+ pairs listed; e-mail sent: "\[Traffic Health\] Acme Network: 2 new \(2026-11-15\)"/,
    );
    const second = await runThmAsync(
      ['run', 'traffic-check', '--network', 'acme', '--date', '2026-11-15', '--wait', '--json'],
      { env },
    );
    expect(second.code).toBe(0);
    const doc = JSON.parse(second.stdout) as {
      jobs: Array<{ state: string; outcome: { status: string } }>;
    };
    expect(doc.jobs[0]).toMatchObject({ state: 'completed', outcome: { status: 'already-done' } });
    const again = await runThmAsync(
      ['run', 'traffic-check', '--network', 'acme', '--date', '2026-11-15', '--wait'],
      { env },
    );
    expect(again.stdout).toMatch(
      /already done for this date .*; earlier e-mail sent: "\[Traffic Health\] Acme Network: 2 new \(2026-11-15\)"/,
    );
    const bad = await runThmAsync(['run', 'traffic-check', '--network', 'nope', '--wait'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^thm: --network: no network "nope"/);
    const badDate = await runThmAsync(['run', 'traffic-check', '--all', '--date', '2026-13-01'], {
      env,
    });
    expect(badDate.code).toBe(2);
    expect(badDate.stderr.trim()).toBe('thm: --date: must be a date YYYY-MM-DD');
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
  });

  it('SIGTERM during a job: the job finishes, then the process exits 0', async () => {
    const w = await startedWorker();
    stack.sbx.sandbox.setDay('2026-11-16');
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'isptrends', delayMs: 1_500 });
    const running = stack.run('traffic-check', 'acme', '2026-11-16');
    await waitFor(async () => ((await stack.queue.getActiveCount()) > 0 ? true : undefined));
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(completed(await running).counts?.worse).toBe(1);
  });

  it('a worker killed with SIGKILL mid-job: another picks the job up (stalled recovery), one e-mail', async () => {
    const w = await startedWorker();
    stack.sbx.sandbox.setDay('2026-11-17');
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'isptrends', delayMs: 2_000 });
    const alertsBefore = stack.smtp.messages.filter((m) =>
      m.parsed.subject?.includes('(2026-11-17)'),
    ).length;
    const running = stack.run('traffic-check', 'acme', '2026-11-17', { timeoutMs: 30_000 });
    await waitFor(async () => ((await stack.queue.getActiveCount()) > 0 ? true : undefined));
    w.child.kill('SIGKILL');
    await w.exited;
    await stack.startWorker();
    const outcome = completed(await running);
    // The blocked domain: one domain headline (monitor/common-drops.ts), no pair of its own.
    expect(outcome).toMatchObject({ emailDecided: true, counts: { new: 0 } });
    await waitFor(
      () =>
        stack.smtp.messages.some((m) => m.parsed.subject?.includes('(2026-11-17)')) || undefined,
      { timeoutMs: 15_000 },
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(
      stack.smtp.messages.filter((m) => m.parsed.subject?.includes('(2026-11-17)')).length -
        alertsBefore,
    ).toBe(1);
  });
});
