import { describe, expect, it } from 'vitest';
import { describeOutcome } from '../../src/cli/commands/run.js';
import type { CheckOutcome } from '../../src/jobs/traffic-check.js';

/** What `thm run --wait` says of a finished run and of its e-mail. */
describe('describeOutcome', () => {
  const outcome: CheckOutcome = {
    networkId: 'acme',
    kind: 'traffic-check',
    asOf: '2026-11-21',
    status: 'done',
    outcome: 'ok',
    counts: { new: 2, worse: 0, reminder: 0, ongoing: 1, cleared: 0, silenced: 0 },
    pairsListed: 3,
    notifications: [{ id: 'n1', kind: 'alert', subject: 'Acme: 2 new' }],
    emailDecided: true,
    notificationIds: ['n1'],
    deliveries: [],
    deliveryIds: [],
  };
  const email = { id: 'n1', kind: 'alert', subject: 'Acme: 2 new' };

  it.each([
    [{ ...email, state: 'sent' as const }, 'e-mail sent: "Acme: 2 new"'],
    [
      { ...email, state: 'failed' as const, error: '550 5.1.1 no such user' },
      'e-mail refused by the mail server (550 5.1.1 no such user): "Acme: 2 new"',
    ],
    [
      { ...email, state: 'pending' as const, error: '451 try later' },
      'e-mail not sent yet (451 try later; retrying): "Acme: 2 new"',
    ],
    [{ ...email, state: 'pending' as const }, 'e-mail not sent yet (queued): "Acme: 2 new"'],
  ])('%o', (report, said) => {
    expect(describeOutcome(outcome, [report])).toBe(
      `ok; 2 new, 0 worse, 0 reminder, 1 ongoing, 0 cleared, 0 silenced; 3 pairs listed; ${said}`,
    );
  });

  it('an already-done date reports the e-mail of the run that stands', () => {
    const earlier = { ...outcome, status: 'already-done' as const, notifications: [] };
    expect(describeOutcome(earlier, [{ ...email, state: 'sent' }])).toMatch(
      /^already done for this date \(use --force to run again\); .*; earlier e-mail sent: "Acme: 2 new"$/,
    );
    expect(describeOutcome({ ...earlier, notificationIds: [] })).not.toMatch(/e-mail/);
  });

  it('without --wait the e-mail is only decided', () => {
    expect(describeOutcome(outcome)).toMatch(/; e-mail decided: "Acme: 2 new"$/);
    expect(describeOutcome({ ...outcome, notifications: [] })).toMatch(/; no e-mail$/);
  });
});
