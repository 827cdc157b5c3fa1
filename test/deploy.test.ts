import { readFileSync } from 'node:fs';
import { workerNodeFlags } from '../bench/worker-process.js';
import { describe, expect, it } from 'vitest';
import { parse, type ScalarTag } from 'yaml';
import { parseConfig } from '../src/config/load.js';
import { longestStopMs } from '../src/jobs/shutdown.js';

/** No Docker engine runs here: keep the deployment files valid by checking their essentials. */
describe('docker-compose.yml', () => {
  const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
    services: Record<
      string,
      {
        command?: string[];
        environment?: Record<string, string>;
        volumes?: string[];
        build?: string;
        image?: string;
        ports?: string[];
        expose?: string[];
        secrets?: string[];
        stop_grace_period?: string;
      }
    >;
    secrets?: Record<string, { file?: string }>;
  };
  const deployConfig = parse(readFileSync('deploy/thm.yaml', 'utf8')) as {
    monitoring?: { port?: number; host?: string };
    networks: Array<{ apiKeyFile?: string }>;
  };

  it('runs Redis with AOF persistence and noeviction', () => {
    const command = compose.services.redis?.command?.join(' ') ?? '';
    expect(command).toMatch(/--appendonly yes/);
    expect(command).toMatch(/--maxmemory-policy noeviction/);
    expect(compose.services.redis?.volumes?.some((v) => v.endsWith(':/data'))).toBe(true);
  });

  it('has a mail catcher with a web UI', () => {
    expect(compose.services.mail?.image).toMatch(/mailpit|mailhog|mailcatcher/);
    expect(compose.services.mail?.ports?.length).toBeGreaterThan(0);
  });

  it('runs the worker with config and secrets mounted read-only, not baked', () => {
    const worker = compose.services.worker;
    expect(worker?.build).toBe('.');
    expect(worker?.command).toEqual(['worker']);
    expect(worker?.environment).toMatchObject({
      REDIS_URL: 'redis://redis:6379',
      SMTP_URL: 'smtp://mail:1025',
      THM_CONFIG: '/etc/thm/thm.yaml',
    });
    expect(worker?.volumes).toContain('./deploy/thm.yaml:/etc/thm/thm.yaml:ro');
  });

  it('gives every key file of the config as a compose secret (a missing file stops `up`)', () => {
    const worker = compose.services.worker;
    for (const network of deployConfig.networks) {
      const name = network.apiKeyFile?.replace(/^\/run\/secrets\//, '') ?? '';
      expect(worker?.secrets).toContain(name);
      expect(compose.secrets?.[name]?.file).toBe(`./deploy/secrets/${name}`);
    }
  });

  it('monitoring on 0.0.0.0 inside the container, on the compose network only', () => {
    expect(deployConfig.monitoring).toEqual({ port: 9464, host: '0.0.0.0' });
    const worker = compose.services.worker;
    expect(worker?.expose).toEqual(['9464']);
    expect(worker?.ports).toBeUndefined();
  });

  it('waits longer than the worst case of one job before killing the worker', () => {
    const config = parseConfig(
      {
        networks: [
          { id: 'a', baseUrl: 'https://a.example/v1', apiKeyEnv: 'K', recipients: ['o@a.example'] },
        ],
      },
      { env: { K: 'k' } },
    );
    const seconds = Number(/^(\d+)s$/.exec(compose.services.worker?.stop_grace_period ?? '')?.[1]);
    expect(seconds * 1000).toBeGreaterThanOrEqual(longestStopMs(config));
    expect(longestStopMs(config)).toBe(160_000);
  });

  it('ships a config that validates (with its key file absent it names the file)', () => {
    const raw = parse(readFileSync('deploy/thm.yaml', 'utf8')) as unknown;
    expect(parseConfig(raw, { env: {} }).networks).toHaveLength(1);
    expect(() => parseConfig(raw, { env: {}, readSecrets: true })).toThrow(
      /^networks\[0\]\.apiKeyFile: cannot read \/run\/secrets\/acme_key \(no such file: list the secret under the service's `secrets:` and create its file, e\.g\. \.\/deploy\/secrets\/acme_key with docker-compose\.yml\)$/,
    );
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const stages = dockerfile.match(/^FROM .+$/gm) ?? [];

  it('is multi-stage on the newest Node major that package.json engines supports', () => {
    const engines = (
      JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }
    ).engines.node;
    const majors = [...engines.matchAll(/\^(\d+)\./g)].map((m) => Number(m[1]));
    expect(majors).toEqual([22, 24]);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      expect(stage).toMatch(new RegExp(`^FROM node:${Math.max(...majors)}[.\\w-]*`));
    }
  });

  it('checks its health against /-/ready on the port deploy/thm.yaml sets', () => {
    const check = /^HEALTHCHECK .*\\\n\s+CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    const command = JSON.parse(check ?? '[]') as string[];
    expect(command[0]).toBe('node');
    expect(command.join(' ')).toContain('http://127.0.0.1:9464/-/ready');
  });

  it('runs as a non-root user, the worker by default, with no secrets baked in', () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/npm ci --omit=dev/);
    expect(runtime).toMatch(/CMD \["worker"\]/);
    expect(dockerfile).not.toMatch(/COPY .*secrets/);
    expect(readFileSync('.dockerignore', 'utf8')).toMatch(/deploy\/secrets/);
  });

  it('runs node with the V8 flags of bin/thm.js, the ones the benchmark measured', () => {
    const flags = workerNodeFlags();
    expect(flags).toContain('--max-semi-space-size=32');
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(entrypoint ?? '[]')).toEqual(['node', ...flags, 'bin/thm.js']);
    const bench = (
      JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { bench: string } }
    ).scripts.bench;
    for (const flag of flags) expect(bench).toContain(flag);
  });
});

