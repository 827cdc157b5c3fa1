import { describe, expect, it } from 'vitest';
import { renderInvoiceEmail } from '../../src/notify/render/invoice.js';
import { renderPremiumEmail } from '../../src/notify/render/premium.js';
import { renderProblemEmail, whatToCheck } from '../../src/notify/render/problem.js';
import { renderRestoredEmail } from '../../src/notify/render/restored.js';
import type { ProblemEpisode } from '../../src/monitor/types.js';
import type { ThmErrorCode } from '../../src/errors.js';

const network = { id: 'acme', name: 'Acme Network' };
const asOf = '2026-11-21';
const openedAt = Date.UTC(2026, 10, 21, 7, 0);
const problem = (code: ThmErrorCode, message: string): ProblemEpisode => ({
  kind: 'traffic-check',
  openedAt,
  code,
  message,
});

describe('renderProblemEmail', () => {
  it.each([
    ['THM_API_AUTH', 'No Authentication Method Found', /revoked/],
    ['THM_API_REALM', 'Out of realm', /another portal/],
    ['THM_API_PREMIUM_REQUIRED', 'premium required', /premium subscription may have lapsed/],
    ['THM_API_TRANSIENT', 'HTTP 503 after 3 attempts', /unreachable/],
    ['THM_API_INVALID_RESPONSE', 'entries[3].isp: expected string', /could not validate/],
    ['THM_INTERNAL', 'boom', /worker log/],
  ])('%s: the API message and what to check', (code, message, check) => {
    const email = renderProblemEmail({
      network,
      asOf,
      problem: problem(code as ThmErrorCode, message),
    });
    expect(email.subject).toBe(
      '[Traffic Health] Acme Network: monitoring problem, traffic-check failing (2026-11-21)',
    );
    expect(email.text).toContain(`  Message:    ${message}`);
    expect(email.text).toContain(`  Error code: ${code}`);
    expect(email.text).toMatch(check);
    expect(email.text).toContain('  thm status');
    expect(email.text).toContain('  Since:      2026-11-21 07:00 UTC');
    expect(email.html).toContain('thm status');
  });

  it('escapes the API message and keeps it to one line', () => {
    const email = renderProblemEmail({
      network: { id: 'acme', name: 'Acme\nBcc: x@evil.example' },
      asOf,
      problem: problem('THM_API_HTTP', '<img src=x onerror=alert(1)>\r\nInjected: yes'),
    });
    expect(email.html).not.toContain('<img');
    expect(email.html).toContain('&lt;img src=x onerror=alert(1)&gt; Injected: yes');
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.text).toContain('  Message:    <img src=x onerror=alert(1)> Injected: yes');
  });

  it('whatToCheck names the key settings for an auth failure', () => {
    expect(whatToCheck('THM_API_AUTH', 'acme').join(' ')).toContain(
      'apiKeyEnv / apiKeyFile of network acme',
    );
  });
});

describe('renderRestoredEmail', () => {
  it('says how long it was failing and what it was', () => {
    const email = renderRestoredEmail({
      network,
      asOf: '2026-11-22',
      problem: problem('THM_API_TRANSIENT', 'HTTP 503'),
      restoredAt: openedAt + 26 * 3_600_000 + 5 * 60_000,
    });
    expect(email.subject).toBe(
      '[Traffic Health] Acme Network: monitoring restored, traffic-check working again (2026-11-22)',
    );
    expect(email.text).toContain('It was failing for 26 h 5 min');
    expect(email.text).toContain('Was:           THM_API_TRANSIENT: HTTP 503');
  });
});

describe('renderPremiumEmail', () => {
  it.each([
    [
      true,
      '[Traffic Health] Acme Network: Traffic Health premium inactive (2026-11-21)',
      /no declining domains will be detected/,
    ],
    [
      false,
      '[Traffic Health] Acme Network: Traffic Health premium active again (2026-11-21)',
      /read again from this run on/,
    ],
  ])('lost=%s', (lost, subject, body) => {
    const email = renderPremiumEmail({ network, asOf, lost });
    expect(email.subject).toBe(subject);
    expect(email.text).toMatch(body);
    expect(email.html).toMatch(body);
  });

  it('a network without premium at its first check is not said to have lost it', () => {
    const email = renderPremiumEmail({ network, asOf, lost: true, firstSight: true });
    expect(email.text).toContain('does not have the Traffic Health premium tier');
    expect(email.text).not.toContain('no longer');
    expect(email.text).toMatch(/no declining domains will be detected/);
  });
});

describe('renderInvoiceEmail', () => {
  const snapshot = {
    time: 1_795_244_400,
    status: 'unpaid',
    total_count: 14,
    balance: 18_240.5,
    billed: 25_310,
    paid: 7_069.5,
  };

  it('with a change', () => {
    const email = renderInvoiceEmail({
      network,
      snapshot,
      change: { total_count: -1, balance: -250, billed: 0, paid: 250 },
    });
    expect(email.subject).toBe(
      '[Traffic Health] Acme Network: invoices unpaid: 14, balance 18,240.50 (2026-11-21)',
    );
    expect(email.text).toContain('  Invoices: 14 (-1 since the previous snapshot)');
    expect(email.text).toContain('  Balance: 18,240.50 (-250.00 since the previous snapshot)');
    expect(email.text).toContain('  Paid: 7,069.50 (+250.00 since the previous snapshot)');
  });

  it('the first snapshot: no change to show', () => {
    const email = renderInvoiceEmail({ network, snapshot, asOf: '2026-11-22' });
    expect(email.subject).toMatch(/\(2026-11-22\)$/);
    expect(email.text).toContain('No previous snapshot to compare with.');
    expect(email.text).not.toContain('since the previous snapshot');
  });

  it('escapes a hostile status', () => {
    const email = renderInvoiceEmail({
      network,
      snapshot: { ...snapshot, status: '<b>x</b>\r\nBcc: y' },
    });
    expect(email.html).not.toContain('<b>x</b>');
    expect(email.subject).not.toMatch(/[\r\n]/);
  });
});
