import type { Command } from 'commander';
import { z } from 'zod';
import { localDate } from '../../dates.js';
import { UsageError } from '../../errors.js';
import { invoiceChange } from '../../monitor/invoice.js';
import { silenceMatcher } from '../../monitor/silences.js';
import { loadCliConfig, selectNetworks } from '../context.js';
import { formatTable, printJson, printLine } from '../output.js';
import { withStore } from '../store-access.js';

const positiveInt = (option: string, max: number) =>
  z.coerce
    .number({ message: `${option}: must be a whole number` })
    .int(`${option}: must be a whole number`)
    .min(1, `${option}: at least 1`)
    .max(max, `${option}: at most ${max}`);

function parse<T>(schema: z.ZodType<T>, raw: unknown): T {
  const result = schema.safeParse(raw);
  if (!result.success) throw new UsageError(result.error.issues[0]?.message ?? 'invalid options');
  return result.data;
}

export function registerHistoryCommands(program: Command): void {
  program
    .command('history')
    .description('active declining pairs of a network, and its recent runs')
    .requiredOption('--network <id>', 'the network')
    .option('--days <n>', 'runs of the last N days (default 14)')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm history --network acme --days 7')
    .action(async (raw: unknown, command: Command) => {
      const options = parse(
        z.object({
          network: z.string(),
          days: positiveInt('--days', 60).default(14),
          json: z.boolean().optional(),
        }),
        raw,
      );
      const config = loadCliConfig(command);
      const [network] = selectNetworks(config, options);
      if (!network) return;
      const now = Date.now();
      const { active, runs } = await withStore(config, async (store) => {
        const state = await store.loadNetworkState(network.id, {
          asOf: localDate(now, network.timezone),
          kind: 'traffic-check',
          now,
        });
        // Marked with the silence in force now, as the next run would count them.
        const silencedBy = silenceMatcher(state.silences);
        return {
          active: state.active.map((pair) => {
            const silence = silencedBy(pair.domainId, pair.isp);
            return silence ? { ...pair, silencedBy: silence.id } : pair;
          }),
          runs: await store.listRuns(network.id, { days: options.days }),
        };
      });
      active.sort((a, b) => b.baseline - b.yesterday - (a.baseline - a.yesterday));
      if (options.json) {
        printJson({ network: network.id, active, runs });
        return;
      }
      printLine(
        `${network.name}: ${active.length} active declining pair${active.length === 1 ? '' : 's'}`,
      );
      if (active.length > 0) {
        printLine(
          formatTable(
            [
              'DOMAIN',
              'ISP',
              'DROP',
              'CLICKS (7D AGO -> YDAY)',
              'FIRST SEEN',
              'LAST E-MAILED',
              'QUIET RUNS',
              'SILENCED',
            ],
            active.map((p) => [
              `${p.domainId} ${p.domainUrl}`,
              p.isp,
              `${p.dropPercent.toFixed(0)}%`,
              `${p.baseline} -> ${p.yesterday}`,
              p.firstSeen,
              p.lastNotified,
              String(p.quietRuns),
              'silencedBy' in p ? `yes (${p.silencedBy})` : '',
            ]),
          ),
        );
      }
      printLine('');
      printLine(`runs, last ${options.days} days:`);
      printLine(
        formatTable(
          ['AS-OF', 'KIND', 'OUTCOME', 'COUNTS', 'E-MAILS', 'ERROR'],
          runs.map((r) => [
            r.asOf,
            r.kind,
            r.outcome,
            r.counts
              ? Object.entries(r.counts)
                  .filter(([, v]) => v > 0)
                  .map(([k, v]) => `${v} ${k}`)
                  .join(', ')
              : '',
            String(r.notificationIds.length),
            r.error ? `${r.error.code}: ${r.error.message}` : '',
          ]),
        ),
      );
    });

  program
    .command('invoices')
    .description(
      'invoice summary snapshots of a network, newest first, with the change since the one before',
    )
    .requiredOption('--network <id>', 'the network')
    .option('--limit <n>', 'how many (default 20)')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm invoices --network acme --limit 5 --json')
    .action(async (raw: unknown, command: Command) => {
      const options = parse(
        z.object({
          network: z.string(),
          limit: positiveInt('--limit', 10_000).default(20),
          json: z.boolean().optional(),
        }),
        raw,
      );
      const config = loadCliConfig(command);
      const [network] = selectNetworks(config, options);
      if (!network) return;
      // One more than asked, so the oldest shown still has its change.
      const snapshots = await withStore(config, (store) =>
        store.listInvoiceSnapshots(network.id, options.limit + 1),
      );
      const rows = snapshots
        .slice(0, options.limit)
        .map((snapshot, i) => ({ snapshot, change: invoiceChange(snapshots[i + 1], snapshot) }));
      if (options.json) {
        // The API's `time` is in epoch seconds; in JSON every time is ISO 8601 (src/cli/output.ts).
        printJson({
          network: network.id,
          snapshots: rows.map(({ snapshot, change }) => ({
            snapshot: { ...snapshot, time: new Date(snapshot.time * 1000).toISOString() },
            change,
          })),
        });
        return;
      }
      if (rows.length === 0) {
        printLine(`${network.name}: no invoice snapshots yet`);
        return;
      }
      const signed = (v: number | undefined, digits: number) =>
        v === undefined ? '' : `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`;
      printLine(
        formatTable(
          ['TIME', 'STATUS', 'COUNT', 'BALANCE', 'BILLED', 'PAID', 'CHANGE (COUNT / BALANCE)'],
          rows.map(({ snapshot: s, change: c }) => [
            new Date(s.time * 1000).toISOString().slice(0, 16).replace('T', ' '),
            s.status,
            String(s.total_count),
            s.balance.toFixed(2),
            s.billed.toFixed(2),
            s.paid.toFixed(2),
            c ? `${signed(c.total_count, 0)} / ${signed(c.balance, 2)}` : '',
          ]),
        ),
      );
    });
}
