import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completed, startJobStack, type JobStack } from '../jobs/stack.js';
import { runThmAsync } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';

/** The operator commands through the real binary, against state made by real runs. */
describe('thm status, history, invoices, silence (the real binary)', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  const thm = (...args: string[]) => runThmAsync(args, { env });

  beforeAll(async () => {
    stack = await startJobStack(['acme', 'globex']);
    await stack.startWorker();
    for (const day of ['2026-11-15', '2026-11-16']) {
      stack.sbx.sandbox.setDay(day);
      completed(await stack.run('invoice-snapshot', 'acme', day));
      completed(await stack.run('traffic-check', 'acme', day));
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-cli-'));
    const file = path.join(dir, 'thm.json');
    const c = stack.config;
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: stack.redis.url, prefix: c.redis.prefix },
        networks: ['acme', 'globex'].map((id) =>
          stack.sbx.rawNetwork(id, { name: id === 'acme' ? 'Acme Network' : 'Globex Partners' }),
        ),
      }),
    );
    env = { ...stack.sbx.env, THM_CONFIG: file };
  });
  afterAll(() => stack.close());

  it('status --json and text: premium, last runs, active pairs by severity, last invoice, queues', async () => {
    const r = await thm('status', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      networks: Array<{
        id: string;
        premium?: { hasPremium: boolean };
        activePairs: { warning: number; critical: number };
        lastRuns: { trafficCheck?: { asOf: string } };
        lastInvoice?: { status: string };
      }>;
      outbox: { pending: number };
      queues: Record<string, unknown>;
    };
    const acme = doc.networks.find((n) => n.id === 'acme');
    expect(acme?.premium?.hasPremium).toBe(true);
    expect(acme?.lastRuns.trafficCheck?.asOf).toBe('2026-11-16');
    expect((acme?.activePairs.warning ?? 0) + (acme?.activePairs.critical ?? 0)).toBe(2);
    expect(acme?.activePairs.critical).toBe(1);
    expect(acme?.lastInvoice?.status).toBe('unpaid');
    expect(Object.keys(doc.queues)).toEqual(['checks', 'mail']);
    const text = await thm('status');
    expect(text.stdout).toMatch(/Acme Network \(acme\)/);
    expect(text.stdout).toMatch(/active pairs: +1 critical, 1 warning/);
  });

  it('status --check exits 1 when a network has an open problem', async () => {
    stack.sbx.sandbox.injectFault({ network: 'globex', endpoint: 'access', status: 401, times: 5 });
    expect((await stack.run('traffic-check', 'globex', '2026-11-16')).state).toBe('failed');
    const r = await thm('status', '--check');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Globex Partners \(globex\) +\[(OVERDUE )?PROBLEM\]/);
    expect(r.stdout).toMatch(/NOT healthy/);
    stack.sbx.sandbox.clearFaults();
  });

  it('history shows the active pairs and the runs; --json is one document', async () => {
    const r = await thm('history', '--network', 'acme', '--days', '30');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Acme Network: 2 active declining pairs/);
    expect(r.stdout).toMatch(/Comcast/);
    expect(r.stdout).toMatch(/2026-11-16 +traffic-check +ok/);
    const json = JSON.parse((await thm('history', '--network', 'acme', '--json')).stdout) as {
      active: unknown[];
      runs: unknown[];
    };
    expect(json.active).toHaveLength(2);
    expect(json.runs.length).toBeGreaterThanOrEqual(4);
    const bad = await thm('history', '--network', 'acme', '--days', 'x');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('thm: --days: must be a whole number');
  });

  it('invoices lists snapshots newest first with their change', async () => {
    const r = JSON.parse((await thm('invoices', '--network', 'acme', '--json')).stdout) as {
      snapshots: Array<{ snapshot: { total_count: number }; change?: { total_count: number } }>;
    };
    expect(r.snapshots).toHaveLength(2);
    expect(r.snapshots[0]?.change).toBeDefined();
    expect(r.snapshots[1]?.change).toBeUndefined();
    const text = await thm('invoices', '--network', 'acme', '--limit', '1');
    expect(text.code).toBe(0);
    expect(text.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('silence add / list / remove, and a silenced pair is counted but never e-mailed', async () => {
    const add = await thm(
      'silence',
      'add',
      '--network',
      'acme',
      '--domain',
      '104',
      '--isp',
      'T-Mob*',
      '--for',
      '7d',
      '--reason',
      'carrier maintenance',
    );
    expect(add.code).toBe(0);
    const id = add.stdout.trim();
    expect(id).toMatch(/^[A-Za-z0-9_-]{4,}$/);
    const list = JSON.parse((await thm('silence', 'list', '--json')).stdout) as {
      silences: Array<{ id: string; isp: string; reason: string }>;
    };
    expect(list.silences).toEqual([
      expect.objectContaining({ id, domainId: 104, isp: 'T-Mob*', reason: 'carrier maintenance' }),
    ]);
    // 2026-11-19: T-Mobile on domain 104 starts declining: silenced, not e-mailed.
    for (const day of ['2026-11-17', '2026-11-18', '2026-11-19']) {
      stack.sbx.sandbox.setDay(day);
      const outcome = completed(await stack.run('traffic-check', 'acme', day));
      if (day === '2026-11-19') {
        expect(outcome.counts?.silenced).toBe(1);
        expect(outcome.counts?.new).toBe(0);
      }
    }
    const mail = await waitFor(() =>
      stack.smtp.messages.find((m) => m.parsed.subject?.includes('(2026-11-19)')),
    );
    expect(mail.parsed.text).toMatch(/cleared/i);
    expect(mail.parsed.text).not.toContain('t.acmepromo.com'); // domain 104, the silenced pair's
    expect((await thm('silence', 'remove', id)).code).toBe(0);
    const again = await thm('silence', 'remove', id);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(`thm: no silence with id ${id}`);
  });

  it('bad silence input: one line, exit 2, nothing written', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['--network', 'acme', '--for', '7d', '--reason', 'x'],
        /give --domain DOMAIN_ID, --isp PATTERN, or both/,
      ],
      [
        ['--network', 'acme', '--isp', 'X', '--for', 'soon', '--reason', 'x'],
        /--for: "soon" is not a duration/,
      ],
      [
        ['--network', 'acme', '--domain', 'abc', '--for', '1d', '--reason', 'x'],
        /--domain: must be a tracking domain id/,
      ],
      [
        ['--network', 'nope', '--isp', 'X', '--for', '1d', '--reason', 'x'],
        /--network: no network "nope"/,
      ],
      [['--network', 'acme', '--isp', 'X', '--for', '1d', '--reason', '  '], /--reason: required/],
    ];
    for (const [args, message] of cases) {
      const r = await thm('silence', 'add', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const list = JSON.parse((await thm('silence', 'list', '--json')).stdout) as {
      silences: unknown[];
    };
    expect(list.silences).toEqual([]);
  });

  it('silences like amtool: any case, author, a later window, absolute times, --expired, several removed', async () => {
    const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    // Lower case matches "Comcast" (case is ignored unless --case-sensitive).
    const any = await thm(
      'silence',
      'add',
      '--network',
      'acme',
      '--isp',
      'comcast',
      '--for',
      '2d',
      '--reason',
      'ticket 4411',
      '--author',
      'alice',
    );
    expect(any.code).toBe(0);
    expect(any.stderr).toBe('');
    const anyId = any.stdout.trim();
    const history = await thm('history', '--network', 'acme');
    expect(history.stdout).toMatch(new RegExp(`Comcast .*yes \\(${anyId}\\)`));
    const historyJson = JSON.parse(
      (await thm('history', '--network', 'acme', '--json')).stdout,
    ) as {
      active: Array<{ isp: string; silencedBy?: string }>;
      runs: Array<{ startedAt: string; finishedAt: string }>;
    };
    expect(historyJson.active.find((p) => p.isp === 'Comcast')?.silencedBy).toBe(anyId);
    expect(historyJson.runs[0]?.finishedAt).toMatch(ISO);

    const exact = await thm(
      'silence',
      'add',
      '--network',
      'acme',
      '--isp',
      'comcast',
      '--case-sensitive',
      '--for',
      '1d',
      '--reason',
      'r',
      '--json',
    );
    expect(exact.code).toBe(0);
    expect(exact.stderr).toMatch(
      /^warning: silence \w+ matches none of the \d+ declining pairs? in acme's recent history/,
    );
    const exactDoc = JSON.parse(exact.stdout) as {
      id: string;
      caseSensitive: boolean;
      expiresAt: string;
    };
    expect(exactDoc.caseSensitive).toBe(true);
    expect(exactDoc.expiresAt).toMatch(ISO);

    const start = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const end = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const later = await thm(
      'silence',
      'add',
      '--network',
      'acme',
      '--domain',
      '101',
      '--start',
      start,
      '--end',
      end,
      '--reason',
      'maintenance window',
    );
    expect(later.code).toBe(0);
    const laterId = later.stdout.trim();
    const list = await thm('silence', 'list');
    const row = list.stdout.split('\n').find((l) => l.startsWith(laterId)) ?? '';
    expect(row).toMatch(
      /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in 24h\) +\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in 4[78]h\)/,
    );
    expect(list.stdout).toMatch(new RegExp(`${anyId} .* alice +ticket 4411`));
    const listJson = JSON.parse((await thm('silence', 'list', '--json')).stdout) as {
      silences: Array<{
        id: string;
        createdAt: string;
        startsAt?: string;
        expiresAt: string;
        author: string;
      }>;
    };
    const laterDoc = listJson.silences.find((x) => x.id === laterId);
    expect(laterDoc?.startsAt).toBe(new Date(Date.parse(start)).toISOString());
    expect(laterDoc?.createdAt).toMatch(ISO);
    expect(laterDoc?.author).toBeTruthy();

    // A window that starts later does not silence yet.
    expect((await thm('history', '--network', 'acme')).stdout).not.toMatch(
      /yes \(/.source + laterId,
    );

    const badTimes = await thm(
      'silence',
      'add',
      '--network',
      'acme',
      '--isp',
      'X',
      '--start',
      'tomorrow',
      '--for',
      '1d',
      '--reason',
      'r',
    );
    expect(badTimes.code).toBe(2);
    expect(badTimes.stderr.trim()).toMatch(/^thm: --start: "tomorrow" is not an RFC 3339 time/);
    const both = await thm(
      'silence',
      'add',
      '--network',
      'acme',
      '--isp',
      'X',
      '--for',
      '1d',
      '--end',
      end,
      '--reason',
      'r',
    );
    expect(both.code).toBe(2);

    const store = stack.workers[0]?.runtime.store;
    const brief = await store?.addSilence(
      { networkId: 'acme', isp: 'Short', reason: 'brief', expiresAt: Date.now() + 200 },
      Date.now(),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const expired = await thm('silence', 'list', '--expired');
    expect(expired.stdout).toMatch(new RegExp(`${brief?.id} .*UTC \\(\\d+m ago\\)`));
    expect((await thm('silence', 'list')).stdout).not.toContain(brief?.id ?? '-');

    const removed = await thm('silence', 'remove', anyId, exactDoc.id, laterId, '--json');
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({
      ok: true,
      removed: [anyId, exactDoc.id, laterId],
    });
    const again = await thm('silence', 'remove', anyId, '--json');
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout)).toEqual({
      ok: false,
      error: { code: 'THM_USAGE', message: `no silence with id ${anyId}` },
    });
  }, 120_000);

  it('--json failures are one JSON document: status --check with Redis down, an unknown option', async () => {
    const down = await runThmAsync(['status', '--check', '--json'], {
      env: { ...env, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(down.code).toBe(1);
    const doc = JSON.parse(down.stdout) as {
      ok: boolean;
      error: { code: string; message: string };
    };
    expect(doc).toMatchObject({ ok: false, error: { code: 'THM_STORE' } });
    expect(doc.error.message).toMatch(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
    const usage = await thm('silence', 'list', '--json', '--bogus');
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({
      ok: false,
      error: { code: 'THM_USAGE', message: "unknown option '--bogus'" },
    });
  });

  it('invoices --json: the snapshot time in ISO 8601', async () => {
    const r = JSON.parse((await thm('invoices', '--network', 'acme', '--json')).stdout) as {
      snapshots: Array<{ snapshot: { time: string } }>;
    };
    expect(r.snapshots[0]?.snapshot.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('notify failed / retry: a refused e-mail is listed, retried once fixed, and delivered once', async () => {
    stack.smtp.faults.push({ type: 'reply', code: 550, message: 'Mailbox unavailable' });
    stack.sbx.sandbox.setDay('2026-11-21');
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-21'));
    const [decided] = outcome.notifications;
    expect(decided).toBeDefined();
    const failed = await waitFor(async () => {
      const doc = JSON.parse((await thm('notify', 'failed', '--json')).stdout) as {
        failed: Array<{ id: string; error: string }>;
      };
      return doc.failed.find((f) => f.id === decided?.id);
    });
    expect(failed.error).toMatch(/550/);
    const status = await thm('status', '--check');
    expect(status.code).toBe(1);
    const retry = await thm('notify', 'retry', decided?.id ?? '');
    expect(retry.code).toBe(0);
    const mail = await waitFor(() =>
      stack.smtp.messages.find((m) => m.parsed.subject === decided?.subject),
    );
    expect(mail.parsed.messageId).toMatch(new RegExp(`^<${decided?.id}@`));
    expect((await thm('notify', 'retry', decided?.id ?? '')).code).toBe(2);
    const after = JSON.parse((await thm('notify', 'failed', '--json')).stdout) as {
      failed: unknown[];
    };
    expect(after.failed).toEqual([]);
  });

  it('a Redis that does not answer: one line, exit 1', async () => {
    const r = await runThmAsync(['status'], { env: { ...env, REDIS_URL: 'redis://127.0.0.1:1' } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^thm: cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });
});
