import type { Command } from 'commander';
import { redactedConfig } from '../../config/load.js';
import { loadCliConfig } from '../context.js';
import { printJson, printLine } from '../output.js';
import { stringify as toYaml } from 'yaml';

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description(
      'validate the config and resolve every key; print the effective config, secrets redacted',
    )
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  $ thm config check --config /etc/thm/thm.yaml')
    .action((options: { json?: boolean }, command: Command) => {
      const effective = loadCliConfig(command);
      const doc = redactedConfig(effective);
      if (options.json) {
        printJson({ ok: true, config: doc });
        return;
      }
      printLine(
        `# ${effective.source}: OK (${effective.networks.length} network${effective.networks.length === 1 ? '' : 's'}, keys resolved)`,
      );
      process.stdout.write(toYaml(doc));
    });
}
