import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  loadConfig,
  parseConfig,
  redactedConfig,
  resolveConfigPath,
} from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';

const KEY = 'sk_live_4f1b2c3d4e5f_super_secret';
const env = { ACME_API_KEY: KEY };

function network(extra: Record<string, unknown> = {}) {
  return {
    id: 'acme',
    baseUrl: 'https://api.example.com/v1',
    apiKeyEnv: 'ACME_API_KEY',
    recipients: ['ops@acme.example'],
    ...extra,
  };
}

/** The config as the worker loads it: its keys read too. */
function errorOf(raw: unknown, e: NodeJS.ProcessEnv = env): string {
  try {
    parseConfig(raw, { env: e, readSecrets: true });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

describe('config defaults', () => {
  it('fills every default but id, baseUrl, key and recipients', () => {
    const config = parseConfig({ networks: [network()] }, { env });
    expect(config.redis.prefix).toBe('thm');
    expect(config.redis.url.reveal()).toBe('redis://127.0.0.1:6379');
    expect(config.mail.url).toBeUndefined();
    expect(config.mail.outboxDir).toBe('./outbox');
    const [acme] = config.networks;
    expect(acme?.name).toBe('acme');
    expect(acme?.timezone).toBe('UTC');
    expect(acme?.trafficCheck.cron).toBe('0 7 * * *');
    expect(acme?.invoices).toMatchObject({ cron: '0 8 * * *', status: 'unpaid', notify: false });
    expect(acme?.alerts).toEqual({
      minBaselineClicks: 50,
      minDropPercent: 20,
      minSignificance: 3.5,
      criticalDropPercent: 50,
      renotifyAfterDays: 7,
      clearAfterRuns: 2,
      notifyCleared: true,
    });
    expect(acme?.apiKey.read().reveal()).toBe(KEY);
  });

  it('applies REDIS_URL, SMTP_URL and LOG_LEVEL over the file', () => {
    const config = parseConfig(
      {
        redis: { url: 'redis://file:6379' },
        mail: { url: 'smtp://file:25' },
        networks: [network()],
      },
      {
        env: {
          ...env,
          REDIS_URL: 'rediss://u:p@env:6380',
          SMTP_URL: 'smtps://u:pw@mail:465',
          LOG_LEVEL: 'debug',
        },
      },
    );
    expect(config.redis.url.reveal()).toBe('rediss://u:p@env:6380');
    expect(config.mail.url?.reveal()).toBe('smtps://u:pw@mail:465');
    expect(config.logLevel).toBe('debug');
  });

  it('treats a YAML section left with only comments (null) as absent', () => {
    const config = parseConfig(
      { heartbeat: null, networks: [{ ...network(), alerts: null }] },
      { env },
    );
    expect(config.heartbeat.url).toBeUndefined();
    expect(config.networks[0]?.alerts.clearAfterRuns).toBe(2);
  });
});

describe('config rules: one line naming the field', () => {
  const cases: Array<[string, unknown, RegExp, NodeJS.ProcessEnv?]> = [
    [
      'plain-http public baseUrl',
      { networks: [network({ baseUrl: 'http://api.example.com/v1' })] },
      /^networks\[0\]\.baseUrl: must be https:\/\/ \(http is allowed only for loopback hosts\)$/,
    ],
    [
      'not a URL',
      { networks: [network({ baseUrl: 'api.example.com' })] },
      /^networks\[0\]\.baseUrl: not a valid URL/,
    ],
    [
      'missing key variable',
      { networks: [network()] },
      /^networks\[0\]\.apiKeyEnv: environment variable ACME_API_KEY is not set or empty$/,
      {},
    ],
    [
      'no key source',
      { networks: [network({ apiKeyEnv: undefined })] },
      /^networks\[0\]\.apiKeyEnv: set exactly one of apiKeyEnv or apiKeyFile$/,
    ],
    [
      'both key sources',
      { networks: [network({ apiKeyFile: '/run/secrets/k' })] },
      /set exactly one of apiKeyEnv or apiKeyFile/,
    ],
    [
      'duplicate ids',
      { networks: [network(), network()] },
      /^networks\[1\]\.id: duplicate network id "acme" \(also networks\[0\]\.id\)$/,
    ],
    [
      'bad time zone',
      { networks: [network({ timezone: 'Mars/Olympus' })] },
      /^networks\[0\]\.timezone: not a valid IANA time zone$/,
    ],
    [
      'bad time zone after good ones (each zone is tried once a process)',
      {
        networks: [
          network({ timezone: 'Europe/Berlin' }),
          network({ id: 'globex', timezone: 'Europe/Berlin' }),
          network({ id: 'initech', timezone: 'Europe/Berlinn' }),
        ],
      },
      /^networks\[2\]\.timezone: not a valid IANA time zone$/,
    ],
    [
      'bad cron',
      { networks: [network({ trafficCheck: { cron: '61 7 * * *' } })] },
      /^networks\[0\]\.trafficCheck\.cron: not a valid cron expression/,
    ],
    [
      'bad invoice cron',
      { networks: [network({ invoices: { cron: 'every day' } })] },
      /^networks\[0\]\.invoices\.cron: not a valid cron expression/,
    ],
    ['missing id', { networks: [network({ id: undefined })] }, /^networks\[0\]\.id: is required$/],
    [
      'missing recipients',
      { networks: [network({ recipients: undefined })] },
      /^networks\[0\]\.recipients: at least one recipient is required \(or a channel\)$/,
    ],
    [
      'empty recipients',
      { networks: [network({ recipients: [] })] },
      /^networks\[0\]\.recipients: at least one recipient is required \(or a channel\)$/,
    ],
    [
      'bad recipient',
      { networks: [network({ recipients: ['ops@', 'x'] })] },
      /^networks\[0\]\.recipients\[0\]: not a valid e-mail address/,
    ],
    [
      'unknown option',
      { networks: [network({ alerts: { minDropPercnt: 10 } })] },
      /^networks\[0\]\.alerts: unknown option "minDropPercnt" \(did you mean "minDropPercent"\?\)$/,
    ],
    [
      'an option cut short',
      { networks: [network({ alerts: { minBaseline: 50 } })] },
      /^networks\[0\]\.alerts: unknown option "minBaseline" \(did you mean "minBaselineClicks"\?\)$/,
    ],
    [
      'a misspelt network option',
      { networks: [network({ timzone: 'UTC' })] },
      /^networks\[0\]: unknown option "timzone" \(did you mean "timezone"\?\)$/,
    ],
    [
      'wrongly typed threshold: the expected type, not "is required"',
      { networks: [network({ alerts: { minBaselineClicks: 'fifty' } })] },
      /^networks\[0\]\.alerts\.minBaselineClicks: expected a number, got text$/,
    ],
    [
      'a section where a list belongs',
      { networks: { id: 'acme' } },
      /^networks: expected a list, got a section$/,
    ],
    [
      'negative threshold',
      { networks: [network({ alerts: { minBaselineClicks: -1 } })] },
      /^networks\[0\]\.alerts\.minBaselineClicks: /,
    ],
    [
      'critical below min drop',
      { networks: [network({ alerts: { minDropPercent: 40, criticalDropPercent: 30 } })] },
      /^networks\[0\]\.alerts\.criticalDropPercent: must be at least alerts\.minDropPercent \(40\)$/,
    ],
    [
      'bad id slug',
      { networks: [network({ id: 'Acme Net' })] },
      /^networks\[0\]\.id: must be a slug/,
    ],
    ['no networks', { networks: [] }, /^networks: at least one network is required$/],
    ['networks missing', {}, /^networks: is required$/],
    [
      'bad redis url',
      { redis: { url: 'http://x' }, networks: [network()] },
      /^redis\.url: must be a redis:\/\/ or rediss:\/\/ URL$/,
    ],
    [
      'bad smtp url',
      { mail: { url: 'mailto:x' }, networks: [network()] },
      /^mail\.url: must be an smtp:\/\/ or smtps:\/\/ URL$/,
    ],
    ['bad prefix', { redis: { prefix: 'a b' }, networks: [network()] }, /^redis\.prefix: /],
    [
      'unknown top-level option',
      { networks: [network()], extra: 1 },
      /^\(root\): unknown option "extra"$/,
    ],
    [
      'bad LOG_LEVEL',
      { networks: [network()] },
      /^LOG_LEVEL: must be one of/,
      { ...env, LOG_LEVEL: 'loud' },
    ],
  ];

  it.each(cases)('%s', (_name, raw, expected, e) => {
    expect(errorOf(raw, e ?? env)).toMatch(expected);
  });

  it('allows plain http for loopback hosts (the sandbox)', () => {
    for (const host of ['127.0.0.1:8080', 'localhost:1', '[::1]:9', '127.1.2.3']) {
      expect(() =>
        parseConfig({ networks: [network({ baseUrl: `http://${host}/v1` })] }, { env }),
      ).not.toThrow();
    }
  });

  it('counts further problems on the same line', () => {
    expect(
      errorOf({ networks: [network({ baseUrl: 'http://x.example', timezone: 'Nope/Nope' })] }),
    ).toMatch(/\(and 1 more problem\)$/);
  });
});

describe('config files and keys', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'thm-config-'));

  it('reads YAML and JSON by extension, and apiKeyFile relative to the config', () => {
    writeFileSync(path.join(dir, 'key.txt'), `${KEY}\n`);
    writeFileSync(
      path.join(dir, 'a.yaml'),
      'networks:\n  - id: acme\n    baseUrl: https://x.example/v1\n    apiKeyFile: key.txt\n    recipients: [a@b.example]\n',
    );
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ networks: [network()] }));
    expect(
      loadConfig({ file: path.join(dir, 'a.yaml'), env: {} })
        .networks[0]?.apiKey.read()
        .reveal(),
    ).toBe(KEY);
    expect(loadConfig({ file: path.join(dir, 'a.json'), env }).networks[0]?.id).toBe('acme');
  });

  it('leaves the keys unread unless asked: a command that does not call the API needs none', () => {
    const file = path.join(dir, 'lazy.yaml');
    writeFileSync(
      file,
      [
        'networks:',
        '  - id: acme',
        '    baseUrl: https://x.example/v1',
        '    apiKeyFile: not-there.txt',
        '    recipients: [a@b.example]',
        '  - id: globex',
        '    baseUrl: https://x.example/v1',
        '    apiKeyEnv: GLOBEX_API_KEY',
        '    recipients: [a@b.example]',
        '',
      ].join('\n'),
    );
    const config = loadConfig({ file, env: {} });
    expect(config.networks.map((n) => n.id)).toEqual(['acme', 'globex']);
    // Asked for, each key says what is wrong with it, as the worker's load does for all at once.
    expect(() => config.networks[0]?.apiKey.read()).toThrow(
      /^networks\[0\]\.apiKeyFile: cannot read .*not-there\.txt \(no such file\)$/,
    );
    expect(() => config.networks[1]?.apiKey.read('network globex')).toThrow(
      /^network globex: apiKeyEnv: environment variable GLOBEX_API_KEY is not set or empty$/,
    );
    expect(() => loadConfig({ file, env: {}, readSecrets: true })).toThrow(
      /^networks\[0\]\.apiKeyFile: cannot read .* \(and 1 more problem\)$/,
    );
    // Written later, the file is read when the key is asked for.
    writeFileSync(path.join(dir, 'not-there.txt'), `${KEY}\n`);
    expect(config.networks[0]?.apiKey.read().reveal()).toBe(KEY);
  });

  it('names an unreadable key file and a missing or malformed config file', () => {
    writeFileSync(
      path.join(dir, 'b.yaml'),
      'networks:\n  - id: acme\n    baseUrl: https://x.example/v1\n    apiKeyFile: missing.txt\n    recipients: [a@b.example]\n',
    );
    expect(() =>
      loadConfig({ file: path.join(dir, 'b.yaml'), env: {}, readSecrets: true }),
    ).toThrow(/^networks\[0\]\.apiKeyFile: cannot read .*missing\.txt \(no such file\)$/);
    expect(() => loadConfig({ file: path.join(dir, 'nope.yaml'), env: {} })).toThrow(
      /nope\.yaml: not found/,
    );
    writeFileSync(path.join(dir, 'c.json'), '{ nope');
    expect(() => loadConfig({ file: path.join(dir, 'c.json'), env: {} })).toThrow(
      /c\.json: not valid JSON/,
    );
  });

  it.each([
    [
      'networks:\n  - id: acme\n   name: Acme\n',
      'Sequence item without - indicator at line 3, column 1: "   name: Acme"',
    ],
    [
      'networks:\n\t- id: acme\n',
      'Tabs are not allowed as indentation at line 2, column 1: "\\t- id: acme"',
    ],
    ['redis: { url: "redis://x\n', 'at line 2, column 1: (an empty line)'],
  ])('a YAML error ends with the line it points at, not a dangling colon: %j', (text, end) => {
    writeFileSync(path.join(dir, 'bad.yaml'), text);
    let message = '';
    try {
      loadConfig({ file: path.join(dir, 'bad.yaml'), env: {} });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/bad\.yaml: not valid YAML: /);
    expect(message.endsWith(end), message).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('finds the file from --config, then THM_CONFIG, then ./thm.yaml', () => {
    expect(resolveConfigPath({ file: 'x.yaml', env: { THM_CONFIG: 'y.yaml' }, cwd: '/w' })).toBe(
      '/w/x.yaml',
    );
    expect(resolveConfigPath({ env: { THM_CONFIG: 'y.yaml' }, cwd: '/w' })).toBe('/w/y.yaml');
    expect(resolveConfigPath({ env: {}, cwd: '/w' })).toBe('/w/thm.yaml');
  });

  it('never shows a secret when printed, serialised or inspected', () => {
    const config = parseConfig(
      {
        redis: { url: 'redis://user:redispass@h:1' },
        mail: { url: 'smtp://u:smtppass@h:25' },
        heartbeat: { url: 'https://hc.example/ping/hb-uuid-123' },
        monitoring: { port: 9464, dashboardAuth: 'ops:dashpass' },
        networks: [network()],
      },
      { env },
    );
    const shown = [
      JSON.stringify(config),
      inspect(config, { depth: 10 }),
      JSON.stringify(redactedConfig(config)),
      String(config.networks[0]?.apiKey),
    ].join('\n');
    for (const secret of [KEY, 'redispass', 'smtppass', 'hb-uuid-123', 'dashpass'])
      expect(shown).not.toContain(secret);
    expect(JSON.stringify(redactedConfig(config))).toContain('redis://user:redacted@h:1');
    expect(JSON.stringify(redactedConfig(config))).toContain('"dashboardAuth":"ops:[redacted]"');
  });
});

