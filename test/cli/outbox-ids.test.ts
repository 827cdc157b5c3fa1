import { describe, expect, it } from 'vitest';
import { resolveOutboxId, shortOutboxId } from '../../src/cli/outbox-ids.js';

const mail = '3f9a1c07d2b84e6a9c0d1e2f3a4b5c6d';
const slack = `${mail}-slack`;
const other = '3f9a1c07ffffffffffffffffffffffff';
const hook = 'aa11bb22cc33dd44ee55ff6600112233-ops-hook';

describe('outbox ids on the command line', () => {
  it.each([
    [mail, '3f9a1c07'],
    [slack, '3f9a1c07-slack'],
    [hook, 'aa11bb22-ops-hook'],
    ['junk-id', 'junk-id'],
  ])('%s is shown as %s', (id, short) => expect(shortOutboxId(id)).toBe(short));

  it.each([
    ['the short id of an e-mail', '3f9a1c07', [mail, hook], mail],
    ['the short id of a channel delivery', '3f9a1c07-slack', [mail, slack], slack],
    ['the whole id', mail, [mail, slack, other], mail],
    ['a longer beginning', '3f9a1c07d2', [mail, other], mail],
    ['a short id with its channel', 'aa11bb22-ops-hook', [hook], hook],
  ])('takes %s', (_, given, ids, expected) => expect(resolveOutboxId(given, ids)).toBe(expected));

  it.each([
    ['names none', 'deadbeef', [mail], 'no failed notification with id deadbeef'],
    ['is too short to be a beginning', '3f9a', [mail], 'no failed notification with id 3f9a'],
    [
      'names two',
      '3f9a1c07',
      [mail, other],
      `3f9a1c07 names 2 failed notifications (${mail}, ${other}): give more of the id`,
    ],
  ])('refuses an id that %s (exit 2)', (_, given, ids, message) => {
    expect(() => resolveOutboxId(given, ids)).toThrow(
      expect.objectContaining({ code: 'THM_USAGE', message }),
    );
  });
});
