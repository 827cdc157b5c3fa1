import type { Command } from 'commander';
import { createLogger } from '../../log.js';
import { printLine } from '../output.js';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'the embedded end-to-end demonstration: sandbox API, real worker and queue, eight days, e-mails in ./outbox',
    )
    .option(
      '--keep',
      "leave the demo's Redis keys and write ./thm-demo/thm.yaml, with the commands to explore them",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ npm run demo\n  $ npx thm demo --keep                      # then: npx thm --config thm-demo/thm.yaml status\n  $ SMTP_URL=smtp://127.0.0.1:1025 thm demo   # send to a mail catcher instead',
    )
    .action(async (options: { keep?: boolean }) => {
      const { runDemo } = await import('../../demo/demo.js');
      const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn' });
      await runDemo({ env: process.env, logger, out: printLine, keep: options.keep === true });
    });
}
