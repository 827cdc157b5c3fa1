import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import { handleSignals } from '../../jobs/signals.js';
import { cliLogger, globalOptions } from '../context.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'the daemon: reconcile one job scheduler per network and kind, process jobs until SIGTERM/SIGINT; SIGHUP reloads the config',
    )
    .addHelpText(
      'after',
      '\nExample:\n  $ REDIS_URL=redis://redis:6379 thm worker --config /etc/thm/thm.yaml',
    )
    .action(async (_options: unknown, command: Command) => {
      // A reload reads the same file, with this process's environment, again. The worker calls
      // the API: a key that does not resolve refuses the config, at start as on a reload.
      const file = globalOptions(command).config;
      const config = loadConfig({ file, readSecrets: true });
      const logger = cliLogger(config);
      // Loaded on demand: the other commands start without the whole daemon. The signals are
      // handled from now on, the start-up included.
      const starting = import('../../jobs/worker.js').then(({ startWorker }) =>
        startWorker(config, logger, {
          loadConfig: () => loadConfig({ file, reload: true, readSecrets: true }),
          // Its line written first, then exit 1: the supervisor starts a worker that can work.
          onConnectionEnded: () => {
            process.exitCode = 1;
            setTimeout(() => process.exit(1), 1_000);
            logger.flush(() => process.exit(1));
          },
        }),
      );
      handleSignals(starting, logger);
      await starting;
      // The process now lives on the workers' connections until a signal closes them.
      await new Promise<never>(() => undefined);
    });
}