describe('deploy/compose.smtp-relay.yml', () => {
  // Compose's merge tag: `!reset` removes what the base file set.
  const RESET = Symbol('!reset');
  const resetTag: ScalarTag = { tag: '!reset', resolve: () => RESET };
  const relay = parse(readFileSync('deploy/compose.smtp-relay.yml', 'utf8'), {
    customTags: [resetTag],
  }) as {
    services: Record<
      string,
      {
        profiles?: string[];
        env_file?: string;
        environment?: Record<string, unknown>;
        depends_on?: Record<string, unknown>;
      }
    >;
  };

  it('takes SMTP_URL from a file kept out of git and the image, not from the catcher', () => {
    const worker = relay.services.worker;
    expect(worker?.env_file).toMatch(/^\.\/deploy\/secrets\/[\w.-]+$/);
    expect(readFileSync('deploy/secrets/.gitignore', 'utf8').split('\n')[0]).toBe('*');
    expect(worker?.environment?.SMTP_URL).toBe(RESET);
  });

  it('leaves the mail catcher out, and the worker no longer waits for it', () => {
    expect(relay.services.mail?.profiles?.length).toBeGreaterThan(0);
    expect(relay.services.worker?.depends_on).toEqual({ mail: RESET });
    const base = parse(readFileSync('docker-compose.yml', 'utf8')) as {
      services: Record<string, { depends_on?: Record<string, unknown> }>;
    };
    expect(Object.keys(base.services.worker?.depends_on ?? {})).toEqual(['redis', 'mail']);
  });
});

