import { describe, expect, it } from 'vitest';
import { Secret } from '../../../src/config/secret.js';
import type { ClassifiedPair, PairClass } from '../../../src/monitor/types.js';
import { buildChannelDeliveries } from '../../../src/notify/channels/deliveries.js';
import type { NotificationEvent } from '../../../src/notify/channels/event.js';
import { signBody, verifySignature } from '../../../src/notify/channels/signature.js';
import {
  escapeSlack,
  MAX_SLACK_PAIRS,
  renderSlackMessage,
  type SlackMessage,
} from '../../../src/notify/channels/slack-message.js';
import type { ChannelTarget } from '../../../src/notify/channels/target.js';
import {
  MAX_WEBHOOK_PAIRS,
  renderWebhookPayload,
  type WebhookPayload,
} from '../../../src/notify/channels/webhook-payload.js';
import { buildNotification } from '../../../src/notify/notification.js';
import { classificationOf, examplePair } from '../example-alert.js';
import type { Notification } from '../../../src/notify/types.js';

const ASOF = '2026-11-21';
const NETWORK = { id: 'acme', name: 'Acme Network' };

function pair(
  domainId: number,
  isp: string,
  cls: PairClass,
  clicks: [number, number, number, number] = [100, 500, 480, 470],
  extra: Partial<Parameters<typeof examplePair>[0]> = {},
): ClassifiedPair {
  return examplePair({
    domainId,
    domainUrl: `https://d${domainId}.example.com`,
    isp,
    class: cls,
    firstSeen: '2026-11-19',
    clicks,
    ...extra,
  });
}

function notificationOf(kind: Notification['kind'] = 'alert'): Notification {
  return buildNotification({
    networkId: 'acme',
    kind,
    asOf: ASOF,
    to: ['ops@acme.example'],
    email: { subject: `[Traffic Health] Acme Network: ${kind}`, text: 't', html: 'h' },
    events: ['new|1|Comcast'],
    from: 'Traffic Health <alerts@thm.example>',
    now: Date.UTC(2026, 10, 21, 7, 0, 3),
  });
}

function alertEvent(pairs: ClassifiedPair[], headline: number[] = []): NotificationEvent {
  return {
    kind: 'alert',
    classification: classificationOf(ASOF, pairs, headline),
    notifyCleared: true,
  };
}

function webhook(event: NotificationEvent, n = notificationOf(event.kind)): WebhookPayload {
  return renderWebhookPayload({ notification: n, network: NETWORK, event });
}

function slack(event: NotificationEvent, n = notificationOf(event.kind)): SlackMessage {
  return renderSlackMessage({ notification: n, network: NETWORK, event });
}

function slackText(message: SlackMessage): string {
  return message.blocks
    .map((b) =>
      b.type === 'section' || b.type === 'header'
        ? b.text.text
        : b.type === 'context'
          ? b.elements.map((e) => e.text).join(' ')
          : '',
    )
    .join('\n');
}

