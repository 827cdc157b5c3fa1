import { readFileSync } from 'node:fs';
import { workerNodeFlags } from '../bench/worker-process.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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
    expect(() => parseConfig(raw, { env: {} })).toThrow(
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
