import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  builtinScenario,
  startSandbox,
  type BenchParams,
  type SandboxKey,
} from '../src/sandbox/index.js';

/**
 * The sandbox API in a process of its own, as the partner's API is in production: its serving
 * work (generating, caching and writing the isptrends body) lands on neither side of a ratio
 * measured in the benchmark's process. Started with the bench scenario; the as-of date is set
 * through the sandbox's control endpoint (POST /__sandbox/day).
 */
export interface SandboxProcess {
  pid: number;
  baseUrl: string;
  keys: SandboxKey[];
  setDay(date: string): Promise<void>;
  close(): Promise<void>;
}

export async function startSandboxProcess(params: BenchParams): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(params)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ baseUrl: string; controlUrl: string; keys: SandboxKey[] }>(
    (resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`sandbox process exited (${code})`)));
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    },
  );
  return {
    pid: child.pid!,
    baseUrl: ready.baseUrl,
    keys: ready.keys,
    async setDay(date) {
      const response = await fetch(`${ready.controlUrl}/day`, {
        method: 'POST',
        body: JSON.stringify({ date }),
      });
      if (!response.ok) throw new Error(`sandbox: setting the day answered ${response.status}`);
      await response.arrayBuffer();
    },
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The child: start the sandbox, print {baseUrl, controlUrl, keys}, stop on SIGTERM. */
async function serve(params: BenchParams): Promise<void> {
  const sandbox = await startSandbox({ scenario: builtinScenario('bench', params) });
  process.once('SIGTERM', () => {
    void sandbox.close().then(() => process.exit(0));
  });
  process.stdout.write(
    `${JSON.stringify({ baseUrl: sandbox.baseUrl, controlUrl: sandbox.controlUrl, keys: sandbox.keys })}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  serve(JSON.parse(process.argv[2] ?? '{}') as BenchParams).catch((error: unknown) => {
    process.stderr.write(`sandbox process: ${String(error)}\n`);
    process.exit(1);
  });
}
