import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

export const BIN = path.resolve('bin/thm.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `thm` binary (dist/ is built by the global setup). */
export function runThm(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same, without blocking the test's event loop (for commands that talk to in-process servers). */
export function runThmAsync(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
