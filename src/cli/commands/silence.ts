import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { loadCliConfig } from '../context.js';
import { formatDuration, parseDuration } from '../durations.js';
import { formatTable, printJson, printLine } from '../output.js';
import { withStore } from '../store-access.js';
import { selectNetworks } from './run.js';

const addSchema = z
  .object({
    network: z.string({ message: '--network: required' }).min(1),
    domain: z.coerce
      .number({ message: '--domain: must be a tracking domain id (a whole number)' })
      .int('--domain: must be a whole number')
      .positive('--domain: must be positive')
      .optional(),
    isp: z
      .string()
      .min(1, '--isp: must not be empty')
      .max(200, '--isp: at most 200 characters')
      .optional(),
    for: z.string({ message: '--for: required (e.g. 12h, 7d)' }),
    reason: z
      .string({ message: '--reason: required' })
      .trim()
      .min(1, '--reason: required')
      .max(500, '--reason: at most 500 characters'),
  })
  .refine((o) => o.domain !== undefined || o.isp !== undefined, {
    message: 'give --domain DOMAIN_ID, --isp PATTERN, or both',
  });

export function registerSilenceCommands(program: Command): void {
  const silence = program
    .command('silence')
    .description('manage silences: pairs that are counted but never e-mailed');
  silence
    .command('add')
    .description('silence a tracking domain, an ISP (exact or glob), or both, for a while')
    .requiredOption('--network <id>', 'the network')
    .option('--domain <id>', 'tracking domain id (network_tracking_domain_id)')
    .option('--isp <pattern>', "ISP name, exact or a glob with * and ? (e.g. 'Comcast*')")
    .requiredOption('--for <duration>', 'how long: 30m, 12h, 7d, 2w')
    .requiredOption('--reason <text>', 'why: shown in thm silence list')
    .option('--json', 'print one JSON document')
    .addHelpText(
      'after',
      "\nExamples:\n  $ thm silence add --network acme --domain 101 --isp 'Comcast' --for 7d --reason 'known filtering, ticket 4411'\n  $ thm silence add --network acme --isp 'T-Mobile*' --for 12h --reason 'carrier maintenance'",
    )
    .action(async (raw: Record<string, unknown>, command: Command) => {
      const parsed = addSchema.safeParse(raw);
      if (!parsed.success)
        throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid options');
      const options = parsed.data;
      const durationMs = parseDuration(options.for);
      const config = loadCliConfig(command);
      const [network] = selectNetworks(config, { network: options.network });
      const now = Date.now();
      const created = await withStore(config, (store) =>
        store.addSilence(
          {
            networkId: network?.id ?? options.network,
            domainId: options.domain,
            isp: options.isp,
            reason: options.reason,
            expiresAt: now + durationMs,
          },
          now,
        ),
      );
      if ((raw as { json?: boolean }).json) printJson(created);
      else printLine(created.id);
    });

  silence
    .command('list')
    .description('unexpired silences')
    .option('--network <id>', 'only this network')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm silence list --json')
    .action(async (options: { network?: string; json?: boolean }, command: Command) => {
      const config = loadCliConfig(command);
      if (options.network) selectNetworks(config, { network: options.network });
      const now = Date.now();
      const silences = await withStore(config, (store) => store.listSilences(options.network, now));
      if (options.json) {
        printJson({ silences });
        return;
      }
      if (silences.length === 0) {
        printLine('no active silences');
        return;
      }
      printLine(
        formatTable(
          ['ID', 'NETWORK', 'DOMAIN', 'ISP', 'EXPIRES IN', 'REASON'],
          silences.map((s) => [
            s.id,
            s.networkId,
            s.domainId === undefined ? '*' : String(s.domainId),
            s.isp ?? '*',
            formatDuration(s.expiresAt - now),
            s.reason,
          ]),
        ),
      );
    });

  silence
    .command('remove')
    .description('remove a silence by id')
    .argument('<silence-id>', 'as printed by silence add / silence list')
    .addHelpText('after', '\nExample:\n  $ thm silence remove 3f9a1c07')
    .action(async (id: string, _options: unknown, command: Command) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id))
        throw new UsageError(`silence id "${id}" is not valid`);
      const config = loadCliConfig(command);
      const removed = await withStore(config, (store) => store.removeSilence(id));
      if (!removed) throw new UsageError(`no silence with id ${id}`);
      printLine(`removed ${id}`);
    });
}
