// Builds dist/: tsc (dist/src, dist/bench), then the CLI's bundle (scripts/bundle-cli.js).
// `npm run build` and the tests' global setup (test/harness/global-setup.ts) run it.
//
// One build at a time per checkout, under a lock file (dist/.build.lock, holding the builder's
// pid; one whose process is gone is taken over): tsc writes its files in place, and a second
// build's bundler would read them half-written. A command run from dist/ meanwhile is safe
// without the lock (bundle-cli.js replaces the bundle file by file, entry last).
//
// --keep-going: type errors do not stop the build (tsc still emits); the tests' setup uses it,
// so that one unfinished module cannot take every test file down with it, and
// `npm run typecheck` is where they fail CI. --bundle-only: the bundle of dist/src as it is.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK = 'dist/.build.lock';
const WAIT_MS = 600_000;
const keepGoing = process.argv.includes('--keep-going');
const bundleOnly = process.argv.includes('--bundle-only');

process.exitCode = await withLock(() => {
  const compiled = bundleOnly ? 0 : compile();
  if (compiled !== 0) return compiled;
  const bundled = spawnSync(process.execPath, ['scripts/bundle-cli.js'], { stdio: 'inherit' });
  return bundled.status ?? 1;
});

function compile() {
  // tsc run by this node, not through npx: under `npx -c` (CI's run on Node 24) an inner npx
  // inherits the outer one's command and refuses to run.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    encoding: 'utf8',
  });
  if (compiled.status !== 0) {
    if (!keepGoing) {
      process.stdout.write(compiled.stdout);
      process.stderr.write(compiled.stderr);
      return compiled.status ?? 1;
    }
    process.stderr.write(
      `warning: the build reported errors (see npm run typecheck):\n${compiled.stdout.slice(0, 2000)}\n`,
    );
  }
  return 0;
}

async function withLock(work) {
  mkdirSync('dist', { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (!holderAlive()) {
      rmSync(LOCK, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`build: ${LOCK} held for ${WAIT_MS / 1000} s by another build`);
    await sleep(200);
  }
  try {
    return work();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/**
 * Whether the process named in the lock file still runs. A file without a pid is being written,
 * for a moment: after 10 s, its writer is gone.
 */
function holderAlive() {
  let pid;
  try {
    pid = Number(readFileSync(LOCK, 'utf8'));
  } catch {
    return true;
  }
  if (!Number.isInteger(pid) || pid <= 0)
    return Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
