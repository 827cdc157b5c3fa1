import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SandboxKey } from '../src/sandbox/index.js';
import { peakRssMb } from './measure.js';

/**
 * `thm worker` as a child process, exactly as an operator starts it (bin/thm.js over dist/),
 * so its start time and peak RSS are its own, not the benchmark's. Its JSON log lines (stderr)
 * are watched for the messages a figure waits on.
 */
export interface WorkerProcess {
  pid: number;
  /**
   * Resolves with the first log line whose msg is `msg` or begins with it and a `;` ("worker
   * started; e-mails go to ..."), and the ms since spawn.
   */
  waitForLog(msg: string, timeoutMs: number): Promise<{ ms: number; line: LogLine }>;
  /** VmHWM of the child, MB. */
  peakRssMb(): number | undefined;
  /** SIGTERM (graceful), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface LogLine {
  msg?: string;
  level?: number;
  [field: string]: unknown;
}

/** The repository root: dist/bench/ when compiled, bench/ under tsx. */
export function repoRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === 'dist'
    ? path.resolve(here, '../..')
    : path.resolve(here, '..');
}

/** The node flags of bin/thm.js's shebang line (`#!/usr/bin/env -S node FLAGS`). */
export function workerNodeFlags(): string[] {
  const first = readFileSync(path.join(repoRoot(), 'bin/thm.js'), 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\/usr\/bin\/env -S node((?: --[\w-]+=?\S*)*)\s*$/.exec(first);
  if (!match) throw new Error(`bin/thm.js: unexpected shebang ${JSON.stringify(first)}`);
  return match[1]!.trim().split(/\s+/).filter(Boolean);
}

/**
 * bin/thm.js spawned as an operator's shell would (with its shebang's node flags), stdout and
 * stderr piped. BENCH_CLI_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") is passed to
 * its node, for profiling a command.
 */
export function spawnCli(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): ChildProcess {
  return spawn(
    process.execPath,
    [
      ...workerNodeFlags(),
      ...(process.env.BENCH_CLI_NODE_ARGS ?? '').split(' ').filter(Boolean),
      path.join(repoRoot(), 'bin/thm.js'),
      ...args,
    ],
    { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/**
 * One config entry per network of the sandbox, each key in the environment (BENCH_KEY_<i>, set
 * in `env`) as an operator's would be; invoices off, the figures are about traffic-checks.
 */
export function fleetNetworks(
  sandbox: { baseUrl: string; keys: SandboxKey[] },
  env: Record<string, string>,
): Array<Record<string, unknown>> {
  return sandbox.keys
    .filter((k) => k.portal === 'network')
    .map((k, i) => {
      env[`BENCH_KEY_${i}`] = k.key;
      return {
        id: k.network,
        baseUrl: sandbox.baseUrl,
        apiKeyEnv: `BENCH_KEY_${i}`,
        recipients: [`ops@${k.network}.example`],
        invoices: { enabled: false },
      };
    });
}

export function writeConfigFile(dir: string, name: string, config: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/**
 * BENCH_WORKER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") is passed to the worker's
 * node, for profiling it under the benchmark's load.
 */
export function startWorkerProcess(configFile: string, env: Record<string, string>): WorkerProcess {
  const started = performance.now();
  // The flags bin/thm.js's shebang (and the Dockerfile) run the worker with.
  const nodeArgs = [
    ...workerNodeFlags(),
    ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, path.join(repoRoot(), 'bin/thm.js'), 'worker', '--config', configFile],
    {
      cwd: path.dirname(configFile),
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const waiters: Array<{ msg: string; resolve: (v: { ms: number; line: LogLine }) => void }> = [];
  const errors: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      errors.push(text);
      return;
    }
    if ((line.level ?? 0) >= 50) errors.push(String(line.msg));
    const ms = performance.now() - started;
    for (let i = waiters.length - 1; i >= 0; i -= 1) {
      const wanted = waiters[i]!.msg;
      if (line.msg === wanted || line.msg?.startsWith(`${wanted};`)) {
        waiters[i]!.resolve({ ms, line });
        waiters.splice(i, 1);
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return {
    pid: child.pid!,
    waitForLog(msg, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`worker: no "${msg}" within ${timeoutMs} ms; ${errors.join('; ')}`)),
          timeoutMs,
        );
        const fail = () =>
          reject(new Error(`worker exited before "${msg}": ${errors.join('; ') || 'no error'}`));
        child.once('exit', fail);
        waiters.push({
          msg,
          resolve: (value) => {
            clearTimeout(timer);
            child.off('exit', fail);
            resolve(value);
          },
        });
      });
    },
    peakRssMb: () => peakRssMb(child.pid!, (file) => readFileSync(file, 'utf8')),
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
