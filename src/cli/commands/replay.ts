import type { Command } from 'commander';
import { z } from 'zod';
import type { Config, NetworkConfig } from '../../config/load.js';
import { localDate } from '../../dates.js';
import { UsageError } from '../../errors.js';
import type { ReplaySource } from '../../replay/replay.js';
import { loadCliConfig, selectNetworks } from '../context.js';
import { parseDuration } from '../durations.js';

/**
 * `thm replay` (docs/replay.md): what the alert rules would have e-mailed over the listings the
 * monitor kept (or a file of them), with the configured settings or others, beside what it
 * sent. Reads only. Its modules are loaded when it runs: other commands start without them.
 */
const optionsSchema = z.object({
  network: z.string({ message: '--network: required' }).min(1),
  since: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  set: z.array(z.string()).default([]),
  compare: z.boolean().optional(),
  listings: z.string().min(1, '--listings: a file').optional(),
  json: z.boolean().optional(),
});
type ReplayOptions = z.output<typeof optionsSchema>;

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description(
      'replay the stored (or exported) daily listings through the alert rules: what would have been e-mailed, beside what was',
    )
    .requiredOption('--network <id>', 'the network')
    .option('--since <duration>', 'the last N days of as-of dates (30d, 2w; default: all kept)')
    .option('--from <date>', 'first as-of date, YYYY-MM-DD')
    .option('--to <date>', "last as-of date (default: today in the network's time zone)")
    .option('--set <alerts.KEY=VALUE>', 'replay with this alert setting (repeatable)', collect)
    .option('--compare', 'each --set is a replay of its own, beside the configured settings')
    .option('--listings <file>', 'replay this listing file (JSON lines) instead of the stored days')
    .option('--json', 'print one JSON document')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ thm replay --network acme --since 30d',
        '  $ thm replay --network acme --set alerts.minSignificance=5 --set alerts.clearAfterRuns=3',
        '  $ thm replay --network acme --compare --set alerts.minDropPercent=30 --set alerts.minSignificance=5',
        '  $ thm replay --network acme --listings acme-history.jsonl --json',
      ].join('\n'),
    )
    .action(async (raw: unknown, command: Command) => {
      const parsed = optionsSchema.safeParse(raw);
      if (!parsed.success)
        throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid options');
      const config = loadCliConfig(command);
      const [network] = selectNetworks(config, parsed.data);
      if (network) await replay(config, network, parsed.data);
    });
}

async function replay(
  config: Config,
  network: NetworkConfig,
  options: ReplayOptions,
): Promise<void> {
  const { replayVariants } = await import('../../replay/settings.js');
  const { replayRange, inRange } = await import('../../replay/range.js');
  const variants = replayVariants(network.alerts, options.set, options.compare === true);
  const sinceMs = options.since === undefined ? undefined : parseDuration(options.since, '--since');
  const today = localDate(Date.now(), network.timezone);
  const keep = config.history.keepListingsDays;
  const defaultDays = keep > 0 ? keep : 90;

  let sources: Iterable<ReplaySource>;
  let range;
  if (options.listings !== undefined) {
    const { readListingFile } = await import('../../replay/listing-file.js');
    const { listingEntries } = await import('../../store/listing-codec.js');
    const days = await readListingFile(options.listings, config.api.maxResponseBytes);
    const chosen =
      sinceMs === undefined && options.from === undefined && options.to === undefined
        ? undefined
        : replayRange({ sinceMs, from: options.from, to: options.to }, today, defaultDays);
    const kept = chosen ? days.filter((d) => inRange(d.asOf, chosen)) : days;
    range = chosen ?? { from: days[0]!.asOf, to: days[days.length - 1]!.asOf };
    sources = kept.map((d) => ({ asOf: d.asOf, entries: () => listingEntries(d.listing) }));
  } else {
    range = replayRange({ sinceMs, from: options.from, to: options.to }, today, defaultDays);
    const { datesOf } = await import('../../replay/range.js');
    const { readListings } = await import('../../store/listings.js');
    const { storedSources } = await import('../../replay/stored.js');
    const { withStore } = await import('../store-access.js');
    const dates = datesOf(range);
    const stored = await withStore(config, (store, redis) =>
      readListings(redis, store.keys, network.id, dates),
    );
    sources = storedSources(network.id, stored);
  }

  const { replayDays } = await import('../../replay/replay.js');
  const { printReplayJson, printReplayText } = await import('../replay-report.js');
  const header = {
    network: { id: network.id, name: network.name },
    range,
    source: options.listings !== undefined ? { file: options.listings } : { store: true as const },
    variants,
  };
  const days = replayDays(header.network, variants, sources);
  const count = options.json ? printReplayJson(header, days) : printReplayText(header, days);
  if (count === 0 && !options.json) {
    process.stderr.write(
      `thm: note: no listing of ${network.id} from ${range.from} to ${range.to}${
        options.listings === undefined
          ? ` (each traffic-check keeps its day for history.keepListingsDays, ${keep})`
          : ''
      }\n`,
    );
  }
}