describe('deploy/systemd/thm.service', () => {
  /** The unit's settings by section, each with every value it is given, in order. */
  const unit = new Map<string, Map<string, string[]>>();
  let section = '';
  for (const raw of readFileSync('deploy/systemd/thm.service', 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      unit.set(section, new Map());
      continue;
    }
    const at = line.indexOf('=');
    const settings = unit.get(section)!;
    const key = line.slice(0, at);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(at + 1)]);
  }
  const service = unit.get('Service')!;
  const one = (key: string): string | undefined => service.get(key)?.at(-1);
  const config = parse(readFileSync('deploy/systemd/thm.yaml', 'utf8')) as {
    networks: Array<{ apiKeyFile?: string }>;
  };

  it('runs `thm worker` from the application as a system user, with the config path', () => {
    expect(one('ExecStart')).toMatch(/^\/\S+\/bin\/thm\.js worker$/);
    expect(one('User')).toBeDefined();
    expect(one('User')).not.toBe('root');
    expect(service.get('Environment')).toContain('THM_CONFIG=/etc/thm/thm.yaml');
    expect(one('EnvironmentFile')).toBe('-/etc/thm/thm.env');
  });

  it('restarts on failure, stops with SIGTERM after the worst case of one job, reloads with HUP', () => {
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(one('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    const config = parseConfig(
      {
        networks: [
          { id: 'a', baseUrl: 'https://a.example/v1', apiKeyEnv: 'K', recipients: ['o@a.example'] },
        ],
      },
      { env: { K: 'k' } },
    );
    expect(Number(one('TimeoutStopSec')) * 1000).toBeGreaterThanOrEqual(longestStopMs(config));
  });

  it('hands every key file of its config over with LoadCredential=', () => {
    const credentials = new Map(
      (service.get('LoadCredential') ?? []).map((value) => {
        const [name, file] = value.split(':');
        return [name!, file!];
      }),
    );
    expect(config.networks.length).toBeGreaterThan(0);
    for (const network of config.networks) {
      const name = /^\/run\/credentials\/thm\.service\/([\w.-]+)$/.exec(
        network.apiKeyFile ?? '',
      )?.[1];
      expect(name, network.apiKeyFile).toBeDefined();
      expect(credentials.get(name!)).toBe(`/etc/thm/keys/${name}`);
    }
  });

  it('shows a channel whose URL file is handed over the same way, once uncommented', () => {
    const uncommented = readFileSync('deploy/systemd/thm.yaml', 'utf8').replace(
      /^(\s*)# (channels:| {2}-| {4})/gm,
      '$1$2',
    );
    const withChannel = parse(uncommented) as {
      networks: Array<{ channels?: Array<{ type: string; urlFile?: string }> }>;
    };
    const channel = withChannel.networks[0]?.channels?.[0];
    expect(channel?.type).toBe('slack');
    const env = { REDIS_URL: 'redis://127.0.0.1:6379' };
    expect(parseConfig(withChannel, { env }).networks[0]?.channels).toHaveLength(1);
    const name = /^\/run\/credentials\/thm\.service\/([\w.-]+)$/.exec(channel?.urlFile ?? '')?.[1];
    const commentedCredentials = readFileSync('deploy/systemd/thm.service', 'utf8')
      .split('\n')
      .map((line) => /^#LoadCredential=([\w.-]+):(\S+)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1], match[2]]);
    expect(commentedCredentials).toContainEqual([name, `/etc/thm/keys/${name}`]);
  });

  it('ships a config that validates (with its credential absent it names the file)', () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379' };
    expect(parseConfig(config, { env }).networks).toHaveLength(1);
    expect(() => parseConfig(config, { env, readSecrets: true })).toThrow(
      /^networks\[0\]\.apiKeyFile: cannot read \/run\/credentials\/thm\.service\/acme_key \(no such file: systemd's thm\.service hands it over while it runs, with LoadCredential=acme_key:<key file> in the unit\)$/,
    );
  });

  it('works in a writable state directory under a read-only system', () => {
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('WorkingDirectory')).toBe(`/var/lib/${one('StateDirectory')}`);
    // V8 compiles into executable memory: this setting would stop node.
    expect(one('MemoryDenyWriteExecute')).toBeUndefined();
  });

  it('sets in its environment file only variables the monitor reads', () => {
    const names = readFileSync('deploy/systemd/thm.env', 'utf8')
      .split('\n')
      .map((line) => /^#?\s*([A-Z_]+)=/.exec(line)?.[1])
      .filter((name) => name !== undefined);
    expect(names.length).toBeGreaterThan(0);
    const known = [
      'REDIS_URL',
      'REDIS_SENTINEL_NODES',
      'REDIS_SENTINEL_NAME',
      'REDIS_CLUSTER_NODES',
      'SMTP_URL',
      'LOG_LEVEL',
    ];
    for (const name of names) expect(known).toContain(name);
  });
});
