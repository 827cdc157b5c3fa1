import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { createLogger } from '../../log.js';
import type { Scenario } from '../../sandbox/index.js';

/**
 * `thm sandbox [--port N] [--scenario FILE|demo]`: the local API simulator as its own process.
 * On ready it prints exactly one JSON line on stdout, {"baseUrl":...,"keys":[...]}, so a
 * script can read it; logs go to stderr. SIGTERM or SIGINT closes it and exits 0. The control
 * surface (set the day, inject faults) is documented in src/sandbox/server.ts.
 */
export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('run the local partner API simulator (prints one JSON line with baseUrl and keys)')
    .option('--port <n>', 'port to listen on (0: a free one)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--scenario <file|demo>',
      'scenario file (YAML/JSON), or "demo" for the built-in story',
      'demo',
    )
    .option('--day <YYYY-MM-DD>', "start on this as-of date instead of the scenario's")
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ thm sandbox --port 8089',
        '  $ thm sandbox --scenario ./scenario.yaml',
        '  $ curl -X POST localhost:8089/__sandbox/day -d \'{"date":"2026-11-18"}\'',
      ].join('\n'),
    )
    .action(async (options: { port: string; host: string; scenario: string; day?: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new UsageError(`--port: must be an integer 0-65535 (got "${options.port}")`);
      }
      // The simulator loads here, not with the CLI: other commands start without it.
      const { builtinScenario, loadScenarioFile, startSandbox } =
        await import('../../sandbox/index.js');
      const scenario: Scenario =
        options.scenario === 'demo' ? builtinScenario('demo') : loadScenarioFile(options.scenario);
      const logger = createLogger();
      const sandbox = await startSandbox({ scenario, port, host: options.host, logger });
      if (options.day) sandbox.setDay(options.day);
      // Handlers first, ready line second: a signal sent as soon as the line is read is handled.
      const stopped = new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          logger.info({ signal }, 'sandbox stopping');
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          resolve();
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      process.stdout.write(`${JSON.stringify({ baseUrl: sandbox.baseUrl, keys: sandbox.keys })}\n`);
      await stopped;
      await sandbox.close();
    });
}
