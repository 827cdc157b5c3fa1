import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { DeliverJobData } from '../../jobs/job-data.js';
import { CHANNELS_QUEUE, MAIL_QUEUE } from '../../jobs/names.js';
import { EMAIL_CHANNEL } from '../../notification-names.js';
import { isChannelDelivery } from '../../notify/types.js';
import { loadCliConfig } from '../context.js';
import { resolveOutboxId, shortOutboxId } from '../outbox-ids.js';
import { formatTable, printJson, printLine } from '../output.js';
import { withStore } from '../store-access.js';

/**
 * Deliveries refused for good stay in the outbox as failed, visible in `thm status`: e-mails
 * the mail server refused (5xx), and channel deliveries an endpoint refused (a 4xx) or that
 * failed until the give-up bound. Once the cause is fixed (a sender address, a recipient, a
 * channel's URL or key), `retry` puts one back to pending and hands it to its queue; a running
 * worker sends it with the same Message-ID, or posts it with the same X-Thm-Notification-Id.
 */
export function registerNotifyCommands(program: Command): void {
  const notify = program
    .command('notify')
    .description('deliveries refused for good (e-mail and channels): list and retry');
  notify
    .command('failed')
    .description(
      'deliveries refused for good (SMTP 5xx, a channel endpoint 4xx or given up), with the reply',
    )
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm notify failed')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = loadCliConfig(command);
      const [failed, unreadable] = await withStore(config, (store) =>
        Promise.all([store.failedNotifications(), store.unreadableNotifications()]),
      );
      type Row = Record<
        'id' | 'shortId' | 'network' | 'kind' | 'channel' | 'asOf' | 'subject' | 'error',
        string
      >;
      const rows: Row[] = failed.map((e) => ({
        id: e.notification.id,
        shortId: shortOutboxId(e.notification.id),
        network: e.notification.networkId,
        kind: e.notification.kind,
        channel: isChannelDelivery(e.notification) ? e.notification.channel.name : EMAIL_CHANNEL,
        asOf: e.notification.asOf,
        subject: e.notification.subject,
        error: e.lastError ?? '',
      }));
      // Entries a sender could not read and moved aside: listed, though little is known of them.
      for (const u of unreadable)
        rows.push({
          id: u.id,
          shortId: shortOutboxId(u.id),
          network: '?',
          kind: 'unreadable',
          channel: '?',
          asOf: '?',
          subject: '',
          error: u.lastError ?? 'unreadable outbox entry',
        });
      if (options.json) {
        printJson({ failed: rows });
        return;
      }
      if (rows.length === 0) {
        printLine('no failed notifications');
        return;
      }
      printLine(
        formatTable(
          ['ID', 'NETWORK', 'KIND', 'CHANNEL', 'AS-OF', 'REPLY'],
          rows.map((r) => [r.shortId, r.network, r.kind, r.channel, r.asOf, r.error]),
        ),
      );
    });
  notify
    .command('retry')
    .description('put a failed delivery back to pending and hand it to its queue')
    .argument(
      '<id>',
      'as shown by thm notify failed or thm status (its first 8 characters, or more of it)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ thm notify retry 3f9a1c07\n  $ thm notify retry 3f9a1c07-slack\n  $ thm notify retry 3f9a1c07d2b84e6a9c0d1e2f3a4b5c6d',
    )
    .action(async (given: string, _options: unknown, command: Command) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(given))
        throw new UsageError(`notification id "${given}" is not valid`);
      const config = loadCliConfig(command);
      const id = await withStore(config, async (store, redis) => {
        const [failed, unreadable] = await Promise.all([
          store.failedNotifications(),
          store.unreadableNotifications(),
        ]);
        const id = resolveOutboxId(given, [
          ...failed.map((e) => e.notification.id),
          ...unreadable.map((u) => u.id),
        ]);
        if (!(await store.retryFailed(id)))
          throw new UsageError(`no failed notification with id ${given}`);
        // Loaded here, not with the CLI: other commands start without it.
        const [{ loadBullmq }, { enqueueOutbox }] = await Promise.all([
          import('../../cjs-packages.js'),
          import('../../jobs/runtime.js'),
        ]);
        const { Queue } = loadBullmq();
        const prefix = config.redis.prefix;
        const mailQueue = new Queue<DeliverJobData>(MAIL_QUEUE, { connection: redis, prefix });
        const channelsQueue = new Queue<DeliverJobData>(CHANNELS_QUEUE, {
          connection: redis,
          prefix,
        });
        try {
          await enqueueOutbox({ mailQueue, channelsQueue }, [id]);
        } finally {
          await Promise.all([mailQueue.close(), channelsQueue.close()]);
        }
        return id;
      });
      printLine(`${id}: pending again; a running worker delivers it`);
    });
}
