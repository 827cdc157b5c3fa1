import type { ChildProcess } from 'node:child_process';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync } from '../harness/cli.js';
import { freePort, waitFor } from '../harness/ports.js';
import { spawnWorkerProcess, type WorkerProcess } from '../harness/worker-process.js';
import { startJobStack, type JobStack } from './stack.js';

/**
 * Two `thm worker` processes whose configs differ, as in a rolling deploy or with a forgotten
 * second host. A worker started for 4 s with one network of three used to remove the others'
 * schedulers ("removed":4), and the main worker never added them back: two networks never
 * checked again, every health signal green. Now no worker removes a scheduler a live worker's
 * config holds, and `thm status` names the workers and how their configs differ; /healthz and
 * `thm status --check` call it a problem once it has lasted worker.configDriftGraceMs (a rolling
 * deploy differs for a while).
 */
const SWEEP_MS = 500;
const GRACE_MS = 20_000;

describe('replicas whose configs differ (real worker processes)', () => {
  let stack: JobStack;
  const children: ChildProcess[] = [];
  const networks = (ids: string[]) =>
    ids.map((id) => stack.sbx.rawNetwork(id, { apiKeyEnv: stack.sbx.keyEnv('acme') }));
  const worker = {
    concurrency: 2,
    sweepIntervalMs: SWEEP_MS,
    configDriftGraceMs: GRACE_MS,
    lockDurationMs: 2_000,
    stalledIntervalMs: 1_000,
  };
  let fullEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startJobStack(['acme']);
    fullEnv = stack.processEnv({ worker, networks: networks(['acme', 'globex', 'initech']) });
  }, 60_000);
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await stack?.close();
  });

  /** A worker process with these networks, on a monitoring port of its own. */
  async function start(
    ids: string[],
  ): Promise<{ w: WorkerProcess; port: number; instance: string }> {
    const port = await freePort();
    const env = stack.processEnv({ worker, networks: networks(ids) });
    const file = env.THM_CONFIG!;
    const { readFileSync, writeFileSync } = await import('node:fs');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...doc, monitoring: { port, host: '127.0.0.1' } }));
    const w = spawnWorkerProcess(env, children);
    await w.started(30_000);
    return { w, port, instance: `${(await import('node:os')).hostname()}-${w.child.pid}` };
  }
  const health = async (port: number) => {
    const res = await request(`http://127.0.0.1:${port}/healthz`);
    return { status: res.statusCode, body: (await res.body.json()) as { problems: string[] } };
  };
  const schedulerIds = async () =>
    (await stack.queue.getJobSchedulers(0, -1)).map((s) => s.key).sort();
  const all = [
    'invoice-snapshot:acme',
    'invoice-snapshot:globex',
    'invoice-snapshot:initech',
    'traffic-check:acme',
    'traffic-check:globex',
    'traffic-check:initech',
  ];

  it('an older replica removes nothing the other holds; both are reported, then it stops and all is well', async () => {
    const main = await start(['acme', 'globex', 'initech']);
    expect(await schedulerIds()).toEqual(all);
    // The configs differ from when the older one took its config up, between these two times.
    const beforeOlder = Date.now();
    const older = await start(['acme']);
    const reconciled = older.w
      .stderr()
      .split('\n')
      .find((l) => l.includes('job schedulers reconciled'));
    expect(JSON.parse(reconciled ?? '{}')).toMatchObject({ removed: 0, unchanged: 2 });
    const difference = `invoice-snapshot:globex, invoice-snapshot:initech, traffic-check:globex, traffic-check:initech: held by ${main.instance}, not by ${older.instance}`;

    // Within the grace, as during a rolling deploy: healthy, and thm status says since when the
    // configs differ and from when that is a problem.
    for (const port of [main.port, older.port])
      expect(await health(port)).toEqual({
        status: 200,
        body: expect.objectContaining({ problems: [] }) as unknown,
      });
    const early = await runThmAsync(['status', '--check'], { env: fullEnv });
    expect(Date.now() - beforeOlder, 'checked within the grace').toBeLessThan(GRACE_MS);
    expect(early.code, early.stdout).toBe(0);
    expect(early.stdout).toMatch(
      /their configs differ since .*; a problem from .* \(worker\.configDriftGraceMs\):/,
    );
    expect(early.stdout).toContain(`    ${difference}`);

    // Several sweeps of both: still every scheduler.
    await new Promise((r) => setTimeout(r, 4 * SWEEP_MS));
    expect(await schedulerIds()).toEqual(all);

    // After the grace, both workers' /healthz name the two workers and the difference.
    for (const port of [main.port, older.port]) {
      const h = await waitFor(
        async () => {
          const r = await health(port);
          return r.body.problems.some((p) => p.startsWith("workers' configs differ"))
            ? r
            : undefined;
        },
        { timeoutMs: GRACE_MS + 20_000, what: 'the difference a problem after the grace' },
      );
      expect(Date.now() - beforeOlder).toBeGreaterThanOrEqual(GRACE_MS);
      expect(h.status).toBe(503);
      expect(h.body.problems.find((p) => p.startsWith("workers' configs differ"))).toContain(
        difference,
      );
    }
    // thm status --check, with the full config: exit 1, both workers named, the difference.
    const status = await runThmAsync(['status', '--check'], { env: fullEnv });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/their configs differ since .*; a problem since /);
    const workersLine = status.stdout.split('\n').find((l) => l.startsWith('workers: ')) ?? '';
    expect(workersLine).toContain(`${main.instance} (`);
    expect(workersLine).toContain(`${older.instance} (`);
    expect(status.stdout).toContain('their configs differ');
    expect(status.stdout).toContain(`    ${difference}`);
    const json = JSON.parse((await runThmAsync(['status', '--json'], { env: fullEnv })).stdout) as {
      workers: Array<{ instance: string; schedulers: number }>;
      workerConfigDifferences: string[];
    };
    expect(json.workers.map((w) => [w.instance, w.schedulers]).sort()).toEqual(
      [
        [main.instance, 6],
        [older.instance, 2],
      ].sort(),
    );
    expect(json.workerConfigDifferences).toContain(difference);

    // The older one stops: its advert goes, the difference with it.
    older.w.child.kill('SIGTERM');
    expect(await older.w.exited, older.w.stderr()).toBe(0);
    await waitFor(async () => ((await health(main.port)).status === 200 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the main worker healthy again',
    });
    const after = await runThmAsync(['status', '--check'], { env: fullEnv });
    expect(after.stdout).not.toContain('their configs differ');
    expect(after.code, after.stdout).toBe(0);
    expect(await schedulerIds()).toEqual(all);

    // And a network no live worker holds any more goes: the main one stops, the older starts.
    main.w.child.kill('SIGTERM');
    expect(await main.w.exited, main.w.stderr()).toBe(0);
    const alone = await start(['acme']);
    expect(await schedulerIds()).toEqual(['invoice-snapshot:acme', 'traffic-check:acme']);
    alone.w.child.kill('SIGTERM');
    expect(await alone.w.exited, alone.w.stderr()).toBe(0);
  }, 120_000);
});
