import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync, type CliResult } from '../harness/cli.js';
import { freePort } from '../harness/ports.js';
import { startJobStack, type JobStack } from '../jobs/stack.js';

/**
 * The CLI with Redis away, as an operator meets it: Redis stopped under it, an address where
 * something accepts and never answers, a wrong password. Every command says in one line that it
 * cannot reach Redis, at which address and why, exits 1 (THM_REDIS with --json), never prints a
 * stack trace; `thm run --wait --timeout N` keeps trying until N runs out.
 */
const COMMANDS: string[][] = [
  ['status'],
  ['status', '--check'],
  ['history', '--network', 'acme'],
  ['invoices', '--network', 'acme'],
  ['silence', 'list'],
  ['notify', 'failed'],
  ['run', 'traffic-check', '--network', 'acme'],
  ['run', 'invoice-snapshot', '--all'],
];

function expectOneLine(r: CliResult, why: RegExp, where: string): void {
  expect(r.code, r.stderr).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines.at(-1)).toMatch(new RegExp(`^thm: cannot reach Redis at ${where}: `));
  expect(lines.at(-1)).toMatch(why);
  expect(r.stderr).not.toMatch(/\n\s+at |unexpected error|THM_INTERNAL|Connection is closed/);
}

describe('the CLI without Redis', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  let silent: Server;
  let silentPort: number;

  beforeAll(async () => {
    stack = await startJobStack(['acme']);
    env = stack.processEnv({ worker: {}, networks: [stack.sbx.rawNetwork('acme')] });
    // Accepts connections and never says a word: a Redis behind a black hole.
    silent = createServer(() => undefined);
    silentPort = await freePort();
    await new Promise<void>((r) => silent.listen(silentPort, '127.0.0.1', r));
  }, 60_000);
  afterAll(async () => {
    silent?.close();
    await stack?.close();
  });

  it('Redis stopped: every command says "connection refused" in one line, exit 1', async () => {
    await stack.redis.stop();
    try {
      const where = `redis://127\\.0\\.0\\.1:${stack.redis.port}`;
      const results = await Promise.all(COMMANDS.map((args) => runThmAsync(args, { env })));
      results.forEach((r) => expectOneLine(r, /connection refused \(ECONNREFUSED\)$/, where));
      const json = await runThmAsync(['run', 'traffic-check', '--all', '--json'], { env });
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toEqual({
        ok: false,
        error: {
          code: 'THM_REDIS',
          message: `cannot reach Redis at redis://127.0.0.1:${stack.redis.port}: connection refused (ECONNREFUSED)`,
        },
      });
    } finally {
      await stack.redis.start();
    }
  }, 60_000);

  it('an address that never answers: "timed out", exit 1, in about the connect timeout', async () => {
    const silentEnv = { ...env, REDIS_URL: `redis://127.0.0.1:${silentPort}` };
    const started = Date.now();
    const r = await runThmAsync(['status', '--json'], { env: silentEnv });
    expectOneLine(r, /timed out: no answer within 3 s$/, `redis://127\\.0\\.0\\.1:${silentPort}`);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'THM_REDIS' } });
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it('a wrong password: "authentication refused" at once, even with --wait, and no password shown', async () => {
    const admin = stack.redis.client();
    await admin.call('ACL', 'SETUSER', 'operator', 'on', '>right-password', '~*', '&*', '+@all');
    const wrong = {
      ...env,
      REDIS_URL: `redis://operator:wrong-password@127.0.0.1:${stack.redis.port}`,
    };
    const where = `redis://operator:redacted@127\\.0\\.0\\.1:${stack.redis.port}`;
    const status = await runThmAsync(['status'], { env: wrong });
    expectOneLine(status, /authentication refused \(WRONGPASS/, where);
    const started = Date.now();
    const run = await runThmAsync(['run', 'traffic-check', '--all', '--wait', '--timeout', '30'], {
      env: wrong,
    });
    expectOneLine(run, /authentication refused \(WRONGPASS/, where);
    // Trying again cannot mend a wrong password: no waiting out the 30 s.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(`${status.stderr}${run.stderr}`).not.toContain('wrong-password');
  }, 30_000);

  it('run --wait --timeout N with Redis away throughout: gives up after about N, exit 1', async () => {
    await stack.redis.stop();
    try {
      const started = Date.now();
      const r = await runThmAsync(
        ['run', 'traffic-check', '--network', 'acme', '--wait', '--timeout', '3'],
        { env },
      );
      const took = Date.now() - started;
      expectOneLine(
        r,
        /connection refused \(ECONNREFUSED\); still failing after 3 s$/,
        `redis://127\\.0\\.0\\.1:${stack.redis.port}`,
      );
      expect(took).toBeGreaterThanOrEqual(3_000);
    } finally {
      await stack.redis.start();
    }
  }, 30_000);
  it('run --wait --timeout N keeps trying: Redis back within N, the run goes through', async () => {
    await stack.startWorker();
    stack.sbx.sandbox.setDay('2026-11-15');
    await stack.redis.stop();
    const running = runThmAsync(
      ['run', 'traffic-check', '--network', 'acme', '--wait', '--timeout', '60', '--json'],
      { env },
    );
    await new Promise((r) => setTimeout(r, 2_500));
    await stack.redis.start();
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { jobs: Array<{ state: string; network: string }> };
    expect(doc.jobs).toMatchObject([{ network: 'acme', state: 'completed' }]);
    // It said that it was waiting, and why, and when Redis answered.
    expect(r.stderr).toBe(
      `thm: cannot reach Redis at ${stack.redis.url}: connection refused (ECONNREFUSED); trying until --timeout (60 s)\nthm: Redis at ${stack.redis.url} answers again\n`,
    );
  }, 90_000);
});
