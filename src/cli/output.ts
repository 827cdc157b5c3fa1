import type { ThmErrorCode } from '../errors.js';

/**
 * How the CLI talks to a person or a script: `--json` prints exactly one JSON document on
 * stdout; everything else (logs, progress) goes to stderr.
 *
 * Times: the records keep epoch milliseconds (`createdAt`, `finishedAt`, `since`, ...); in JSON
 * every one of them is ISO 8601 in UTC (`2026-11-17T07:00:03.120Z`), so a script never guesses
 * the unit. The rule is by name, here only: a number in a field ending in `At` or `Since` (or
 * named `since`).
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, isoTimes, 2)}\n`);
}

/** A document from elsewhere (the partner API's answer), printed exactly as it came. */
export function printJsonAsIs(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

const TIME_FIELD = /(?:At|Since)$|^since$/;

export function isoTimes(this: unknown, key: string, value: unknown): unknown {
  return typeof value === 'number' && TIME_FIELD.test(key) && Number.isFinite(value)
    ? new Date(value).toISOString()
    : value;
}

export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Several lines in one write (a long report's lines one by one cost a system call each). */
export function writeLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
}

/** A plain-text table with left-aligned columns. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The one JSON document of a failed command run with `--json`. */
export interface JsonFailure {
  ok: false;
  error: { code: ThmErrorCode; message: string } & Record<string, unknown>;
  [extra: string]: unknown;
}

export function printJsonFailure(
  code: ThmErrorCode,
  message: string,
  extra: { error?: Record<string, unknown>; [key: string]: unknown } = {},
): void {
  const { error, ...rest } = extra;
  const doc: JsonFailure = { ok: false, error: { code, message, ...error }, ...rest };
  printJson(doc);
}

/** Whether the command line asks for JSON (`--json` before any `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}
