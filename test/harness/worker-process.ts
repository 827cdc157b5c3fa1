import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli.js';
import { waitFor } from './ports.js';

/** `thm worker` as a real child process, its stderr (JSON log lines) collected. */
export interface WorkerProcess {
  child: ChildProcess;
  stderr(): string;
  /** The exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  /** Resolves once the worker logged "worker started". */
  started(timeoutMs?: number): Promise<void>;
}

/** `nodeArgs` go to node before the binary (e.g. `--import` of a module that misbehaves). */
export function spawnWorkerProcess(
  env: NodeJS.ProcessEnv,
  children: ChildProcess[] = [],
  nodeArgs: string[] = [],
): WorkerProcess {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'worker'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stderr: () => stderr,
    exited,
    async started(timeoutMs = 15_000) {
      await waitFor(() => stderr.includes('worker started') || undefined, {
        timeoutMs,
        what: `"worker started" in ${stderr}`,
      });
    },
  };
}
