import { spawnSync } from 'node:child_process';
import { redisServerAvailable } from '../../src/demo/private-redis.js';

/**
 * Runs once before the suite: the CLI tests run the real binary, which runs dist/. Type errors
 * do not stop the build (tsc still emits; `npm run typecheck` is where they fail CI), so one
 * unfinished module cannot take every test file down with it.
 */
export default function setup(): void {
  if (!redisServerAvailable()) {
    throw new Error(
      'redis-server is not installed: the tests start their own. Debian: apt-get install -y redis-server',
    );
  }
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { encoding: 'utf8' });
  if (build.status !== 0)
    process.stderr.write(
      `warning: the build reported errors (see npm run typecheck):\n${build.stdout.slice(0, 2000)}\n`,
    );
}
