import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { redisServerAvailable } from '../../src/demo/private-redis.js';

/**
 * Runs once before the suite: the CLI tests run the real binary, which runs the bundle in
 * dist/cli/ (compiled, then bundled: scripts/bundle-cli.js). Type errors do not stop the build
 * (tsc still emits; `npm run typecheck` is where they fail CI), so one unfinished module cannot
 * take every test file down with it.
 *
 * The suite's temporary files (redis-server data, configs, outboxes, key files) go to one
 * directory of its own (TMPDIR, which the test processes and what they spawn inherit), removed
 * when the suite ends: a test that does not delete its own leaves nothing behind.
 */
export default function setup(): () => void {
  if (!redisServerAvailable()) {
    throw new Error(
      'redis-server is not installed: the tests start their own. Debian: apt-get install -y redis-server',
    );
  }
  const outer = process.env.TMPDIR;
  const scratch = mkdtempSync(path.join(tmpdir(), 'thm-tests-'));
  process.env.TMPDIR = scratch;
  // tsc run by this node, not through npx: under `npx -c` (CI's run on Node 24) an inner npx
  // inherits the outer one's command and refuses to run.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    encoding: 'utf8',
  });
  if (build.status !== 0)
    process.stderr.write(
      `warning: the build reported errors (see npm run typecheck):\n${build.stdout.slice(0, 2000)}\n`,
    );
  const bundle = spawnSync(process.execPath, ['scripts/bundle-cli.js'], { encoding: 'utf8' });
  if (bundle.status !== 0) throw new Error(`bundling the CLI failed:\n${bundle.stderr}`);
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    rmSync(scratch, { recursive: true, force: true });
  };
}
