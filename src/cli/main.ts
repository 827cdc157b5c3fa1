import { writeSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_FAILED, EXIT_USAGE, exitCodeFor, isExpectedError } from '../errors.js';
import { versionLine } from './commands/version.js';
import { printJsonFailure, wantsJson } from './output.js';

type Register = (program: Command) => void;

/**
 * Each top-level command and the module that registers it (`history.ts` also holds `invoices`,
 * `config-check.ts` the config commands), in the order help lists them. A command line that
 * names one of them loads that module alone: a command's module imports what its action uses
 * (the API's schemas, the run's queue, the YAML writer), and every module loaded is source that
 * Node reads and compiles before the command can start (P7, docs/performance.md).
 */
export const COMMAND_MODULES: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['worker', async () => (await import('./commands/worker.js')).registerWorkerCommand],
  ['run', async () => (await import('./commands/run.js')).registerRunCommand],
  ['status', async () => (await import('./commands/status.js')).registerStatusCommand],
  ['history', async () => (await import('./commands/history.js')).registerHistoryCommands],
  ['invoices', async () => (await import('./commands/history.js')).registerHistoryCommands],
  ['replay', async () => (await import('./commands/replay.js')).registerReplayCommand],
  ['silence', async () => (await import('./commands/silence.js')).registerSilenceCommands],
  ['notify', async () => (await import('./commands/notify.js')).registerNotifyCommands],
  ['config', async () => (await import('./commands/config-check.js')).registerConfigCommands],
  ['demo', async () => (await import('./commands/demo.js')).registerDemoCommand],
  ['sandbox', async () => (await import('./commands/sandbox.js')).registerSandboxCommand],
  ['api', async () => (await import('./commands/api.js')).registerApiCommand],
  ['version', async () => (await import('./commands/version.js')).registerVersionCommand],
];

/**
 * The command an argument list names: its first word that is not an option or the value of
 * `-c`/`--config` (the program's one option that takes a value). Undefined: none (`thm`,
 * `thm --help`, `thm --version`).
 */
export function namedCommand(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '-c' || arg === '--config') i += 1;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The `thm` command line, with the command `argv` names registered, or every command when it
 * names none of them (help, a misspelt command, which commander then suggests the right one
 * for). Each command group lives in a file under commands/ and registers itself here. Expected
 * errors (ThmError) print one line and exit 1 or 2; anything else is a bug and prints its stack.
 */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('thm')
    .description(
      'Traffic Health Monitor: watches tracking domains for ISP traffic drops and e-mails what changed.',
    )
    .option('-c, --config <file>', 'config file (YAML or JSON); default $THM_CONFIG or ./thm.yaml')
    .version(versionLine(), '-V, --version', 'the version and the storage format it writes')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  const name = namedCommand(argv);
  const named = COMMAND_MODULES.find(([command]) => command === name);
  const loaders = named ? [named[1]] : COMMAND_MODULES.map(([, load]) => load);
  const registers = await Promise.all(loaders.map((load) => load()));
  for (const register of new Set(registers)) register(program);
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
  try {
    const program = await buildProgram(argv);
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
