import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runThmAsync } from './harness/cli.js';
import { startRedis, type TestRedis } from './harness/redis.js';

/** `npm run demo` end to end, as on a fresh machine: the real binary, its own Redis prefix. */
describe('thm demo', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.shutdown());

  it('runs the eight-day story through the real worker, writes the e-mails, leaves no keys', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'thm-demo-'));
    const r = await runThmAsync(['demo'], {
      cwd,
      env: { REDIS_URL: redis.url },
      timeoutMs: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('2026-11-14');
    expect(lines).toContain('2026-11-21');
    expect(r.stdout).toContain('e-mail: [Traffic Health] Acme Network: 2 new (2026-11-15)');
    expect(r.stdout).toContain('e-mail: [Traffic Health] Acme Network: 1 worse (2026-11-16)');
    // The blocked domain: one headline for the domain, no card per ISP (monitor/common-drops.ts).
    expect(r.stdout).toMatch(
      /e-mail: \[Traffic Health\] Acme Network: 1 domain down \d+% \(2026-11-17\)/,
    );
    expect(r.stdout).toMatch(/Globex Partners +premium-inactive/);
    expect(r.stdout).toMatch(/6 e-mails in /);

    const outbox = path.join(cwd, 'outbox');
    const emls = readdirSync(outbox)
      .filter((f) => f.endsWith('.eml'))
      .sort();
    expect(emls).toHaveLength(6);
    expect(readdirSync(outbox).filter((f) => f.endsWith('.html'))).toHaveLength(6);
    // Beside each e-mail, what its webhook and Slack posts would be (no URL set).
    expect(r.stdout).toMatch(/12 channel messages in .*: what would be posted to a webhook/);
    const posts = readdirSync(outbox).filter((f) => f.endsWith('.json'));
    expect(posts.sort()).toEqual(
      emls.flatMap((f) => [
        f.replace(/\.eml$/, '-slack.json'),
        f.replace(/\.eml$/, '-webhook.json'),
      ]),
    );
    const hook = JSON.parse(
      readFileSync(
        path.join(
          outbox,
          emls
            .find((f) => f.startsWith('2026-11-17-acme-alert'))!
            .replace(/\.eml$/, '-webhook.json'),
        ),
        'utf8',
      ),
    ) as {
      version: number;
      kind: string;
      counts: { new: number };
      drops: unknown[];
      pairs: unknown[];
    };
    expect(hook).toMatchObject({
      version: 1,
      kind: 'alert',
      counts: { new: 0 },
      drops: [{ scope: 'domain', domainId: 102, class: 'new' }],
    });
    expect(hook.pairs).toHaveLength(0);
    const blocked = await simpleParser(
      readFileSync(
        path.join(
          outbox,
          emls.find((f) => f.startsWith('2026-11-17-acme-alert'))!,
        ),
      ),
    );
    expect(blocked.subject).toMatch(
      /^\[Traffic Health\] Acme Network: 1 domain down \d+% \(2026-11-17\)$/,
    );
    expect(blocked.text).toMatch(
      /https:\/\/go\.acmeclicks\.net is down about \d+% against the same weekday a week ago, on \d+ of the \d+ ISPs it has shown, together/,
    );
    expect(blocked.html).toBeTruthy();
    // The drop's own silence line, under a heading that is never empty.
    expect(blocked.text).toContain(
      'SILENCING\nSilence the drop of https://go.acmeclicks.net (the whole domain):\n  thm silence add --network acme --domain 102 --for 7d\n',
    );
    // The day's summary names the drop, not only the pairs by class.
    expect(r.stdout).toMatch(/Acme Network +1 domain down \d+% \(e-mailed\), 2 ongoing\n/);

    // Its own prefix, removed at the end: nothing left in this Redis.
    expect(await redis.client().dbsize()).toBe(0);
  });

  it('--keep leaves the keys and a config, and the printed commands explore them', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'thm-demo-keep-'));
    const env = { REDIS_URL: redis.url };
    const r = await runThmAsync(['demo', '--keep'], { cwd, env, timeoutMs: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /demo keys \(thm-demo-\w+:\*\) kept, config in .*thm-demo\/thm\.yaml\. Explore:/,
    );
    const status = r.stdout.split('\n').find((l) => l.trim().endsWith(' status'));
    expect(status?.trim()).toBe('npx thm --config thm-demo/thm.yaml status');
    expect(await redis.client().dbsize()).toBeGreaterThan(0);
    const config = ['--config', path.join(cwd, 'thm-demo/thm.yaml')];
    const doc = JSON.parse(
      (await runThmAsync([...config, 'status', '--json'], { cwd, env })).stdout,
    ) as {
      networks: Array<{ id: string; lastRuns: { trafficCheck?: { asOf: string } } }>;
    };
    expect(doc.networks.find((n) => n.id === 'acme')?.lastRuns.trafficCheck?.asOf).toBe(
      '2026-11-21',
    );
    const history = await runThmAsync([...config, 'history', '--network', 'acme'], { cwd, env });
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/Acme Network: \d+ active declining pairs?/);
    await redis.client().flushdb();
  }, 120_000);

  it('a REDIS_URL that does not answer: one clear line, exit 1, nothing else', async () => {
    const r = await runThmAsync(['demo'], {
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
      timeoutMs: 30_000,
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('thm: REDIS_URL redis://127.0.0.1:1 does not answer');
  });
});
