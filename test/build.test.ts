import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runThmAsync } from './harness/cli.js';

/**
 * The CLI's bundle rebuilt while commands run from it, as when two test runs build at once, or
 * a test spawns the binary while another run's setup builds: every command started meanwhile
 * runs whole. Before, the bundler removed dist/cli/ and wrote it anew, and a command started in
 * between failed with ERR_MODULE_NOT_FOUND (half of them, against a build in a loop).
 */
describe('rebuilding the bundle under running commands', () => {
  it('two builds at once, commands started all the while: each command runs', async () => {
    const builds = [build(), build()];
    let done = false;
    void Promise.all(builds).finally(() => (done = true));
    const results: Array<{ code: number | null; stdout: string; stderr: string }> = [];
    while (!done || results.length < 10) results.push(await runThmAsync(['--version']));
    expect(await Promise.all(builds)).toEqual([0, 0]);
    const failed = results.filter((r) => r.code !== 0 || !r.stdout.startsWith('thm '));
    expect(failed.map((r) => r.stderr.split('\n').find((l) => l.includes('Error')))).toEqual([]);
  }, 120_000);
});

/** `scripts/build.js --bundle-only`, as `npm run build` runs its second half. */
function build(): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/build.js', '--bundle-only'], {
      stdio: 'ignore',
    });
    child.on('close', (code) => resolve(code));
  });
}
