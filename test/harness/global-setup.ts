import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { redisServerAvailable } from '../../src/demo/private-redis.js';

/**
 * Runs once before the suite: the CLI tests run the real binary, which runs the bundle in
 * dist/cli/ (compiled, then bundled: scripts/build.js). Type errors do not stop the build
 * (tsc still emits; `npm run typecheck` is where they fail CI), so one unfinished module cannot
 * take every test file down with it. Two test runs at once build one after the other (a lock),
 * and a build replaces the bundle without breaking the binaries the other run has started.
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
  const build = spawnSync(process.execPath, ['scripts/build.js', '--keep-going'], {
    encoding: 'utf8',
  });
  process.stderr.write(build.stderr);
  if (build.status !== 0) throw new Error(`building the CLI failed:\n${build.stderr}`);
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    rmSync(scratch, { recursive: true, force: true });
  };
}