describe('channels', () => {
  const HOOK = 'https://hooks.example.com/in/hook-path-secret';
  const SLACK = 'https://hooks.slack.example/services/T0/B0/slack-path-secret';
  const SIGNING = 'whsec_signing_secret_42';
  const channelEnv = { ...env, HOOK_URL: HOOK, SLACK_URL: SLACK, HOOK_SECRET: SIGNING };

  it('resolves per-network channels, names them, keeps every URL and key a Secret', () => {
    const config = parseConfig(
      {
        networks: [
          network({
            recipients: [],
            channels: [
              { type: 'webhook', urlEnv: 'HOOK_URL', secretEnv: 'HOOK_SECRET' },
              { type: 'slack', urlEnv: 'SLACK_URL', kinds: ['alert', 'problem', 'restored'] },
              { type: 'webhook', url: 'https://plain.example/hook', secretEnv: 'HOOK_SECRET' },
            ],
          }),
        ],
      },
      { env: channelEnv },
    );
    const channels = config.networks[0]!.channels;
    expect(channels.map((c) => [c.type, c.name, c.kinds])).toEqual([
      ['webhook', 'webhook', undefined],
      ['slack', 'slack', ['alert', 'problem', 'restored']],
      ['webhook', 'webhook-2', undefined],
    ]);
    expect(channels[0]!.url!.read().reveal()).toBe(HOOK);
    expect(channels[0]!.secret!.read().reveal()).toBe(SIGNING);
    expect(channels[1]!.url!.read().reveal()).toBe(SLACK);
    const shown = [
      JSON.stringify(config),
      inspect(config, { depth: 10 }),
      JSON.stringify(redactedConfig(config)),
    ].join('\n');
    for (const secret of ['hook-path-secret', 'slack-path-secret', SIGNING])
      expect(shown).not.toContain(secret);
  });

  it('the top-level list is the default of networks without channels of their own', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-ch-'));
    writeFileSync(path.join(dir, 'slack-url'), `${SLACK}\n`);
    const config = parseConfig(
      {
        channels: [{ type: 'slack', urlFile: 'slack-url' }],
        networks: [network(), network({ id: 'globex', channels: [] })],
      },
      { env, source: path.join(dir, 'thm.yaml') },
    );
    expect(config.networks[0]!.channels.map((c) => c.name)).toEqual(['slack']);
    expect(config.networks[0]!.channels[0]!.url!.read().reveal()).toBe(SLACK);
    expect(config.networks[1]!.channels).toEqual([]);
  });

  it('a channel file is read when a delivery asks for it, not at load; the worker reads every one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-ch-'));
    const raw = {
      channels: [{ type: 'webhook', urlFile: 'hook-url', secretEnv: 'HOOK_SECRET' }],
      networks: [network()],
    };
    const source = path.join(dir, 'thm.yaml');
    const channel = parseConfig(raw, { env, source }).networks[0]!.channels[0]!;
    expect(() => channel.url!.read()).toThrow(
      /^channels\[0\]\.urlFile: cannot read .*hook-url \(no such file\)$/,
    );
    expect(() => channel.secret!.read()).toThrow(
      /^channels\[0\]\.secretEnv: environment variable HOOK_SECRET is not set or empty$/,
    );
    expect(() => parseConfig(raw, { env, source, readSecrets: true })).toThrow(
      /^channels\[0\]\.urlFile: cannot read .*hook-url \(no such file\) \(and 1 more problem\)$/,
    );
    writeFileSync(path.join(dir, 'hook-url'), `${HOOK}\n`);
    expect(channel.url!.read().reveal()).toBe(HOOK);
    writeFileSync(path.join(dir, 'hook-url'), 'http://hooks.example.com/in/hook-path-secret');
    expect(() => channel.url!.read()).toThrow(
      /^channels\[0\]\.urlFile: the URL must be https:\/\/ \(http is allowed only for loopback hosts\)$/,
    );
  });

  it('a channel without a URL writes files (no key needed); recipients may then be empty', () => {
    const config = parseConfig(
      { networks: [network({ recipients: undefined, channels: [{ type: 'webhook' }] })] },
      { env },
    );
    expect(config.networks[0]!.channels[0]).toEqual({ type: 'webhook', name: 'webhook' });
    const timed = parseConfig(
      { networks: [network({ channels: [{ type: 'webhook', timeoutMs: 5_000 }] })] },
      { env },
    );
    expect(timed.networks[0]!.channels[0]!.timeoutMs).toBe(5_000);
    expect(config.networks[0]!.recipients).toEqual([]);
  });

  const ch = (channels: unknown[]) => ({ networks: [network({ channels })] });
  it.each<[string, unknown, RegExp, NodeJS.ProcessEnv?]>([
    [
      'slack url in the config',
      ch([{ type: 'slack', url: SLACK }]),
      /^networks\[0\]\.channels\[0\]\.url: a Slack webhook URL is a secret: use urlEnv or urlFile$/,
    ],
    [
      'webhook URL without a signing key',
      ch([{ type: 'webhook', urlEnv: 'HOOK_URL' }]),
      /^networks\[0\]\.channels\[0\]\.secretEnv: set exactly one of secretEnv or secretFile/,
    ],
    [
      'two URL sources',
      ch([{ type: 'webhook', url: HOOK, urlEnv: 'HOOK_URL', secretEnv: 'HOOK_SECRET' }]),
      /^networks\[0\]\.channels\[0\]\.url: set at most one of url, urlEnv or urlFile$/,
    ],
    [
      'plain http to a public host',
      ch([{ type: 'webhook', url: 'http://hooks.example.com/x', secretEnv: 'HOOK_SECRET' }]),
      /^networks\[0\]\.channels\[0\]\.url: must be https:\/\//,
    ],
    [
      'plain http from the environment, without showing it',
      ch([{ type: 'slack', urlEnv: 'SLACK_URL' }]),
      /^networks\[0\]\.channels\[0\]\.urlEnv: the URL must be https:\/\/ \(http is allowed only for loopback hosts\)$/,
      { ...env, SLACK_URL: 'http://hooks.example.com/services/slack-path-secret' },
    ],
    [
      'unset URL variable',
      ch([{ type: 'slack', urlEnv: 'NOPE_URL' }]),
      /^networks\[0\]\.channels\[0\]\.urlEnv: environment variable NOPE_URL is not set or empty$/,
    ],
    [
      'unknown kind',
      ch([{ type: 'slack', urlEnv: 'SLACK_URL', kinds: ['alerts'] }]),
      /^networks\[0\]\.channels\[0\]\.kinds\[0\]: /,
    ],
    ['unknown type', ch([{ type: 'pagerduty' }]), /^networks\[0\]\.channels\[0\]\.type: /],
    [
      'duplicate names',
      ch([
        { type: 'slack', urlEnv: 'SLACK_URL' },
        { type: 'webhook', name: 'slack' },
      ]),
      /^networks\[0\]\.channels\[1\]\.name: duplicate channel name "slack"/,
    ],
    [
      "the e-mail's name",
      ch([{ type: 'webhook', name: 'email' }]),
      /^networks\[0\]\.channels\[0\]\.name: "email" names the e-mail: choose another$/,
    ],
    [
      'a deadline out of range',
      ch([{ type: 'slack', urlEnv: 'SLACK_URL', timeoutMs: 600_000 }]),
      /^networks\[0\]\.channels\[0\]\.timeoutMs: /,
    ],
    [
      'no recipients and no channel',
      { channels: [], networks: [network({ recipients: [], channels: [] })] },
      /^networks\[0\]\.recipients: at least one recipient is required \(or a channel\)$/,
    ],
  ])('%s', (_name, raw, expected, e) => {
    const message = errorOf(raw, e ?? channelEnv);
    expect(message).toMatch(expected);
    expect(message).not.toMatch(/path-secret|whsec/);
  });
});

