import { describe, expect, it } from 'vitest';
import { describeOutcome } from '../../src/cli/commands/run.js';
import { describeDrops } from '../../src/jobs/drop-summary.js';
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

  it('names the common drops before the pairs, and whether they were e-mailed', () => {
    const domainDrop = {
      ...outcome,
      counts: { new: 0, worse: 0, reminder: 0, ongoing: 2, cleared: 0, silenced: 0 },
      drops: [{ scope: 'domain' as const, domainId: 102, class: 'new' as const, dropPercent: 83 }],
      notifications: [{ id: 'n1', kind: 'alert' as const, subject: 'Acme: 1 domain down 83%' }],
    };
    expect(describeOutcome(domainDrop)).toBe(
      'ok; 1 domain down 83% (e-mailed); 0 new, 0 worse, 0 reminder, 2 ongoing, 0 cleared, 0 silenced; 3 pairs listed; e-mail decided: "Acme: 1 domain down 83%"',
    );
  });
});

describe('describeDrops', () => {
  const drop = (
    scope: 'domain' | 'network',
    cls: 'new' | 'worse' | 'ongoing' | 'silenced',
    p: number,
  ) => ({
    scope,
    domainId: scope === 'network' ? 0 : p,
    class: cls,
    dropPercent: p,
  });

  it.each([
    [[], true, []],
    [[drop('domain', 'new', 83)], true, ['1 domain down 83% (e-mailed)']],
    // No alert decided (no recipients, or a date already done): the class says what it is.
    [[drop('domain', 'new', 83)], false, ['1 domain down 83% (new)']],
    [[drop('network', 'worse', 35)], true, ['network down 35% (e-mailed)']],
    [
      [drop('network', 'new', 35), drop('domain', 'new', 40), drop('domain', 'worse', 83)],
      true,
      ['network down 35% (e-mailed)', '2 domains down 40-83% (e-mailed)'],
    ],
    [
      [drop('domain', 'ongoing', 88), drop('domain', 'silenced', 50)],
      true,
      ['1 domain down 88% (ongoing)', '1 domain down 50% (silenced)'],
    ],
  ])('%j, alert decided %s: %j', (drops, decided, said) => {
    expect(describeDrops(drops, decided)).toEqual(said);
  });
});
