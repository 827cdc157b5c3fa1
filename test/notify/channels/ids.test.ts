import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThmError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import {
  channelDeliveryId,
  isChannelDeliveryId,
  parseChannelDeliveryId,
} from '../../../src/notify/channels/delivery-id.js';
import { NOTIFICATION_ID, notificationId } from '../../../src/notify/notification.js';
import { NotificationSender } from '../../../src/notify/sender.js';
import type { MailTransport } from '../../../src/notify/types.js';
import { RedisStore } from '../../../src/store/redis-store.js';
import { startRedis, type TestRedis } from '../../harness/redis.js';

const id = notificationId('acme', '2026-11-21', 'alert', ['new|101|Comcast']);

describe('outbox ids: an e-mail is a notification id, a channel delivery is <id>-<channel>', () => {
  it('notificationId makes what NOTIFICATION_ID accepts, and nothing else is one', () => {
    expect(NOTIFICATION_ID.test(id)).toBe(true);
    for (const other of ['', id.toUpperCase(), id.slice(1), `${id}0`, `${id}-webhook`, 'junk'])
      expect(NOTIFICATION_ID.test(other)).toBe(false);
  });

  it('channelDeliveryId round-trips through parseChannelDeliveryId', () => {
    for (const name of ['webhook', 'slack-2', 'ops_hook', 'a', 'x'.repeat(24)]) {
      const delivery = channelDeliveryId(id, name);
      expect(isChannelDeliveryId(delivery)).toBe(true);
      expect(parseChannelDeliveryId(delivery)).toEqual({ notificationId: id, channel: name });
    }
  });

  it.each([
    ['junk-id', 'a dash alone'],
    [`${id}-`, 'no channel name'],
    [`${id}--x`, 'a name starting with a dash'],
    [`${id}-Webhook`, 'upper case in the name'],
    [`${id}-${'x'.repeat(25)}`, 'a name longer than 24'],
    [`${id}-web hook`, 'a space'],
    [`${id.slice(1)}-webhook`, '31 hex digits'],
    [`${id.toUpperCase()}-webhook`, 'upper-case hex'],
    [`x${id}-webhook`, 'something before the id'],
    [`${id}-webhook\n`, 'a trailing newline'],
    [id, 'an e-mail id'],
  ])('%j is not a channel delivery id (%s)', (junk) => {
    expect(isChannelDeliveryId(junk)).toBe(false);
    expect(parseChannelDeliveryId(junk)).toBeUndefined();
  });
});

/**
 * The gap this closes: any id with a `-` used to count as a channel delivery, so a junk id in
 * the pending list skipped the e-mail claim that sets unreadable entries aside, and was swept
 * again every minute, forever.
 */
describe('a junk id with a dash in the pending list', () => {
  let redis: TestRedis;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await startRedis();
    store = new RedisStore(redis.client(), `thmids${process.pid}`);
  });
  afterAll(() => redis.shutdown());

  it('is claimed as an e-mail, set aside once and listed as unreadable', async () => {
    const sent: string[] = [];
    const transport: MailTransport = {
      send: (n) => {
        sent.push(n.id);
        return Promise.resolve({ accepted: true, response: '250 ok' });
      },
      close: () => Promise.resolve(),
    };
    // Without a channel sender, as the mail queue's sender is in the worker.
    const sender = new NotificationSender({
      store,
      transport,
      from: 'alerts@thm.example',
      logger: silentLogger,
    });
    await redis.client().zadd(store.keys.outboxPending, 0, 'junk-id-with-dash');
    const error = await sender.deliver('junk-id-with-dash').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThmError);
    expect((error as ThmError).message).toBe(
      'notification junk-id-with-dash: unreadable outbox entry: pending without a notification; moved to failed',
    );
    expect(await store.pendingNotificationIds(10, Date.now())).toEqual([]);
    expect(await store.unreadableNotifications()).toMatchObject([
      {
        id: 'junk-id-with-dash',
        lastError: 'unreadable outbox entry: pending without a notification',
      },
    ]);
    expect(sent).toEqual([]);
  });
});