describe('redis.sentinel and redis.cluster', () => {
  const sentinel = { name: 'mymaster', nodes: ['10.0.0.1:26379', '10.0.0.2:26379'] };

  it('reads a Sentinel set-up, its password from the environment, never shown', () => {
    const config = parseConfig(
      {
        redis: { sentinel: { ...sentinel, passwordEnv: 'SENTINEL_PW' } },
        networks: [network()],
      },
      { env: { ...env, SENTINEL_PW: 'sentinel-secret-9' } },
    );
    expect(config.redis.sentinel).toMatchObject(sentinel);
    expect(config.redis.sentinel?.password?.reveal()).toBe('sentinel-secret-9');
    expect(JSON.stringify(redactedConfig(config))).not.toContain('sentinel-secret-9');
    expect(inspect(config, { depth: 10 })).not.toContain('sentinel-secret-9');
    expect(
      errorOf({ redis: { sentinel: { ...sentinel, passwordEnv: 'NOPE' } }, networks: [network()] }),
    ).toBe('redis.sentinel.passwordEnv: environment variable NOPE is not set or empty');
  });

  it('takes REDIS_SENTINEL_NODES / REDIS_SENTINEL_NAME / REDIS_CLUSTER_NODES over the file', () => {
    const fromEnv = parseConfig(
      { redis: { sentinel }, networks: [network()] },
      { env: { ...env, REDIS_SENTINEL_NODES: 'a:1, b:2,c:3', REDIS_SENTINEL_NAME: 'other' } },
    );
    expect(fromEnv.redis.sentinel).toMatchObject({ name: 'other', nodes: ['a:1', 'b:2', 'c:3'] });
    const cluster = parseConfig(
      { redis: { prefix: '{thm}' }, networks: [network()] },
      { env: { ...env, REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000' } },
    );
    expect(cluster.redis.cluster?.nodes).toEqual(['10.0.0.1:7000', '10.0.0.2:7000']);
    expect(errorOf({ networks: [network()] }, { ...env, REDIS_SENTINEL_NODES: 'a:1' })).toBe(
      'redis.sentinel.name: is required',
    );
  });

  it.each([
    [
      { sentinel, cluster: { nodes: ['a:7000'] }, prefix: '{t}' },
      'redis.cluster: set either redis.sentinel or redis.cluster, not both',
    ],
    [
      { cluster: { nodes: ['a:7000'] } },
      'redis.prefix: a Redis Cluster needs a hash tag in the prefix, e.g. "{thm}", so that all keys share one slot',
    ],
    [
      { cluster: { nodes: ['a:7000'] }, prefix: 'x{}y' },
      'redis.prefix: a Redis Cluster needs a hash tag in the prefix, e.g. "{xy}", so that all keys share one slot',
    ],
    [
      { cluster: { nodes: ['a:7000'] }, prefix: '{t}', url: 'redis://h:1/2' },
      'redis.url: a Redis Cluster has only database 0: drop the /<db> from the URL',
    ],
    [{ cluster: { nodes: ['a'] }, prefix: '{t}' }, 'redis.cluster.nodes[0]: must be host:port'],
    [
      { cluster: { nodes: [] }, prefix: '{t}' },
      'redis.cluster.nodes: at least one Cluster node host:port',
    ],
    [
      { sentinel: { ...sentinel, nodes: ['a:99999'] } },
      'redis.sentinel.nodes[0]: port must be 1-65535',
    ],
    [{ sentinels: ['a:1'] }, 'redis: unknown option "sentinels" (did you mean "sentinel"?)'],
  ])('refuses %j', (redis, message) => {
    expect(errorOf({ redis, networks: [network()] })).toBe(message);
  });

  it('accepts a hash-tagged cluster prefix and IPv6 nodes', () => {
    const config = parseConfig(
      {
        redis: { prefix: 'a{thm}', cluster: { nodes: ['[::1]:7000', 'redis-0.redis:7000'] } },
        networks: [network()],
      },
      { env },
    );
    expect(config.redis.cluster?.nodes).toHaveLength(2);
  });
});