describe('webhook payload, version 1', () => {
  it('carries the identity, the counts and every pair with its figures, worst domain first', () => {
    const n = notificationOf();
    const payload = webhook(
      alertEvent([
        pair(2, 'Small ISP', 'new', [90, 120, 118, 121]),
        pair(1, 'Comcast', 'worse', [100, 900, 880, 870]),
        pair(1, 'Charter', 'new', [300, 800, 790, 780]),
        pair(3, 'Gone ISP', 'cleared', [0, 0, 0, 0], { mayStillBeDepressed: true }),
      ]),
      n,
    );
    expect(payload).toMatchObject({
      version: 1,
      notificationId: n.id,
      messageId: n.messageId,
      kind: 'alert',
      network: NETWORK,
      asOf: ASOF,
      createdAt: '2026-11-21T07:00:03.000Z',
      title: n.subject,
      counts: { new: 2, worse: 1, reminder: 0, ongoing: 0, cleared: 1, silenced: 0 },
      pairsOmitted: 0,
    });
    expect(payload.pairs?.map((p) => `${p.domain.id} ${p.isp} ${p.class}`)).toEqual([
      '1 Comcast worse',
      '1 Charter new',
      '2 Small ISP new',
      '3 Gone ISP cleared',
    ]);
    expect(payload.pairs?.[0]).toEqual({
      class: 'worse',
      domain: { id: 1, url: 'https://d1.example.com' },
      isp: 'Comcast',
      severity: 'critical',
      dropPercent: 88.9,
      clicks: { yesterday: 100, d7: 900, d14: 880, d30: 870 },
      firstSeen: '2026-11-19',
      mayStillBeDepressed: false,
    });
    expect(payload.pairs?.[3]?.mayStillBeDepressed).toBe(true);
    expect(payload.domains?.[0]).toEqual({
      id: 1,
      url: 'https://d1.example.com',
      ispsAffected: 2,
      clicksLost: 1300,
      looksBlocked: false,
    });
  });

  it('lists at most MAX_WEBHOOK_PAIRS and counts the rest', () => {
    const pairs = Array.from({ length: MAX_WEBHOOK_PAIRS + 7 }, (_, i) =>
      pair(1, `ISP ${i}`, 'new'),
    );
    const payload = webhook(alertEvent(pairs));
    expect(payload.pairs).toHaveLength(MAX_WEBHOOK_PAIRS);
    expect(payload.pairsOmitted).toBe(7);
  });

  it.each<[string, NotificationEvent, Partial<WebhookPayload>]>([
    [
      'problem',
      {
        kind: 'problem',
        problem: {
          kind: 'traffic-check',
          openedAt: 0,
          code: 'THM_API_AUTH',
          message: 'No Authentication Method Found',
        },
      },
      {
        problem: {
          code: 'THM_API_AUTH',
          message: 'No Authentication Method Found',
          openedAt: '1970-01-01T00:00:00.000Z',
        },
      },
    ],
    [
      'restored',
      {
        kind: 'restored',
        restoredAt: 3_600_000,
        problem: { kind: 'traffic-check', openedAt: 0, code: 'THM_API_TRANSIENT', message: 'down' },
      },
      {
        problem: {
          code: 'THM_API_TRANSIENT',
          message: 'down',
          openedAt: '1970-01-01T00:00:00.000Z',
          restoredAt: '1970-01-01T01:00:00.000Z',
        },
      },
    ],
    [
      'premium-lost',
      { kind: 'premium-lost', firstSight: true },
      { premium: { active: false, firstSight: true } },
    ],
    [
      'premium-regained',
      { kind: 'premium-regained', firstSight: false },
      { premium: { active: true, firstSight: false } },
    ],
    [
      'invoice',
      {
        kind: 'invoice',
        snapshot: { time: 0, status: 'unpaid', total_count: 3, balance: 10, billed: 20, paid: 10 },
        change: { total_count: 1, balance: 5, billed: 5, paid: 0 },
      },
      {
        invoice: {
          time: '1970-01-01T00:00:00.000Z',
          status: 'unpaid',
          totalCount: 3,
          balance: 10,
          billed: 20,
          paid: 10,
          change: { totalCount: 1, balance: 5, billed: 5, paid: 0 },
        },
      },
    ],
  ])('%s: the kind-specific part, no pairs', (_kind, event, expected) => {
    const payload = webhook(event);
    expect(payload).toMatchObject({ version: 1, kind: event.kind, ...expected });
    expect(payload.pairs).toBeUndefined();
  });
});

