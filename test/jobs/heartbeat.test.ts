import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { redactedConfig } from '../../src/config/load.js';
import { heartbeatUrl } from '../../src/jobs/heartbeat.js';

const env = { KEY: 'sk_heartbeat_0123456789' };
const network = (id: string, heartbeat?: Record<string, string>) => ({
  id,
  baseUrl: `https://api.${id}.example/v1`,
  apiKeyEnv: 'KEY',
  recipients: [`ops@${id}.example`],
  ...(heartbeat ? { heartbeat } : {}),
});

describe('heartbeat per network and job kind', () => {
  const config = parseConfig(
    {
      heartbeat: { url: 'https://hc.example/ping/global-uuid' },
      networks: [
        network('acme', {
          url: 'https://hc.example/ping/acme-checks',
          invoicesUrl: 'https://hc.example/ping/acme-invoices',
        }),
        network('globex', { url: 'https://hc.example/ping/globex-checks' }),
        network('initech'),
      ],
    },
    { env },
  );
  const [acme, globex, initech] = config.networks;

  it.each([
    ['acme', 'traffic-check', 'https://hc.example/ping/acme-checks'],
    ['acme', 'invoice-snapshot', 'https://hc.example/ping/acme-invoices'],
    ['globex', 'traffic-check', 'https://hc.example/ping/globex-checks'],
    ['globex', 'invoice-snapshot', 'https://hc.example/ping/global-uuid'],
    ['initech', 'traffic-check', 'https://hc.example/ping/global-uuid'],
  ] as const)('%s %s -> %s', (id, kind, expected) => {
    const n = { acme, globex, initech }[id];
    expect(n && heartbeatUrl(config, n, kind)?.reveal()).toBe(expected);
  });

  it('no URL anywhere: no ping; the URLs are secrets in thm config check', () => {
    const bare = parseConfig({ networks: [network('acme')] }, { env });
    expect(heartbeatUrl(bare, bare.networks[0]!, 'traffic-check')).toBeUndefined();
    expect(JSON.stringify(redactedConfig(config))).not.toContain('acme-checks');
  });
});
