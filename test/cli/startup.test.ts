import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../harness/cli.js';

/**
 * What a CLI command loads (target P7, docs/performance.md): a command that talks to no Redis
 * (help, a usage error) loads neither ioredis nor BullMQ, one that calls no HTTP API (status
 * included) not undici, and status not BullMQ (it reads the queues itself). A preloaded hook
 * lists, at exit, the CommonJS packages in the module cache: all of them are CommonJS, left out of
 * the CLI's main bundle (scripts/bundle-cli.js) and required when a command needs them, undici
 * and pino from node_modules, ioredis and BullMQ from their own bundles in dist/cli/vendor/.
 */
describe('CLI start-up: what a command loads', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-startup-'));
  const hook = path.join(dir, 'list-packages.cjs');
  writeFileSync(
    hook,
    `process.on('exit', () => {
      const modules = new Set();
      const vendor = new Set();
      for (const file of Object.keys(require.cache)) {
        const match = /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(file);
        if (match) modules.add(match[1]);
        const bundled = /dist[\\\\/]cli[\\\\/]vendor[\\\\/]([^\\\\/]+)\\.cjs$/.exec(file);
        if (bundled) vendor.add(bundled[1]);
      }
      process.stderr.write('LOADED ' + JSON.stringify({ modules: [...modules], vendor: [...vendor] }) + '\\n');
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
          // Checked as the config is read (a default is not).
          trafficCheck: { cron: '30 6 * * 1-5' },
        },
      ],
    }),
  );
  writeFileSync(path.join(dir, 'listings.jsonl'), '{"asOf":"2026-11-20","entries":[]}\n');
  const loaded = (args: string[]) => {
    const r = spawnSync(process.execPath, ['--require', hook, BIN, ...args], {
      env: { PATH: process.env.PATH, THM_CONFIG: config, ACME_KEY: 'k' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
    const { modules, vendor } = JSON.parse(line?.slice(7) ?? '{}') as {
      modules: string[];
      vendor: string[];
    };
    return { code: r.status, packages: [...modules, ...vendor], modules, vendor };
  };

  it.each([
    [['--help']],
    [['run', 'traffic-check', '--network', 'acme', '--date', '2026-13-01']],
    [['silence', 'add', '--network', 'acme', '--for', '1d', '--reason', 'r']],
    // A listing file is replayed without Redis.
    [['replay', '--network', 'acme', '--listings', path.join(dir, 'listings.jsonl')]],
  ])('%j loads neither ioredis nor BullMQ, nor undici, nor pino', (args) => {
    const { packages, code } = loaded(args);
    if (args[0] === 'replay') expect(code).toBe(0);
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

  it('with plain crons in UTC, a command reading the config loads neither cron-parser nor luxon', () => {
    // src/cron.ts reads a plain cron itself; the two took 17 - 19 ms of every command.
    for (const args of [['status'], ['run', 'traffic-check', '--network', 'acme']]) {
      const { packages } = loaded(args);
      expect(packages, args.join(' ')).not.toContain('cron-parser');
      expect(packages, args.join(' ')).not.toContain('luxon');
    }
    // `thm config check` walks the schedules for its warnings with cron-parser: it loads both.
    expect(loaded(['config', 'check']).packages).toEqual(
      expect.arrayContaining(['cron-parser', 'luxon']),
    );
  });

  it('the hook sees them when a command does load them (the test can fail)', () => {
    const { packages } = loaded(['status']);
    expect(packages).toContain('ioredis');
  });

  it('with every network in UTC, a command makes no Intl.DateTimeFormat (the first loads ICU data)', () => {
    // luxon, under cron-parser, asked one for the system's locale as the config's crons were
    // checked: ~18 ms of every command (src/cron.ts).
    const counter = path.join(dir, 'count-intl.cjs');
    writeFileSync(
      counter,
      `const Original = Intl.DateTimeFormat;
      let made = 0;
      Intl.DateTimeFormat = new Proxy(Original, {
        construct(target, args) { made++; return new target(...args); },
        apply(target, self, args) { made++; return target(...args); },
      });
      process.on('exit', () => process.stderr.write('INTL ' + made + '\\n'));`,
    );
    const made = (args: string[], file = config) => {
      const r = spawnSync(process.execPath, ['--require', counter, BIN, ...args], {
        env: { PATH: process.env.PATH, THM_CONFIG: file, ACME_KEY: 'k' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      return Number(/^INTL (\d+)$/m.exec(r.stderr)?.[1]);
    };
    expect(made(['config', 'check'])).toBe(0);
    expect(made(['status'])).toBe(0);
    // The counter counts: a network in another zone needs one.
    const berlin = path.join(dir, 'berlin.json');
    writeFileSync(
      berlin,
      readFileSync(config, 'utf8').replace('"id":"acme"', '"id":"acme","timezone":"Europe/Berlin"'),
    );
    expect(made(['config', 'check'], berlin)).toBeGreaterThan(0);
  });

  it('a config in JSON is read without the YAML parser; one in YAML loads it, from its bundle', () => {
    expect(loaded(['status']).packages).not.toContain('yaml');
    const yamlConfig = path.join(dir, 'thm.yaml');
    writeFileSync(
      yamlConfig,
      'redis: { url: "redis://127.0.0.1:1" }\nnetworks:\n  - { id: acme, baseUrl: "https://api.acme.example", apiKeyEnv: ACME_KEY, recipients: [ops@acme.example] }\n',
    );
    const { vendor, modules } = loaded(['status', '--config', yamlConfig]);
    expect(vendor).toContain('yaml');
    expect(modules).not.toContain('yaml');
  });

  it("thm run requires BullMQ and ioredis from the CLI's own bundles of them, not node_modules", () => {
    // Redis at 127.0.0.1:1 refuses: the command fails after loading both.
    const { modules, vendor } = loaded(['run', 'traffic-check', '--network', 'acme']);
    expect(vendor.sort()).toEqual(['bullmq', 'ioredis']);
    expect(modules).not.toContain('bullmq');
    expect(modules).not.toContain('ioredis');
  });
});
