import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/ports.js';
import { completed, startJobStack, type JobStack } from './stack.js';

/**
 * The loop through the real queue and worker: sandbox API over HTTP, Redis, SMTP.
 * The demo story (src/sandbox/builtin.ts) drives it day by day.
 */
describe('traffic-check through the queue', () => {
  let stack: JobStack;

  beforeAll(async () => {
    stack = await startJobStack();
    await stack.startWorker();
  });
  afterAll(() => stack.close());

  it('e-mails what changed, day by day, and nothing on a quiet day', async () => {
    const { sbx, smtp } = stack;
    sbx.sandbox.setDay('2026-11-15');
    const day1 = completed(await stack.run('traffic-check', 'acme', '2026-11-15'));
    expect(day1).toMatchObject({ status: 'done', outcome: 'ok', emailDecided: true });
    expect(day1.counts).toMatchObject({ new: 2, worse: 0, cleared: 0 });
    const [mail1] = await smtp.waitForMessages(1);
    expect(mail1?.parsed.subject).toBe('[Traffic Health] Acme Network: 2 new (2026-11-15)');
    expect(mail1?.envelope.to).toEqual(['ops@acme.example']);
    expect(mail1?.parsed.messageId).toMatch(/^<[0-9a-f]{16,}@thm\.test>$/);

    sbx.sandbox.setDay('2026-11-16');
    const day2 = completed(await stack.run('traffic-check', 'acme', '2026-11-16'));
    expect(day2.counts).toMatchObject({ new: 0, worse: 1, ongoing: 1 });
    await smtp.waitForMessages(2);
    expect(smtp.messages[1]?.parsed.subject).toBe(
      '[Traffic Health] Acme Network: 1 worse (2026-11-16)',
    );

    // 2026-11-18: everything declining was already reported: no e-mail.
    for (const day of ['2026-11-17', '2026-11-18']) {
      sbx.sandbox.setDay(day);
      completed(await stack.run('traffic-check', 'acme', day));
    }
    await smtp.waitForMessages(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.map((m) => m.parsed.subject)).toEqual([
      '[Traffic Health] Acme Network: 2 new (2026-11-15)',
      '[Traffic Health] Acme Network: 1 worse (2026-11-16)',
      // The blocked domain: one headline for the domain (monitor/common-drops.ts).
      expect.stringMatching(/^\[Traffic Health\] Acme Network: 1 domain down \d+% \(2026-11-17\)$/),
    ]);
    // One thread for the network's month: every e-mail refers to the same root.
    for (const mail of smtp.messages) {
      expect(mail.parsed.references).toBe('<thm-thread.acme.2026-11@thm.test>');
      expect(mail.parsed.headers.get('auto-submitted')).toBe('auto-generated');
    }
  });

  it('a second run for the same date is a no-op returning the first result; --force sends nothing already sent', async () => {
    const before = stack.smtp.messages.length;
    const again = completed(await stack.run('traffic-check', 'acme', '2026-11-18'));
    expect(again.status).toBe('already-done');
    const requests = stack.sbx.sandbox.requests();
    const forced = completed(
      await stack.run('traffic-check', 'acme', '2026-11-18', { force: true }),
    );
    expect(forced.status).toBe('done');
    expect(stack.sbx.sandbox.requests()).toBeGreaterThan(requests);
    await new Promise((r) => setTimeout(r, 300));
    expect(stack.smtp.messages.slice(before).map((m) => m.parsed.subject)).toEqual([]);
  });

  it('a network without premium: no isptrends call, one e-mail when premium is first seen missing, none after', async () => {
    stack.sbx.sandbox.setDay('2026-11-15');
    const first = completed(await stack.run('traffic-check', 'globex', '2026-11-15'));
    expect(first).toMatchObject({ outcome: 'premium-inactive', emailDecided: true });
    const second = completed(await stack.run('traffic-check', 'globex', '2026-11-16'));
    expect(second).toMatchObject({ outcome: 'premium-inactive', emailDecided: false });
    await waitFor(() =>
      stack.smtp.messages.find((m) => m.envelope.to.includes('ops@globex.example')),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(
      stack.smtp.messages.filter((m) => m.envelope.to.includes('ops@globex.example')),
    ).toHaveLength(1);
    // Premium regained: one e-mail saying so.
    stack.sbx.sandbox.setPremium('globex', true);
    const regained = completed(await stack.run('traffic-check', 'globex', '2026-11-17'));
    expect(regained.outcome).toBe('ok');
    expect(regained.notifications.map((n) => n.kind)).toContain('premium-regained');
    await waitFor(() =>
      stack.smtp.messages.find((m) => /premium active again/.test(m.parsed.subject ?? '')),
    );
  });

  it('503, 503, then success: retried, one e-mail', async () => {
    stack.sbx.sandbox.setDay('2026-11-19');
    stack.sbx.sandbox.injectFault({
      network: 'acme',
      endpoint: 'isptrends',
      status: 503,
      times: 2,
    });
    const before = stack.smtp.messages.length;
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-19'));
    expect(outcome.counts).toMatchObject({ new: 1, cleared: 1 });
    await stack.smtp.waitForMessages(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(stack.smtp.messages.slice(before).map((m) => m.parsed.subject)).toEqual([
      '[Traffic Health] Acme Network: 1 new, 1 cleared (2026-11-19)',
    ]);
  });

  it('401: fails at once with the API message, one problem e-mail per episode, then one "restored"', async () => {
    const { sbx, smtp } = stack;
    const forAcme = () => smtp.messages.filter((m) => m.envelope.to.includes('ops@acme.example'));
    const before = forAcme().length;
    sbx.sandbox.injectFault({
      network: 'acme',
      endpoint: 'access',
      status: 401,
      body: '{"error":"No Authentication Method Found"}',
      times: 10,
    });
    sbx.sandbox.setDay('2026-11-20');
    const failed = await stack.run('traffic-check', 'acme', '2026-11-20');
    expect(failed.state).toBe('failed');
    expect(failed.state === 'failed' && failed.error).toMatch(/No Authentication Method Found/);
    await waitFor(() => forAcme().length === before + 1 || undefined);
    expect(forAcme()[before]?.parsed.subject).toMatch(/monitoring problem/i);
    // Still failing: same episode, no second problem e-mail. Then the key works again.
    expect((await stack.run('traffic-check', 'acme', '2026-11-20')).state).toBe('failed');
    sbx.sandbox.clearFaults();
    const ok = completed(await stack.run('traffic-check', 'acme', '2026-11-20'));
    expect(ok.notifications.map((n) => n.kind).sort()).toEqual(
      ['alert', 'restored'].filter((k) => ok.notifications.some((n) => n.kind === k)).sort(),
    );
    expect(ok.notifications.map((n) => n.kind)).toContain('restored');
    await waitFor(() => forAcme().length >= before + 1 + ok.notifications.length || undefined);
    await new Promise((r) => setTimeout(r, 300));
    const subjects = forAcme()
      .slice(before)
      .map((m) => m.parsed.subject ?? '');
    expect(subjects.filter((s) => /monitoring problem/i.test(s))).toHaveLength(1);
    expect(subjects.filter((s) => /restored/i.test(s))).toHaveLength(1);
  });
});
