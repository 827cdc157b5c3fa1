import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completed, type JobStack } from '../jobs/stack.js';
import type { CliResult } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { startCliStack } from './cli-stack.js';

/** thm silence through the real binary, against state made by real runs. */
describe('thm silence (the real binary)', () => {
  let stack: JobStack;
  let thm: (...args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    ({ stack, thm } = await startCliStack());
  });
  afterAll(() => stack.close());

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
      // The line an alert e-mail suggests leaves --reason out: the command asks for it.
      [
        ['--network', 'acme', '--domain', '101', '--isp', 'Comcast', '--for', '7d'],
        /^thm: --reason: required: say why, e\.g\. --reason 'known filtering, ticket 4411' \(thm silence list shows it\)$/,
      ],
      // The placeholder older e-mails suggested is not a reason.
      [
        ['--network', 'acme', '--domain', '101', '--for', '7d', '--reason', '...'],
        /^thm: --reason: "\.\.\." is a placeholder; say why/,
      ],
    ];
    // Independent, so run side by side: each is a whole CLI start (see the describe's note).
    const results = await Promise.all(cases.map(([args]) => thm('silence', 'add', ...args)));
    cases.forEach(([args, message], i) => {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim()).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });
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
    const [history, historyJsonRun] = await Promise.all([
      thm('history', '--network', 'acme'),
      thm('history', '--network', 'acme', '--json'),
    ]);
    expect(history.stdout).toMatch(new RegExp(`Comcast .*yes \\(${anyId}\\)`));
    const historyJson = JSON.parse(historyJsonRun.stdout) as {
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
    const [list, listJsonRun] = await Promise.all([
      thm('silence', 'list'),
      thm('silence', 'list', '--json'),
    ]);
    const row = list.stdout.split('\n').find((l) => l.startsWith(laterId)) ?? '';
    expect(row).toMatch(
      /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in 24h\) +\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in 4[78]h\)/,
    );
    expect(list.stdout).toMatch(new RegExp(`${anyId} .* alice +ticket 4411`));
    const listJson = JSON.parse(listJsonRun.stdout) as {
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

    // A window that starts later does not silence yet; two refused windows (independent, so
    // side by side).
    const [historyNow, badTimes, both] = await Promise.all([
      thm('history', '--network', 'acme'),
      thm(
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
      ),
      thm(
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
      ),
    ]);
    expect(historyNow.stdout).not.toMatch(/yes \(/.source + laterId);
    expect(badTimes.code).toBe(2);
    expect(badTimes.stderr.trim()).toMatch(/^thm: --start: "tomorrow" is not an RFC 3339 time/);
    expect(both.code).toBe(2);

    const store = stack.workers[0]?.runtime.store;
    const brief = await store?.addSilence(
      { networkId: 'acme', isp: 'Short', reason: 'brief', expiresAt: Date.now() + 200 },
      Date.now(),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [expired, current] = await Promise.all([
      thm('silence', 'list', '--expired'),
      thm('silence', 'list'),
    ]);
    expect(expired.stdout).toMatch(new RegExp(`${brief?.id} .*UTC \\(\\d+m ago\\)`));
    expect(current.stdout).not.toContain(brief?.id ?? '-');

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
    // Twelve CLI starts, most in sequence (each depends on the one before): on a loaded shared
    // machine each start can take seconds, and 30 s is not enough for all of them.
  }, 120_000);
});
