import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildNotification,
  messageIdDomain,
  notificationId,
} from '../../src/notify/notification.js';

const email = { subject: 'S', text: 'T', html: '<p>H</p>' };
const base = {
  networkId: 'acme',
  kind: 'alert' as const,
  asOf: '2026-11-21',
  to: ['ops@acme.example'],
  email,
  events: ['new|101|Comcast', 'worse|102|AT&T'],
  from: 'Traffic Health <alerts@example.com>',
  now: 1_000,
};

describe('buildNotification', () => {
  it('same identity, same id and Message-ID; time and content are not identity', () => {
    const a = buildNotification(base);
    const b = buildNotification({
      ...base,
      now: 9_999,
      email: { ...email, text: 'other' },
      events: [...base.events].reverse(),
    });
    expect(a.id).toMatch(/^[0-9a-f]{32}$/);
    expect(b.id).toBe(a.id);
    expect(b.messageId).toBe(a.messageId);
    expect(a.messageId).toBe(`<${a.id}@example.com>`);
    expect(a.createdAt).toBe(1_000);
  });

  it.each([
    ['networkId', { networkId: 'other' }],
    ['asOf', { asOf: '2026-11-22' }],
    ['kind', { kind: 'problem' as const }],
    ['events', { events: ['new|101|Comcast'] }],
  ])('a different %s is a different notification', (_field, change) => {
    expect(buildNotification({ ...base, ...change }).id).not.toBe(buildNotification(base).id);
  });

  it('separators inside event strings cannot make identities collide', () => {
    const a = buildNotification({ ...base, events: ['a', 'b'] });
    const b = buildNotification({ ...base, events: ['a","b'] });
    expect(a.id).not.toBe(b.id);
  });

  it('the subject header is one line whatever the renderer gave', () => {
    const n = buildNotification({
      ...base,
      email: { ...email, subject: 'x\r\nBcc: y@evil.example' },
    });
    expect(n.subject).toBe('x Bcc: y@evil.example');
  });
});

describe('notificationId', () => {
  it('is the hash of the identity as one JSON document, however many events it is fed in', () => {
    // Ids already in outboxes must not change: the pieces hashed are that document's bytes.
    const asOne = (events: string[]) =>
      createHash('sha256')
        .update(JSON.stringify(['acme', '2026-11-21', 'alert', [...events].sort()]))
        .digest('hex')
        .slice(0, 32);
    const odd = ['new|1|"quoted"\\', 'new|2|Ünïcödé 🙂', 'new|3|\u2028\ud800 lone', 'new|4|a,b]['];
    const many = Array.from(
      { length: 20_000 },
      (_, i) => `new|${i % 97}|ISP ${i} ${'x'.repeat(i % 13)}`,
    );
    for (const events of [[], ['new|1|A'], odd, [...many, ...odd]]) {
      expect(notificationId('acme', '2026-11-21', 'alert', events)).toBe(asOne(events));
    }
  });
});

describe('messageIdDomain', () => {
  it.each([
    ['Traffic Health <alerts@example.com>', 'example.com'],
    ['alerts@Mail.Example.ORG', 'mail.example.org'],
    ['no address at all', 'traffic-health.invalid'],
    ['x <a@bad domain>', 'traffic-health.invalid'],
  ])('%s -> %s', (from, domain) => {
    expect(messageIdDomain(from)).toBe(domain);
  });
});
