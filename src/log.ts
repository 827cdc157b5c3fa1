import type { DestinationStream, Logger } from 'pino';
import { loadPino } from './cjs-packages.js';

export type { Logger } from 'pino';

/**
 * The one logger factory. Logs go to stderr (stdout belongs to `--json` output and to the
 * sandbox's ready line): JSON lines by default, pretty when stderr is a terminal.
 *
 * Secrets are kept out at this one place, by configuration: any field with one of these names,
 * at the top level or one level down, is censored. API keys also travel as `Secret`, which
 * serialises as [redacted], so a key cannot reach a line even under another field name.
 */
const SECRET_FIELDS = [
  'apiKey',
  'key',
  'password',
  'pass',
  'authorization',
  'x-service-api-key',
  'smtpUrl',
  'redisUrl',
];
export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  'headers["x-service-api-key"]',
  '*.headers["x-service-api-key"]',
];

export interface LoggerOptions {
  level?: string;
  /** Force pretty (true) or JSON (false); default: pretty when stderr is a TTY. */
  pretty?: boolean;
  /** Where to write; default stderr. Tests pass a stream to grep the output. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const pino = loadPino();
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const base = {
    level,
    base: { pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  if (options.destination) return pino(base, options.destination as DestinationStream);
  const pretty = options.pretty ?? Boolean(process.stderr.isTTY);
  if (pretty) {
    return pino({
      ...base,
      transport: {
        target: 'pino-pretty',
        options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    });
  }
  return pino(base, pino.destination({ dest: 2, sync: false }));
}

/**
 * A logger that writes nothing (pure tests; a CLI command's Redis connection, which reports its
 * problems in its one-line error instead). Made at its first use: a command whose logger never
 * logs does not load pino.
 */
export const silentLogger: Logger = createdOnFirstUse(() => loadPino()({ level: 'silent' }));

/** The logger `create` makes, made when it is first used (see silentLogger). */
export function createdOnFirstUse(create: () => Logger): Logger {
  let logger: Logger | undefined;
  const made = () => (logger ??= create());
  return new Proxy({} as Logger, {
    get(_, property) {
      const value: unknown = Reflect.get(made(), property, made());
      return typeof value === 'function' ? value.bind(made()) : value;
    },
    set: (_, property, value) => Reflect.set(made(), property, value, made()),
    has: (_, property) => Reflect.has(made(), property),
  });
}
