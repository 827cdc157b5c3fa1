import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { describeMailTransport } from '../../src/notify/transport.js';

describe('where the worker says its e-mails go', () => {
  const mail = (url?: string) => ({
    from: 'Traffic Health <alerts@example.com>',
    outboxDir: './outbox',
    timeoutMs: 10_000,
    ...(url === undefined ? {} : { url: new Secret(url) }),
  });
  it.each([
    [undefined, 'outbox dir ./outbox'],
    ['smtp://127.0.0.1:1025', 'smtp://127.0.0.1:1025'],
    ['smtp://mail.example.com', 'smtp://mail.example.com:587'],
    ['smtps://user:s3cret@mail.example.com', 'smtps://mail.example.com:465'],
    ['smtp://user:s3cret@[::1]:2525', 'smtp://[::1]:2525'],
  ])('%s -> %s', (url, expected) => {
    expect(describeMailTransport(mail(url) as never)).toBe(expected);
  });
});
