import type { Command } from 'commander';
import { loadYaml } from '../../cjs-packages.js';
import { checkConfig } from '../../config/check.js';
import { redactedConfig } from '../../config/load.js';
import type { AccessCheck } from '../../api/access-check.js';
import { EXIT_FAILED, EXIT_USAGE } from '../../errors.js';
import { globalOptions } from '../context.js';
import { formatTable, printJson, printJsonFailure, printLine, writeLines } from '../output.js';

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description(
      'validate the config; list every problem and warning at once (a secret not readable here is a warning); print the effective config, secrets redacted',
    )
    .option('--json', 'print one JSON document')
    .option(
      '--online',
      "also read every secret (one that does not resolve is a problem) and ask each network's API (GET /networks/traffic/access) with it: reachable, realm, premium; exit 1 if any fails",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ thm config check --config /etc/thm/thm.yaml\n  $ thm config check --online',
    )
    .action(async (options: { json?: boolean; online?: boolean }, command: Command) => {
      const {
        config: effective,
        source,
        problems,
        warnings,
        unreadSecrets,
      } = checkConfig({
        file: globalOptions(command).config,
        readSecrets: options.online === true,
      });
      if (!effective) {
        process.exitCode = EXIT_USAGE;
        if (options.json) {
          printJsonFailure(
            'THM_CONFIG',
            `${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
            { error: { problems }, warnings },
          );
          return;
        }
        const err = (line: string) => process.stderr.write(`${line}\n`);
        if (problems.length === 1) err(`thm: ${problems[0] ?? ''}`);
        else {
          err(`thm: ${source}: ${problems.length} problems`);
          for (const problem of problems) err(`  ${problem}`);
        }
        for (const w of warnings) err(`warning: ${w.field}: ${w.message}`);
        return;
      }
      const doc = redactedConfig(effective);
      // Loaded only when asked: the API client (undici) is not needed to read a file.
      const online = options.online
        ? await (await import('../../api/access-check.js')).checkAccess(effective)
        : undefined;
      const failed = online?.some((c) => !c.ok) ?? false;
      if (failed) process.exitCode = EXIT_FAILED;
      if (options.json) {
        printJson({ ok: !failed, warnings, config: doc, ...(online ? { online } : {}) });
        return;
      }
      for (const w of warnings) process.stderr.write(`warning: ${w.field}: ${w.message}\n`);
      const keys =
        unreadSecrets === 0
          ? 'secrets resolved'
          : `${plural(unreadSecrets, 'secret')} not resolved here`;
      printLine(
        `# ${effective.source}: OK (${plural(effective.networks.length, 'network')}, ${keys}${warnings.length > 0 ? `, ${plural(warnings.length, 'warning')}` : ''})`,
      );
      process.stdout.write(loadYaml().stringify(doc));
      if (online) writeLines(onlineTable(online).map((line) => `# ${line}`.trimEnd()));
      if (failed)
        process.stderr.write(
          `thm: ${online!.filter((c) => !c.ok).length} of ${online!.length} networks failed the online check\n`,
        );
    });
}

/** The online check as a table, after the effective config (as YAML comments, so the output stays YAML). */
function onlineTable(checks: readonly AccessCheck[]): string[] {
  const yesNo = (value: boolean | undefined) => (value === undefined ? '?' : value ? 'yes' : 'no');
  return [
    "online: GET /networks/traffic/access with each network's key",
    ...formatTable(
      ['NETWORK', 'REACHABLE', 'REALM', 'PREMIUM', 'PROBLEM'],
      checks.map((c) => [
        c.network,
        yesNo(c.reachable),
        c.realm === 'unknown' ? '?' : c.realm,
        yesNo(c.premium),
        c.error ?? '',
      ]),
    ).split('\n'),
  ];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
