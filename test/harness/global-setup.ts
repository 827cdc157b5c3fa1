import { execFileSync } from 'node:child_process';
import { redisServerAvailable } from './redis.js';

/** Runs once before the suite: the CLI tests run the real binary, which runs dist/. */
export default function setup(): void {
  if (!redisServerAvailable()) {
    throw new Error(
      'redis-server is not installed: the tests start their own. Debian: apt-get install -y redis-server',
    );
  }
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
