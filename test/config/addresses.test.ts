import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { runThm } from '../harness/cli.js';

/**
 * mail.from, networks[].name and recipients end up in headers and the SMTP envelope: a CR/LF
 * there writes headers of its own, a second address or a non-address changes who sends.
 */

const env = { ACME_API_KEY: 'sk_addresses_test_key_0123' };

function network(extra: Record<string, unknown> = {}) {
  return {
    id: 'acme',
    baseUrl: 'https://api.example.com/v1',
    apiKeyEnv: 'ACME_API_KEY',
    recipients: ['ops@acme.example'],
    ...extra,
  };
}

function problemOf(raw: unknown): string | undefined {
  try {
    parseConfig(raw, { env });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

const ONE_ADDRESS = 'mail.from: must be exactly one e-mail address';
const ONE_LINE = 'must be one line (no CR, LF or other control characters)';

describe('mail.from', () => {
  it.each([
    ['Traffic Health <alerts@example.com>', undefined],
    ['alerts@example.com', undefined],
    ['<alerts@example.com>', undefined],
    ['"Ops, Traffic" <alerts@example.com>', undefined],
    ['Trafic Santé <alerts@example.com>', undefined],
    ['Traffic Health <a@example.com>\r\nBcc: x@evil.example', ONE_LINE],
    ['a@example.com\nBcc: x@evil.example', ONE_LINE],
    ['not an address', ONE_ADDRESS],
    ['Traffic Health <>', ONE_ADDRESS],
    ['a@example.com, b@example.com', ONE_ADDRESS],
    ['Traffic <a@example.com>, Other <b@example.com>', ONE_ADDRESS],
    ['Traffic <a@example.com> b@example.com', ONE_ADDRESS],
    ['group: a@example.com, b@example.com;', ONE_ADDRESS],
    ['Name <a@example.com', ONE_ADDRESS],
  ])('%j -> %s', (from, expected) => {
    const problem = problemOf({ mail: { from }, networks: [network()] });
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
  });
});

describe('networks[].name and recipients', () => {
  it.each([
    [{ name: 'Acme Network' }, undefined],
    [{ name: 'Acme\r\nBcc: x@evil.example' }, `networks[0].name: ${ONE_LINE}`],
    [{ name: 'Acme\u202eemaN' }, 'networks[0].name: must not contain invisible'],
    [{ name: 'Ac\u200bme' }, 'networks[0].name: must not contain invisible'],
    [{ recipients: ['ops@acme.example\r\nBcc: x@evil.example'] }, 'networks[0].recipients[0]'],
    [{ recipients: ['ops@acme.example, x@evil.example'] }, 'networks[0].recipients[0]'],
    [{ recipients: ['ops@acme.example', 'Ops <ops2@acme.example>'] }, 'networks[0].recipients[1]'],
  ])('%j -> %s', (extra, expected) => {
    const problem = problemOf({ networks: [network(extra)] });
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
  });
});

describe('thm config check with a hostile mail.from (the real binary)', () => {
  it('refuses a From with an injected Bcc header: exit 2, one line naming the field', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-from-'));
    const file = path.join(dir, 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        mail: { from: 'Traffic Health <a@example.com>\r\nBcc: x@evil.example' },
        networks: [network()],
      }),
    );
    const r = runThm(['config', 'check', '--config', file], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`thm: mail.from: ${ONE_LINE}`);
  });
});

describe('heartbeat.url and a world-readable apiKeyFile', () => {
  it.each([
    ['https://hc.example.com/ping/abc', undefined],
    ['http://127.0.0.1:8080/ping', undefined],
    ['file:///etc/passwd', 'heartbeat.url: must be an http:// or https:// URL'],
    ['gopher://hc.example.com/', 'heartbeat.url: must be an http:// or https:// URL'],
  ])('heartbeat.url %s -> %s', (url, expected) => {
    const problem = problemOf({ heartbeat: { url }, networks: [network()] });
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
  });

  it.each([
    ['url', 'file:///etc/passwd'],
    ['invoicesUrl', 'gopher://hc.example.com/'],
    ['url', 'javascript:alert(1)'],
  ])('networks[].heartbeat.%s %s: http(s) only, like the global one', (field, url) => {
    const problem = problemOf({ networks: [{ ...network(), heartbeat: { [field]: url } }] });
    expect(problem).toContain(`networks[0].heartbeat.${field}: must be an http:// or https:// URL`);
    expect(
      problemOf({
        networks: [{ ...network(), heartbeat: { [field]: 'https://hc.example.com/ping/n1' } }],
      }),
    ).toBeUndefined();
  });

  it('thm config check warns about a key file every user can read, not about a private one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-keyfile-'));
    const keyFile = path.join(dir, 'acme.key');
    writeFileSync(keyFile, 'sk_keyfile_test_0123456789\n', { mode: 0o644 });
    chmodSync(keyFile, 0o644);
    const file = path.join(dir, 'thm.json');
    const { apiKeyEnv: _env, ...rest } = network();
    writeFileSync(file, JSON.stringify({ networks: [{ ...rest, apiKeyFile: 'acme.key' }] }));
    const open = runThm(['config', 'check', '--config', file]);
    expect(open.code).toBe(0);
    expect(open.stderr).toContain(
      `warning: networks[0].apiKeyFile: ${keyFile} can be read by every user of this machine (mode 0644): chmod 600 it`,
    );
    expect(open.stdout + open.stderr).not.toContain('sk_keyfile_test_0123456789');
    chmodSync(keyFile, 0o600);
    const closed = runThm(['config', 'check', '--config', file]);
    expect(closed.code).toBe(0);
    expect(closed.stderr).not.toContain('apiKeyFile');
  });
});
