import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../harness/cli.js';

/**
 * What a CLI command loads (target P7, docs/performance.md): a command that talks to no Redis
 * (help, a usage error) loads neither ioredis nor BullMQ, one that calls no HTTP API (status
 * included) not undici, and status not BullMQ (it reads the queues itself). A preloaded hook
 * lists, at exit, the CommonJS packages in the module cache: all three are CommonJS, left out of
 * the CLI's bundle (scripts/bundle-cli.js) and loaded from node_modules when a command needs
 * them.
 */
describe('CLI start-up: what a command loads', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-startup-'));
  const hook = path.join(dir, 'list-packages.cjs');
  writeFileSync(
    hook,
    `process.on('exit', () => {
      const packages = new Set();
      for (const file of Object.keys(require.cache)) {
        const match = /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(file);
        if (match) packages.add(match[1]);
      }
      process.stderr.write('LOADED ' + JSON.stringify([...packages]) + '\\n');
    });`,
  );
  const config = path.join(dir, 'thm.json');
  writeFileSync(
    config,
    JSON.stringify({
      redis: { url: 'redis://127.0.0.1:1' },
      networks: [
        {
          id: 'acme',
          baseUrl: 'https://api.acme.example',
          apiKeyEnv: 'ACME_KEY',
          recipients: ['ops@acme.example'],
        },
      ],
    }),
  );
  const loaded = (args: string[]) => {
    const r = spawnSync(process.execPath, ['--require', hook, BIN, ...args], {
      env: { PATH: process.env.PATH, THM_CONFIG: config, ACME_KEY: 'k' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
    return { code: r.status, packages: JSON.parse(line?.slice(7) ?? '[]') as string[] };
  };

  it.each([
    [['--help']],
    [['run', 'traffic-check', '--network', 'acme', '--date', '2026-13-01']],
    [['silence', 'add', '--network', 'acme', '--for', '1d', '--reason', 'r']],
  ])('%j loads neither ioredis nor BullMQ, nor undici, nor pino', (args) => {
    const { packages } = loaded(args);
    expect(packages).not.toContain('ioredis');
    expect(packages).not.toContain('bullmq');
    expect(packages).not.toContain('undici');
    // No logger of theirs writes: pino loads with the first logger used (src/log.ts).
    expect(packages).not.toContain('pino');
  });

  it('thm status, which calls no HTTP API and reads the queues itself, loads neither undici nor BullMQ', () => {
    const { packages } = loaded(['status']);
    expect(packages).not.toContain('undici');
    expect(packages).not.toContain('bullmq');
  });

  it('the hook sees them when a command does load them (the test can fail)', () => {
    const { packages } = loaded(['status']);
    expect(packages).toContain('ioredis');
  });
});
