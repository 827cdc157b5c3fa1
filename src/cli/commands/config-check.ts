import type { Command } from 'commander';
import { stringify as toYaml } from 'yaml';
import { checkConfig } from '../../config/check.js';
import { redactedConfig } from '../../config/load.js';
import { EXIT_USAGE } from '../../errors.js';
import { globalOptions } from '../context.js';
import { printJson, printJsonFailure, printLine } from '../output.js';

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description(
      'validate the config and resolve every key; list every problem and warning at once; print the effective config, secrets redacted',
    )
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm config check --config /etc/thm/thm.yaml')
    .action((options: { json?: boolean }, command: Command) => {
      const {
        config: effective,
        source,
        problems,
        warnings,
      } = checkConfig({
        file: globalOptions(command).config,
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
      if (options.json) {
        printJson({ ok: true, warnings, config: doc });
        return;
      }
      for (const w of warnings) process.stderr.write(`warning: ${w.field}: ${w.message}\n`);
      printLine(
        `# ${effective.source}: OK (${effective.networks.length} network${effective.networks.length === 1 ? '' : 's'}, keys resolved${warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''})`,
      );
      process.stdout.write(toYaml(doc));
    });
}
