import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';

/** config/thm.example.yaml documents every option with its default: keep it true. */
describe('config/thm.example.yaml', () => {
  const env = { ACME_API_KEY: 'k' };
  const raw = parse(readFileSync('config/thm.example.yaml', 'utf8')) as Record<string, unknown>;

  it('is a valid config', () => {
    expect(() => parseConfig(raw, { env: { ACME_API_KEY: 'k' } })).not.toThrow();
  });

  it('shows the defaults: parsing it equals parsing the bare minimum', () => {
    const network = (raw.networks as Array<Record<string, unknown>>)[0] ?? {};
    const minimal = parseConfig(
      {
        networks: [
          {
            id: network.id,
            name: network.name,
            baseUrl: network.baseUrl,
            apiKeyEnv: network.apiKeyEnv,
            timezone: network.timezone,
            recipients: network.recipients,
          },
        ],
      },
      { env, source: 'x' },
    );
    expect(parseConfig(raw, { env, source: 'x' })).toEqual(minimal);
  });
});

/** The README's minimal config is one an operator can start from: it validates as written. */
describe('README, "A minimal config"', () => {
  it('is a valid config with only the required options and a few common ones', () => {
    const readme = readFileSync('README.md', 'utf8');
    const yaml = /## A minimal config\s+```yaml\n([^]*?)```/.exec(readme)?.[1];
    expect(yaml).toBeDefined();
    const raw = parse(yaml!) as { networks: Array<Record<string, unknown>> };
    // The key file is the operator's: read from the environment here instead.
    const network = { ...raw.networks[0], apiKeyFile: undefined, apiKeyEnv: 'ACME_API_KEY' };
    const config = parseConfig({ ...raw, networks: [network] }, { env: { ACME_API_KEY: 'k' } });
    expect(config.networks[0]?.baseUrl).toMatch(/^https:\/\/.+\/v1$/);
    expect(raw.networks[0]?.apiKeyFile).toMatch(/^\//);
  });
});
