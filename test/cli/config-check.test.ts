import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runThm } from '../harness/cli.js';

const KEY = 'sk_cli_test_0123456789abcdef';

describe('thm config check (the real binary)', () => {
  it('accepts config/thm.example.yaml with its key set, secrets redacted', () => {
    const r = runThm(['config', 'check', '--config', 'config/thm.example.yaml'], {
      env: { ACME_API_KEY: KEY, SMTP_URL: 'smtp://u:mailpass@127.0.0.1:25' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('OK (1 network, secrets resolved)');
    expect(r.stdout).toContain('apiKey: "[redacted]"');
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.stdout + r.stderr).not.toContain('mailpass');
  });

  it('--json prints one JSON document', () => {
    const r = runThm(['config', 'check', '--json', '--config', 'config/thm.example.yaml'], {
      env: { ACME_API_KEY: KEY },
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      ok: boolean;
      config: { networks: Array<{ apiKey: string }> };
    };
    expect(doc.ok).toBe(true);
    expect(doc.config.networks[0]?.apiKey).toBe('[redacted]');
  });

  it('a missing key variable: a warning without --online, exit 2 with it; field named, no stack', () => {
    const r = runThm(['config', 'check', '--config', 'config/thm.example.yaml']);
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe(
      'warning: networks[0].apiKeyEnv: environment variable ACME_API_KEY is not set or empty: not read here; the worker needs it (--online reads every secret)',
    );
    expect(r.stdout).toContain('OK (1 network, 1 secret not resolved here, 1 warning)');
    const online = runThm(['config', 'check', '--online', '--config', 'config/thm.example.yaml']);
    expect(online.code).toBe(2);
    expect(online.stderr.trim()).toBe(
      'thm: networks[0].apiKeyEnv: environment variable ACME_API_KEY is not set or empty',
    );
    expect(online.stdout).toBe('');
  });

  it('rejects a plain-http public baseUrl: exit 2, one line', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-cli-'));
    const file = path.join(dir, 'thm.yaml');
    writeFileSync(
      file,
      'networks:\n  - id: acme\n    baseUrl: http://api.example.com/v1\n    apiKeyEnv: ACME_API_KEY\n    recipients: [ops@acme.example]\n',
    );
    const r = runThm(['config', 'check'], { env: { ACME_API_KEY: KEY, THM_CONFIG: file } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'thm: networks[0].baseUrl: must be https:// (http is allowed only for loopback hosts)',
    );
  });

  it('reads ./thm.yaml by default and says where it looked', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-cli-'));
    const r = runThm(['config', 'check'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/thm\.yaml: not found/);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('--help lists the commands with examples; an unknown command is a usage error', () => {
    const help = runThm(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/config/);
    expect(help.stdout).toMatch(/Examples:/);
    const bad = runThm(['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown command/);
  });
});

describe('thm config check lists every problem at once', () => {
  const writeConfig = (text: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-cli-'));
    const file = path.join(dir, 'thm.yaml');
    writeFileSync(file, text);
    return file;
  };
  const broken = [
    'redis:',
    '  prefx: thm',
    'networks:',
    '  - id: acme',
    '    baseUrl: http://api.example.com/v1',
    '    apiKeyEnv: ACME_API_KEY',
    '    recipients: [ops@acme.example]',
    '    timezone: Europe/Berlin',
    '    trafficCheck: { cron: "30 2 * * *" }',
    '    alerts:',
    '      minBaselineClicks: fifty',
    '      minDropPrecent: 30',
    '  - id: globex',
    '    baseUrl: https://api.globex.example/v1',
    '    apiKeyEnv: GLOBEX_API_KEY',
    '    recipients: [ops@globex.example]',
    '    trafficCheck: { cron: "*/10 * * * *" }',
    '',
  ].join('\n');

  it('names every problem, with "did you mean" and the expected type', () => {
    const r = runThm(['config', 'check', '--config', writeConfig(broken)]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/thm\.yaml: 4 problems$/);
    expect(lines).toContain('  redis: unknown option "prefx" (did you mean "prefix"?)');
    expect(lines).toContain(
      '  networks[0].baseUrl: must be https:// (http is allowed only for loopback hosts)',
    );
    expect(lines).toContain('  networks[0].alerts.minBaselineClicks: expected a number, got text');
    expect(lines).toContain(
      '  networks[0].alerts: unknown option "minDropPrecent" (did you mean "minDropPercent"?)',
    );
    expect(r.stderr).not.toContain('is required');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('--online lists every key that does not resolve, and the start-up warnings', () => {
    const file = writeConfig(
      broken
        .replace('  prefx: thm', '  prefix: thm')
        .replace('http://api.example', 'https://api.example')
        .replace('minBaselineClicks: fifty', 'minBaselineClicks: 50')
        .replace('minDropPrecent', 'minDropPercent'),
    );
    const r = runThm(['config', 'check', '--online', '--config', file]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/thm\.yaml: 2 problems$/),
      '  networks[0].apiKeyEnv: environment variable ACME_API_KEY is not set or empty',
      '  networks[1].apiKeyEnv: environment variable GLOBEX_API_KEY is not set or empty',
      expect.stringMatching(
        /^warning: networks\[0\]\.trafficCheck\.cron: "30 2 \* \* \*" falls in a daylight-saving gap of Europe\/Berlin/,
      ),
      expect.stringMatching(
        /^warning: networks\[1\]\.trafficCheck\.cron: "\*\/10 \* \* \* \*" fires every 10 minutes: more often than hourly/,
      ),
    ]);

    const ok = runThm(['config', 'check', '--config', file], {
      env: { ACME_API_KEY: KEY, GLOBEX_API_KEY: KEY },
    });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('OK (2 networks, secrets resolved, 2 warnings)');
    expect(ok.stderr).toMatch(/^warning: networks\[0\]\.trafficCheck\.cron: .*daylight-saving/m);
  }, 90_000);

  it('--json: one document with every problem and warning, exit 2', () => {
    const r = runThm(['config', 'check', '--json', '--config', writeConfig(broken)]);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout) as {
      ok: boolean;
      error: { code: string; message: string; problems: string[] };
      warnings: Array<{ field: string }>;
    };
    expect(doc.ok).toBe(false);
    expect(doc.error.code).toBe('THM_CONFIG');
    expect(doc.error.problems).toHaveLength(4);
    expect(doc.warnings).toEqual([]);
  });
});
