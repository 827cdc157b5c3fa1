import type { Command } from 'commander';
import { createLogger } from '../../log.js';
import { printLine } from '../output.js';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'the embedded end-to-end demonstration: sandbox API, real worker and queue, eight days, e-mails in ./outbox',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ npm run demo\n  $ SMTP_URL=smtp://127.0.0.1:1025 thm demo   # send to a mail catcher instead',
    )
    .action(async () => {
      const { runDemo } = await import('../../demo/demo.js');
      const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn' });
      await runDemo({ env: process.env, logger, out: printLine });
    });
}
