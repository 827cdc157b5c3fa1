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
    expect(r.stdout).toContain('OK (1 network, keys resolved)');
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

  it('rejects a missing key variable: exit 2, field named, no stack', () => {
    const r = runThm(['config', 'check', '--config', 'config/thm.example.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'thm: networks[0].apiKeyEnv: environment variable ACME_API_KEY is not set or empty',
    );
    expect(r.stdout).toBe('');
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
