import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { completed, startJobStack, type JobStack } from '../jobs/stack.js';
import { runThmAsync, type CliResult } from '../harness/cli.js';

/**
 * State made by real runs for the operator commands' tests: acme and globex, a worker, and
 * acme's invoice snapshots and traffic-checks of 2026-11-15 and 11-16 (two active pairs, one
 * critical); a config file for the real binary pointing at it.
 */
export interface CliStack {
  stack: JobStack;
  env: NodeJS.ProcessEnv;
  /** The real `thm` binary with that config. */
  thm(...args: string[]): Promise<CliResult>;
}

export async function startCliStack(): Promise<CliStack> {
  const stack = await startJobStack(['acme', 'globex']);
  await stack.startWorker();
  for (const day of ['2026-11-15', '2026-11-16']) {
    stack.sbx.sandbox.setDay(day);
    completed(await stack.run('invoice-snapshot', 'acme', day));
    completed(await stack.run('traffic-check', 'acme', day));
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-cli-'));
  const file = path.join(dir, 'thm.json');
  const c = stack.config;
  writeFileSync(
    file,
    JSON.stringify({
      redis: { url: stack.redis.url, prefix: c.redis.prefix },
      networks: ['acme', 'globex'].map((id) =>
        stack.sbx.rawNetwork(id, { name: id === 'acme' ? 'Acme Network' : 'Globex Partners' }),
      ),
    }),
  );
  const env = { ...stack.sbx.env, THM_CONFIG: file };
  return { stack, env, thm: (...args) => runThmAsync(args, { env }) };
}
