import { describe, expect, it } from 'vitest';
import { appliedConfig, configChanges, schedulesChanged } from '../../src/config/changes.js';
import { parseConfig } from '../../src/config/load.js';
import { createRuntime } from '../../src/jobs/runtime.js';
import { silentLogger } from '../../src/log.js';
import type { RedisStore } from '../../src/store/redis-store.js';

const env = { A_KEY: 'sk_a_0123456789', A_KEY_2: 'sk_a_rotated_98765', B_KEY: 'sk_b_0123456789' };
const network = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  baseUrl: `https://api.${id}.example/v1`,
  apiKeyEnv: `${id.toUpperCase()}_KEY`,
  recipients: [`ops@${id}.example`],
  ...extra,
});
const config = (raw: Record<string, unknown>) => parseConfig(raw, { env });

describe('configChanges: what a reload changes', () => {
  const before = config({ networks: [network('a'), network('b')] });

  it('networks added, removed and changed by field; a key by name, never by value', () => {
    const after = config({
      api: { attempts: 5 },
      redis: { prefix: 'other' },
      networks: [
        network('a', {
          apiKeyEnv: 'A_KEY_2',
          recipients: ['ops@a.example', 'oncall@a.example'],
          alerts: { minDropPercent: 30 },
          trafficCheck: { cron: '0 6 * * *' },
        }),
        network('c', { apiKeyEnv: 'B_KEY' }),
      ],
    });
    const changes = configChanges(before, after);
    expect(changes).toEqual({
      added: ['c'],
      removed: ['b'],
      changed: [
        {
          network: 'a',
          fields: [
            'alerts.minDropPercent',
            'apiKey',
            'apiKeyEnv',
            'recipients',
            'trafficCheck.cron',
          ],
        },
      ],
      applied: ['api.attempts'],
      restartNeeded: ['redis.prefix'],
    });
    expect(JSON.stringify(changes)).not.toContain('sk_');
    expect(schedulesChanged(changes, false)).toBe(true);
  });

  it('thresholds only: no scheduler work; the same config: no change at all', () => {
    const after = config({
      networks: [network('a', { alerts: { minBaselineClicks: 80 } }), network('b')],
    });
    const changes = configChanges(before, after);
    expect(changes.changed).toEqual([{ network: 'a', fields: ['alerts.minBaselineClicks'] }]);
    expect(schedulesChanged(changes, false)).toBe(false);
    expect(configChanges(before, config({ networks: [network('a'), network('b')] }))).toEqual({
      added: [],
      removed: [],
      changed: [],
      applied: [],
      restartNeeded: [],
    });
  });

  it('the applied config keeps what needs a restart, so it keeps showing as changed', () => {
    const after = config({ redis: { prefix: 'other' }, networks: [network('a')] });
    const applied = appliedConfig(before, after);
    expect(applied.redis.prefix).toBe('thm');
    expect(applied.networks.map((n) => n.id)).toEqual(['a']);
    expect(configChanges(applied, after).restartNeeded).toEqual(['redis.prefix']);
  });
});

describe('runtime.replaceConfig: from the next job on', () => {
  it('answers with the new network settings and makes a new API client when the key changed', async () => {
    const before = config({ networks: [network('a'), network('b')] });
    const rt = createRuntime({
      config: before,
      store: {} as RedisStore,
      mailQueue: {} as never,
      logger: silentLogger,
    });
    const clientA = rt.apiClient(rt.network('a'));
    const clientB = rt.apiClient(rt.network('b'));
    rt.replaceConfig(
      config({
        networks: [
          network('a', { apiKeyEnv: 'A_KEY_2', recipients: ['new@a.example'] }),
          network('b', { alerts: { minBaselineClicks: 80 } }),
        ],
      }),
    );
    expect(rt.network('a').recipients).toEqual(['new@a.example']);
    expect(rt.network('b').alerts.minBaselineClicks).toBe(80);
    expect(rt.apiClient(rt.network('a'))).not.toBe(clientA);
    expect(rt.apiClient(rt.network('b'))).toBe(clientB);
    rt.replaceConfig(config({ networks: [network('b')] }));
    expect(() => rt.network('a')).toThrow(/not configured/);
    await rt.close();
  });
});
