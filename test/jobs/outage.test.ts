import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { spawnWorkerProcess } from '../harness/worker-process.js';
import { completed, startJobStack, type JobStack } from './stack.js';

/**
 * A Redis outage met by the real processes: `thm worker` told to stop while Redis is down, and
 * `thm run --wait` waiting across a Redis restart. Redis is really stopped and started again
 * (AOF keeps its data, as a production Redis with persistence does).
 */
describe('the worker and the CLI across a Redis outage', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // The in-process workers hold their locks as long as production does by default, longer
    // than the outages here; the spawned worker's lock is short, so its job is taken over soon.
    stack = await startJobStack(['acme'], {
      worker: {
        concurrency: 2,
        attempts: 3,
        backoffMs: 100,
        lockDurationMs: 60_000,
        stalledIntervalMs: 1_000,
      },
    });
    env = stack.processEnv({
      worker: { attempts: 3, backoffMs: 100, lockDurationMs: 2_000, stalledIntervalMs: 1_000 },
      networks: [stack.sbx.rawNetwork('acme', { name: 'Acme Network' })],
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await stack.redis.start().catch(() => undefined);
    await stack.close();
  });

  const alertsOf = (date: string) =>
    stack.smtp.messages.filter((m) => m.parsed.subject?.includes(`(${date})`)).length;

  it('SIGTERM while Redis is down with a job in flight: exits 0; the job is done once by another worker', async () => {
    const w = spawnWorkerProcess(env, children);
    await w.started();
    stack.sbx.sandbox.setDay('2026-11-15');
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'isptrends', delayMs: 3_000 });
    const running = stack.run('traffic-check', 'acme', '2026-11-15', { timeoutMs: 60_000 });
    await waitFor(async () => ((await stack.queue.getActiveCount()) > 0 ? true : undefined));
    await stack.redis.stop();
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(w.stderr()).toMatch(/Redis unreachable/);
    expect(w.stderr()).toContain('worker stopped');

    await stack.redis.start();
    await stack.startWorker();
    const outcome = completed(await running);
    expect(outcome.counts?.new).toBe(2);
    await stack.smtp.waitForMessages(1);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(alertsOf('2026-11-15')).toBe(1);
  }, 90_000);

  it('SIGTERM just after a Redis restart: stops at once, exit 0', async () => {
    const w = spawnWorkerProcess(env, children);
    await w.started();
    await stack.redis.stop();
    // Long enough that the worker's connections wait a second or so between attempts: when
    // Redis is back they are still waiting for their next one.
    await new Promise((r) => setTimeout(r, 2_500));
    await stack.redis.start();
    w.child.kill('SIGTERM');
    const exited = await Promise.race([
      w.exited,
      new Promise((r) => setTimeout(() => r('still running 20 s after SIGTERM'), 20_000)),
    ]);
    expect(exited).toBe(0);
    expect(w.stderr()).not.toMatch(/Redis unreachable/);
    expect(w.stderr()).toContain('worker stopped');
  }, 60_000);

  it('thm run --wait across a 5 s Redis restart prints the real outcome', async () => {
    if (stack.workers.length === 0) await stack.startWorker();
    stack.sbx.sandbox.setDay('2026-11-16');
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'isptrends', delayMs: 2_000 });
    const cli = runThmAsync(
      [
        'run',
        'traffic-check',
        '--network',
        'acme',
        '--date',
        '2026-11-16',
        '--wait',
        '--timeout',
        '60',
      ],
      { env },
    );
    await waitFor(async () => ((await stack.queue.getActiveCount()) > 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
    await stack.redis.stop();
    await new Promise((r) => setTimeout(r, 5_000));
    await stack.redis.start();
    const r = await cli;
    expect(r.code).toBe(0);
    // It said when Redis went away, and when it was back.
    expect(r.stderr).toBe(
      `thm: cannot reach Redis at ${stack.redis.url}: connection refused (ECONNREFUSED); trying until --timeout (60 s)\nthm: Redis at ${stack.redis.url} answers again\n`,
    );
    expect(r.stdout).toMatch(
      /traffic-check acme 2026-11-16: ok; .* e-mail sent: "\[Traffic Health\] Acme Network: .*\(2026-11-16\)"/,
    );
    expect(alertsOf('2026-11-16')).toBe(1);
  }, 90_000);
});
