import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { z } from 'zod';
import { localDate } from '../../dates.js';
import { EXIT_FAILED, UsageError } from '../../errors.js';
import { silenceMatcher } from '../../monitor/silences.js';
import type { Silence } from '../../monitor/types.js';
import { loadCliConfig, selectNetworks } from '../context.js';
import { formatDuration, formatUtc, parseDuration, parseTime } from '../durations.js';
import { formatTable, printJson, printLine } from '../output.js';
import { withStore } from '../store-access.js';

/**
 * `thm silence`, after Alertmanager's `amtool silence`: add (now for a while, or a window that
 * starts later), list (absolute times, author; `--expired` for the past ones), remove several.
 */
const REASON_ASKED =
  "say why, e.g. --reason 'known filtering, ticket 4411' (thm silence list shows it)";
const REASON_REQUIRED = `--reason: required: ${REASON_ASKED}`;

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
    caseSensitive: z.boolean().optional(),
    for: z.string().optional(),
    start: z.string().optional(),
    end: z.string().optional(),
    author: z
      .string()
      .trim()
      .min(1, '--author: must not be empty')
      .max(100, '--author: at most 100 characters')
      .optional(),
    reason: z
      .string({ message: REASON_REQUIRED })
      .trim()
      .min(1, REASON_REQUIRED)
      .max(500, '--reason: at most 500 characters')
      // The placeholder of the suggested line in e-mails before it left --reason out.
      .refine((r) => !/^[.…\s]*$|^<.*>$/.test(r), {
        message: `--reason: "..." is a placeholder; ${REASON_ASKED}`,
      }),
    json: z.boolean().optional(),
  })
  .refine((o) => o.domain !== undefined || o.isp !== undefined, {
    message: 'give --domain DOMAIN_ID, --isp PATTERN, or both',
  })
  .refine((o) => (o.for === undefined) !== (o.end === undefined), {
    message: 'give how long with --for DURATION, or until when with --end TIME (one of them)',
  });

const SILENCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The OS user, as amtool defaults --author; "unknown" when there is none (a bare container). */
function defaultAuthor(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/** The window of a new silence from --start, --for / --end. */
export function silenceWindow(
  options: { start?: string; for?: string; end?: string },
  now: number,
): { startsAt: number; expiresAt: number } {
  const startsAt = options.start === undefined ? now : parseTime(options.start, '--start');
  const expiresAt =
    options.end !== undefined
      ? parseTime(options.end, '--end')
      : startsAt + parseDuration(options.for ?? '');
  if (expiresAt <= startsAt) throw new UsageError('--end: must be after --start');
  if (expiresAt <= now) throw new UsageError('--end: must be in the future');
  if (expiresAt - now > 366 * 86_400_000) throw new UsageError('--end: at most a year ahead');
  return { startsAt, expiresAt };
}

export function registerSilenceCommands(program: Command): void {
  const silence = program
    .command('silence')
    .description('manage silences: pairs that are counted but never e-mailed');
  silence
    .command('add')
    .description(
      'silence a tracking domain, an ISP (exact or glob, any case), or both, now or in a window',
    )
    .requiredOption('--network <id>', 'the network')
    .option('--domain <id>', 'tracking domain id (network_tracking_domain_id)')
    .option(
      '--isp <pattern>',
      "ISP name, exact or a glob with * and ? (e.g. 'Comcast*'); case is ignored",
    )
    .option('--case-sensitive', 'match --isp with its case as written')
    .option('--for <duration>', 'how long: 30m, 12h, 7d, 2w (from --start)')
    .option('--start <time>', 'RFC 3339, e.g. 2026-11-24T22:00:00+01:00 (default: now)')
    .option('--end <time>', 'RFC 3339: until when, instead of --for')
    .option('--author <name>', 'who silences it (default: the OS user)')
    .option('--reason <text>', 'why (required): shown in thm silence list')
    .option('--json', 'print one JSON document')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        "  $ thm silence add --network acme --domain 101 --isp 'Comcast' --for 7d --reason 'known filtering, ticket 4411'",
        "  $ thm silence add --network acme --isp 'T-Mobile*' --start 2026-11-24T22:00:00+01:00 --end 2026-11-25T06:00:00+01:00 --reason 'carrier maintenance' --author alice",
      ].join('\n'),
    )
    .action(async (raw: Record<string, unknown>, command: Command) => {
      const parsed = addSchema.safeParse(raw);
      if (!parsed.success)
        throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid options');
      const options = parsed.data;
      const now = Date.now();
      const window = silenceWindow(options, now);
      const config = loadCliConfig(command);
      const [network] = selectNetworks(config, { network: options.network });
      const networkId = network?.id ?? options.network;
      const { created, known } = await withStore(config, async (store) => {
        const created = await store.addSilence(
          {
            networkId,
            domainId: options.domain,
            isp: options.isp,
            ...(options.caseSensitive ? { caseSensitive: true } : {}),
            reason: options.reason,
            author: options.author ?? defaultAuthor(),
            ...(window.startsAt > now ? { startsAt: window.startsAt } : {}),
            expiresAt: window.expiresAt,
          },
          now,
        );
        const state = await store.loadNetworkState(networkId, {
          asOf: localDate(now, network?.timezone ?? 'UTC'),
          kind: 'traffic-check',
          now,
        });
        return { created, known: state.active };
      });
      const matches = known.filter((p) => silenceMatcher([created])(p.domainId, p.isp)).length;
      const warning =
        matches === 0
          ? `silence ${created.id} matches none of the ${known.length} declining pair${known.length === 1 ? '' : 's'} in ${networkId}'s recent history${
              options.isp !== undefined && known.length > 0
                ? ` (ISPs there: ${[...new Set(known.map((p) => p.isp))].slice(0, 5).join(', ')}${new Set(known.map((p) => p.isp)).size > 5 ? ', ...' : ''})`
                : ''
            }: check --domain and --isp`
          : undefined;
      if (warning) process.stderr.write(`warning: ${warning}\n`);
      if (options.json) printJson({ ...created, matchesKnownPairs: matches });
      else printLine(created.id);
    });

  silence
    .command('list')
    .description('silences in force or starting later (--expired: those that ended lately)')
    .option('--network <id>', 'only this network')
    .option('--expired', 'silences that expired within the last 5 days instead')
    .option('--json', 'print one JSON document')
    .addHelpText(
      'after',
      '\nExamples:\n  $ thm silence list\n  $ thm silence list --expired --json',
    )
    .action(
      async (
        options: { network?: string; json?: boolean; expired?: boolean },
        command: Command,
      ) => {
        const config = loadCliConfig(command);
        if (options.network) selectNetworks(config, { network: options.network });
        const now = Date.now();
        const { silences, unreadable } = await withStore(config, (store) =>
          store.readSilences(options.network, now, { expired: options.expired === true }),
        );
        // One broken network is named (stderr, exit 1); the others' silences are still listed.
        if (unreadable.length > 0) process.exitCode = EXIT_FAILED;
        for (const problem of unreadable) process.stderr.write(`thm: ${problem.message}\n`);
        if (options.json) {
          const broken = unreadable.map((u) => ({
            networkId: u.networkId,
            key: u.key,
            field: u.field,
            message: u.message,
          }));
          printJson({ silences, ...(broken.length > 0 ? { unreadable: broken } : {}) });
          return;
        }
        if (silences.length === 0) {
          printLine(options.expired ? 'no silences expired lately' : 'no active silences');
          return;
        }
        printLine(
          formatTable(
            ['ID', 'NETWORK', 'DOMAIN', 'ISP', 'STARTS', 'ENDS', 'AUTHOR', 'REASON'],
            silences.map((s) => [
              s.id,
              s.networkId,
              s.domainId === undefined ? '*' : String(s.domainId),
              describeIsp(s),
              describeStart(s, now),
              describeEnd(s, now),
              s.author ?? '-',
              s.reason,
            ]),
          ),
        );
      },
    );

  silence
    .command('remove')
    .description('remove silences by id')
    .argument('<silence-id...>', 'as printed by silence add / silence list')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm silence remove 3f9a1c07 7be01d22')
    .action(async (ids: string[], options: { json?: boolean }, command: Command) => {
      const invalid = ids.filter((id) => !SILENCE_ID.test(id));
      if (invalid.length > 0)
        throw new UsageError(
          `silence id ${invalid.map((id) => `"${id}"`).join(', ')} is not valid`,
        );
      const config = loadCliConfig(command);
      const unique = [...new Set(ids)];
      const outcome = await withStore(config, async (store) => {
        const removed: string[] = [];
        const missing: string[] = [];
        for (const id of unique) ((await store.removeSilence(id)) ? removed : missing).push(id);
        return { removed, missing };
      });
      if (outcome.missing.length > 0) {
        const done = outcome.removed.length > 0 ? ` (removed ${outcome.removed.join(', ')})` : '';
        throw new UsageError(`no silence with id ${outcome.missing.join(', ')}${done}`);
      }
      if (options.json) printJson({ ok: true, removed: outcome.removed });
      else for (const id of outcome.removed) printLine(`removed ${id}`);
    });
}

function describeIsp(s: Silence): string {
  if (s.isp === undefined) return '*';
  return s.caseSensitive ? `${s.isp} (case-sensitive)` : s.isp;
}

function describeStart(s: Silence, now: number): string {
  const at = s.startsAt ?? s.createdAt;
  return at > now ? `${formatUtc(at)} (in ${formatDuration(at - now)})` : formatUtc(at);
}

function describeEnd(s: Silence, now: number): string {
  const relative =
    s.expiresAt > now
      ? `in ${formatDuration(s.expiresAt - now)}`
      : `${formatDuration(now - s.expiresAt)} ago`;
  return `${formatUtc(s.expiresAt)} (${relative})`;
}
