import { writeSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_FAILED, EXIT_USAGE, exitCodeFor, isExpectedError } from '../errors.js';
import { registerApiCommand } from './commands/api.js';
import { registerConfigCommands } from './commands/config-check.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerHistoryCommands } from './commands/history.js';
import { registerNotifyCommands } from './commands/notify.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerRunCommand } from './commands/run.js';
import { registerSilenceCommands } from './commands/silence.js';
import { registerStatusCommand } from './commands/status.js';
import { registerVersionCommand, versionLine } from './commands/version.js';
import { registerWorkerCommand } from './commands/worker.js';
import { printJsonFailure, wantsJson } from './output.js';

/**
 * The `thm` command line. Each command group lives in a file under commands/ (`history.ts`
 * also holds `invoices`, `config-check.ts` the config commands) and registers itself here. Expected errors (ThmError) print one line and exit 1 or 2; anything else is a
 * bug and prints its stack.
 */
export function buildProgram(): Command {
  const program = new Command('thm')
    .description(
      'Traffic Health Monitor: watches tracking domains for ISP traffic drops and e-mails what changed.',
    )
    .option('-c, --config <file>', 'config file (YAML or JSON); default $THM_CONFIG or ./thm.yaml')
    .version(versionLine(), '-V, --version', 'the version and the storage format it writes')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  registerWorkerCommand(program);
  registerRunCommand(program);
  registerStatusCommand(program);
  registerHistoryCommands(program);
  registerReplayCommand(program);
  registerSilenceCommands(program);
  registerNotifyCommands(program);
  registerConfigCommands(program);
  registerDemoCommand(program);
  registerSandboxCommand(program);
  registerApiCommand(program);
  registerVersionCommand(program);
  program.addHelpText(
    'after',
    [
      '',
      'Examples:',
      '  $ npm run demo                           the whole thing end to end, nothing configured',
      '  $ thm config check                       validate ./thm.yaml and its keys',
      '  $ thm worker                             run the daemon',
      '  $ thm run traffic-check --all --wait     check every network now and print what changed',
      '  $ thm status --check                     exit 1 when a network is overdue or has a problem',
      "  $ thm silence add --network acme --isp 'Comcast' --for 7d --reason 'ticket 4411'",
      '  $ thm replay --network acme --since 30d --set alerts.minSignificance=5',
      '  $ thm <command> --help                   options and more examples of one command',
      '',
      'Exit codes: 0 success, 1 a job or check failed, 2 usage or config error.',
    ].join('\n'),
  );
  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    // With --json a failure is one JSON document on stdout, as a success is; the line on
    // stderr stays for the person reading along.
    const json = wantsJson(argv);
    if (error instanceof CommanderError) {
      // --help and --version exit through here with code 0.
      if (error.exitCode === 0) return 0;
      if (json) printJsonFailure('THM_USAGE', error.message.replace(/^error: /, ''));
      return EXIT_USAGE;
    }
    if (isExpectedError(error)) {
      if (json) {
        printJsonFailure(error.code, error.message, {
          error: error.status !== undefined ? { status: error.status } : {},
        });
      }
      process.stderr.write(`thm: ${error.message}\n`);
      return exitCodeFor(error);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (json) printJsonFailure('THM_INTERNAL', `unexpected error: ${message}`);
    process.stderr.write(
      `thm: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_FAILED;
  }
}

/**
 * A promise nobody awaited rejected, or an exception nobody caught: a bug. One JSON line on
 * stderr (the worker's log format; the stack inside it, not across lines), then exit 1 rather
 * than going on in an unknown state. Written synchronously: the logger buffers.
 */
function exitOnUnhandled(
  kind: 'unhandled rejection' | 'uncaught exception',
  error: unknown,
): never {
  const err =
    error instanceof Error
      ? { type: error.name, message: error.message, stack: error.stack }
      : { message: String(error) };
  try {
    writeSync(
      2,
      `${JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, err, msg: `${kind}: ${err.message}` })}\n`,
    );
  } finally {
    process.exit(EXIT_FAILED);
  }
}

/**
 * A one-shot command is done (a daemon's action never returns): exit as soon as what it wrote
 * to stdout and stderr is handed to the OS, not when the event loop happens to empty. Libraries
 * keep timers past the command's work: after a large reply, redis-parser shrinks its buffer
 * pool on a 50 ms interval for up to a second, and `thm run --wait` stayed that long after its
 * answer. The logger flushes itself on exit.
 */
function exitWhenWritten(code: number): void {
  const pending = [process.stdout, process.stderr].filter((s) => s.writableLength > 0);
  let left = pending.length;
  if (left === 0) process.exit(code);
  for (const stream of pending)
    stream.once('drain', () => {
      left -= 1;
      if (left === 0) process.exit(code);
    });
  // A reader that stops reading does not keep the process either.
  setTimeout(() => process.exit(code), 1_000).unref();
}

/** Entry point of bin/thm.js. */
export function main(): void {
  process.on('unhandledRejection', (reason) => exitOnUnhandled('unhandled rejection', reason));
  process.on('uncaughtException', (error) => exitOnUnhandled('uncaught exception', error));
  // `thm status | head`: a reader that goes away is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      exitWhenWritten(code);
    },
    (error: unknown) => {
      process.stderr.write(`thm: ${String(error)}\n`);
      process.exitCode = EXIT_FAILED;
    },
  );
}
