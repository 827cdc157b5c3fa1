import { readFileSync } from 'node:fs';
import { workerNodeFlags } from '../bench/worker-process.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../src/config/load.js';

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
      }
    >;
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
    expect(worker?.volumes).toContain('./deploy/secrets:/run/secrets:ro');
  });

  it('ships a config that validates (with its key file absent it names the file)', () => {
    const raw = parse(readFileSync('deploy/thm.yaml', 'utf8')) as unknown;
    expect(() => parseConfig(raw, { env: {} })).toThrow(
      /^networks\[0\]\.apiKeyFile: cannot read \/run\/secrets\/acme_key$/,
    );
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const stages = dockerfile.match(/^FROM .+$/gm) ?? [];

  it('is multi-stage on a current Node LTS', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage).toMatch(/^FROM node:(22|24)[.\w-]*/);
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