describe('Slack message', () => {
  it('headline first, the worst domain, at most MAX_SLACK_PAIRS pairs, "and N more", the silence command', () => {
    const pairs = [
      ...Array.from({ length: 12 }, (_, i) => pair(7, `ISP ${i}`, 'new', [10, 500, 500, 500])),
      pair(8, 'Lone ISP', 'new', [400, 500, 500, 500]),
    ];
    const message = slack(alertEvent(pairs, [7]));
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Acme Network: 13 new (2026-11-21)', emoji: false },
    });
    const text = slackText(message);
    expect(text).toContain('1 domain looks blocked:* `https://d7.example.com`');
    expect(text.match(/^• /gm)).toHaveLength(MAX_SLACK_PAIRS);
    expect(text).toContain('and 3 more pairs: in the e-mail, or `thm history --network acme`');
    expect(text).toContain("`thm silence add --network acme --domain 7 --isp 'ISP 0' --for 7d`");
    expect(text).toContain('10 clicks yesterday vs 500 / 500 / 500 (7 / 14 / 30 days back)');
    expect(message.text).toBe('Acme Network: 13 new (2026-11-21)');
    expect(message).toMatchObject({ unfurl_links: false, unfurl_media: false });
  });

  it("a drop alone: its headline, and the drop's own silence command", () => {
    const event = alertEvent([]);
    if (event.kind !== 'alert') throw new Error('alert');
    event.classification.drops = [
      {
        scope: 'domain',
        domainId: 102,
        domainUrl: 'https://go.example.com',
        class: 'new',
        firstSeen: ASOF,
        dropPercent: 83,
        dropPercent14: 84,
        significance: 9,
        ispsDown: 10,
        ispsKnown: 10,
        clicksLost: 8000,
        baselineClicks: 10000,
      },
    ];
    const message = slack(event);
    expect(message.text).toBe('Acme Network: domain 102 down 83% (2026-11-21)');
    expect(slackText(message)).toContain(
      'Silence the whole domain for a week: `thm silence add --network acme --domain 102 --for 7d`',
    );
  });

  it('without a blocked domain, names the worst domain by clicks lost', () => {
    const text = slackText(
      slack(
        alertEvent([
          pair(1, 'A', 'new', [400, 500, 500, 500]),
          pair(2, 'B', 'new', [100, 500, 500, 500]),
        ]),
      ),
    );
    expect(text).toContain(
      '*Worst domain:* `https://d2.example.com`: 1 ISP declining, 400 clicks lost.',
    );
  });

  it('cleared pairs carry the "may still be depressed" caveat', () => {
    const text = slackText(
      slack(alertEvent([pair(3, 'Gone', 'cleared', undefined, { mayStillBeDepressed: true })])),
    );
    expect(text).toContain(
      'cleared: `Gone` on `https://d3.example.com`, first seen 2026-11-19 *may still be depressed*',
    );
  });

  it.each([
    ['<!channel> now', '&lt;!channel&gt; now'],
    ['<!here|here>', '&lt;!here|here&gt;'],
    ['<@U024BE7LH>', '&lt;@U024BE7LH&gt;'],
    ['<https://evil.example|click me>', '&lt;https://evil.example|click me&gt;'],
    ['Tom & Jerry', 'Tom &amp; Jerry'],
    ['`code` *bold* _it_', 'ˋcodeˋ *bold* _it_'],
    ['two\nlines\r\n<!everyone>', 'two lines &lt;!everyone&gt;'],
  ])('hostile ISP name %j stays inert: %j, inside inline code', (isp, shown) => {
    const message = slack(alertEvent([pair(1, isp, 'new')]));
    const json = JSON.stringify(message);
    // No raw markup survives anywhere in the message: nothing can ping, link or format.
    for (const block of message.blocks) {
      const texts =
        block.type === 'context'
          ? block.elements.map((e) => e.text)
          : 'text' in block
            ? [block.text.text]
            : [];
      for (const t of texts) expect(t).not.toMatch(/<[!@#]|<https?:/);
    }
    expect(slackText(message)).toContain(`\`${shown}\` on`);
    expect(json).not.toContain('<!');
  });

  it('escapeSlack escapes exactly &, < and >', () => {
    expect(escapeSlack('a&b<c>d*e_')).toBe('a&amp;b&lt;c&gt;d*e_');
  });

  it('a hostile API error message in a problem message is inert too', () => {
    const text = slackText(
      slack({
        kind: 'problem',
        problem: {
          kind: 'traffic-check',
          openedAt: 0,
          code: 'THM_API_HTTP',
          message: 'bad <!channel> <http://x|y>',
        },
      }),
    );
    expect(text).toContain('`bad &lt;!channel&gt; &lt;http://x|y&gt;`');
  });

  it.each(['problem', 'restored', 'premium-lost', 'premium-regained', 'invoice'] as const)(
    '%s: a header and a section',
    (kind) => {
      const events: Record<typeof kind, NotificationEvent> = {
        problem: {
          kind: 'problem',
          problem: { kind: 'traffic-check', openedAt: 0, code: 'THM_STORE', message: 'm' },
        },
        restored: {
          kind: 'restored',
          restoredAt: 1,
          problem: { kind: 'traffic-check', openedAt: 0, code: 'THM_STORE', message: 'm' },
        },
        'premium-lost': { kind: 'premium-lost', firstSight: false },
        'premium-regained': { kind: 'premium-regained', firstSight: false },
        invoice: {
          kind: 'invoice',
          snapshot: { time: 0, status: 'unpaid', total_count: 1, balance: 1, billed: 1, paid: 0 },
        },
      };
      const message = slack(events[kind]);
      expect(message.blocks.map((b) => b.type)).toEqual(['header', 'section']);
    },
  );
});

describe('signature', () => {
  it('sha256=<hex HMAC-SHA256 of the body>, verified in constant time', () => {
    const body = '{"version":1}';
    const sig = signBody('s3cret', body);
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature('s3cret', body, sig)).toBe(true);
    expect(verifySignature('other', body, sig)).toBe(false);
    expect(verifySignature('s3cret', `${body} `, sig)).toBe(false);
    expect(verifySignature('s3cret', body, 'sha256=00')).toBe(false);
  });
});

describe('buildChannelDeliveries', () => {
  const channels: ChannelTarget[] = [
    {
      type: 'webhook',
      name: 'webhook',
      url: new Secret('https://hooks.example/x'),
      secret: new Secret('k'),
    },
    {
      type: 'slack',
      name: 'slack',
      url: new Secret('https://hooks.slack.example/T/B/X'),
      kinds: ['alert', 'problem'],
    },
  ];

  it('one delivery per channel that takes the kind, with the body rendered once', () => {
    const n = notificationOf('alert');
    const deliveries = buildChannelDeliveries({
      notification: n,
      network: NETWORK,
      channels,
      event: alertEvent([pair(1, 'A', 'new')]),
    });
    expect(deliveries.map((d) => d.id)).toEqual([`${n.id}-webhook`, `${n.id}-slack`]);
    expect(deliveries[0]).toMatchObject({
      notificationId: n.id,
      messageId: n.messageId,
      subject: n.subject,
      channel: { type: 'webhook', name: 'webhook' },
    });
    expect(JSON.parse(deliveries[0]!.body)).toMatchObject({ version: 1, notificationId: n.id });
    expect(JSON.parse(deliveries[1]!.body)).toHaveProperty('blocks');
    // No secret in what the outbox keeps.
    expect(JSON.stringify(deliveries)).not.toMatch(/hooks\.|"k"/);
  });

  it('a kinds filter leaves the other kinds out', () => {
    const n = notificationOf('premium-lost');
    const deliveries = buildChannelDeliveries({
      notification: n,
      network: NETWORK,
      channels,
      event: { kind: 'premium-lost', firstSight: false },
    });
    expect(deliveries.map((d) => d.channel.name)).toEqual(['webhook']);
  });
});
