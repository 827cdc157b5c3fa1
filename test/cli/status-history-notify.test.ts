import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completed, type JobStack } from '../jobs/stack.js';
import { runThmAsync, type CliResult } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { startCliStack } from './cli-stack.js';

/** thm status, history, invoices and notify through the real binary, against state made by real runs. */
describe('thm status, history, invoices, notify (the real binary)', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  let thm: (...args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    ({ stack, env, thm } = await startCliStack());
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
        variation?: { dayToDayPercent: number; sharedPercent: number; days: number };
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
    // The demo's clicks vary as chance does: little learned variation, over the days checked.
    expect(acme?.variation?.days).toBeGreaterThanOrEqual(1);
    expect(acme?.variation?.dayToDayPercent).toBeLessThan(10);
    // Globex has no premium: nothing was listed, nothing learned.
    expect(doc.networks.find((n) => n.id === 'globex')?.variation).toBeUndefined();
    expect(Object.keys(doc.queues)).toEqual(['checks', 'mail', 'channels']);
    const text = await thm('status');
    expect(text.stdout).toMatch(/Acme Network \(acme\)/);
    expect(text.stdout).toMatch(/active pairs: +1 critical, 1 warning/);
    expect(text.stdout).toMatch(
      /variation: +clicks vary about \d+% from day to day \(\d+% shared by a domain's ISPs\), learned over \d+ days/,
    );
    expect(text.stdout).toMatch(/variation: +not learned yet/);
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

  it('--json failures are one JSON document: status --check with Redis down, an unknown option', async () => {
    const down = await runThmAsync(['status', '--check', '--json'], {
      env: { ...env, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(down.code).toBe(1);
    const doc = JSON.parse(down.stdout) as {
      ok: boolean;
      error: { code: string; message: string };
    };
    expect(doc).toMatchObject({ ok: false, error: { code: 'THM_REDIS' } });
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
    // The table shows the id's first 8 characters, and retry takes them.
    const short = decided?.id.slice(0, 8) ?? '';
    expect(status.stdout).toMatch(
      new RegExp(`\n  failed ${short} \\(acme, alert, email\\): .*550`),
    );
    const table = (await thm('notify', 'failed')).stdout.split('\n');
    expect(table[0]).toMatch(/^ID {8}NETWORK/);
    expect(table.find((line) => line.startsWith(`${short}  acme`))).toBeDefined();
    const retry = await thm('notify', 'retry', short);
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
