import { Queue } from 'bullmq';
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { DeliverJobData } from '../../jobs/job-data.js';
import { MAIL_QUEUE } from '../../jobs/names.js';
import { enqueueDeliveries } from '../../jobs/runtime.js';
import { loadCliConfig } from '../context.js';
import { formatTable, printJson, printLine } from '../output.js';
import { withStore } from '../store-access.js';

/**
 * Notifications the mail server refused for good (5xx) stay in the outbox as failed, visible in
 * `thm status`. Once the cause is fixed (a sender address, a recipient), `retry` puts one back
 * to pending and hands it to delivery; a running worker sends it with the same Message-ID.
 */
export function registerNotifyCommands(program: Command): void {
  const notify = program
    .command('notify')
    .description('notifications the mail server refused: list and retry');
  notify
    .command('failed')
    .description('notifications refused for good (SMTP 5xx), with the server reply')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm notify failed')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = loadCliConfig(command);
      const [failed, unreadable] = await withStore(config, (store) =>
        Promise.all([store.failedNotifications(), store.unreadableNotifications()]),
      );
      const rows: Array<Record<'id' | 'network' | 'kind' | 'asOf' | 'subject' | 'error', string>> =
        failed.map((e) => ({
          id: e.notification.id,
          network: e.notification.networkId,
          kind: e.notification.kind,
          asOf: e.notification.asOf,
          subject: e.notification.subject,
          error: e.lastError ?? '',
        }));
      // Entries a sender could not read and moved aside: listed, though little is known of them.
      for (const u of unreadable)
        rows.push({
          id: u.id,
          network: '?',
          kind: 'unreadable',
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
          ['ID', 'NETWORK', 'KIND', 'AS-OF', 'SERVER REPLY'],
          rows.map((r) => [r.id, r.network, r.kind, r.asOf, r.error]),
        ),
      );
    });
  notify
    .command('retry')
    .description('put a failed notification back to pending and hand it to delivery')
    .argument('<notification-id>', 'as shown by thm notify failed or thm status')
    .addHelpText('after', '\nExample:\n  $ thm notify retry 3f9a1c07d2b84e6a9c0d1e2f3a4b5c6d')
    .action(async (id: string, _options: unknown, command: Command) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id))
        throw new UsageError(`notification id "${id}" is not valid`);
      const config = loadCliConfig(command);
      await withStore(config, async (store, redis) => {
        if (!(await store.retryFailed(id)))
          throw new UsageError(`no failed notification with id ${id}`);
        const mail = new Queue<DeliverJobData>(MAIL_QUEUE, {
          connection: redis,
          prefix: config.redis.prefix,
        });
        try {
          await enqueueDeliveries(mail, [id]);
        } finally {
          await mail.close();
        }
      });
      printLine(`${id}: pending again; a running worker delivers it`);
    });
}
