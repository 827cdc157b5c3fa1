import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { ResponseValidationError, parseIspTrendsResponse } from '../api/validate.js';
import { isIsoDate } from '../dates.js';
import { UsageError } from '../errors.js';
import type { IsoDate } from '../monitor/types.js';
import { listingColumns, type ListingColumns } from '../store/listing-codec.js';

/*
 * A listing file, for `thm replay --listings FILE` (docs/replay.md): a network's listing
 * history exported elsewhere, as JSON lines, one as-of date a line, oldest first:
 *
 *   {"asOf": "2026-11-20", "entries": [ ...isptrends entries exactly as the API returns them... ]}
 *
 * Each line is checked as the worker checks the API's answer (api/validate.ts), and no line may
 * be longer than the worker takes an answer to be (api.maxResponseBytes). The first problem
 * ends the read with one line naming the file's line; nothing is replayed. Each day is kept in
 * the compact form the store keeps (store/listing-codec.ts), so that a long file is not held
 * as objects.
 */

export interface FileListing {
  asOf: IsoDate;
  listing: ListingColumns;
}

const lineSchema = z.looseObject({
  asOf: z.string().refine(isIsoDate, 'must be a date YYYY-MM-DD'),
  entries: z.array(z.unknown()),
});

export async function readListingFile(file: string, maxLineBytes: number): Promise<FileListing[]> {
  const days: FileListing[] = [];
  const fail = (line: number | undefined, message: string): never => {
    throw new UsageError(
      `--listings ${file}: ${line === undefined ? '' : `line ${line}: `}${message}`,
    );
  };
  try {
    for await (const { number, text } of fileLines(file, maxLineBytes)) {
      if (text.trim() === '') continue;
      const day = parseLine(text, (message) => fail(number, message));
      const previous = days[days.length - 1];
      if (previous && day.asOf <= previous.asOf) {
        fail(
          number,
          `asOf ${day.asOf} does not come after the line before's (${previous.asOf}): one line per as-of date, oldest first`,
        );
      }
      days.push(day);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof LineTooLong)
      fail(error.line, `longer than ${maxLineBytes} bytes (api.maxResponseBytes)`);
    const code = (error as NodeJS.ErrnoException).code;
    fail(undefined, `cannot be read (${code ?? (error instanceof Error ? error.message : error)})`);
  }
  if (days.length === 0) fail(undefined, 'holds no listing');
  return days;
}

function parseLine(text: string, fail: (message: string) => never): FileListing {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    fail(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const envelope = lineSchema.safeParse(value);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    fail(`${where}${issue?.message.replace(/^Invalid input: /, '') ?? 'invalid'}`);
  }
  try {
    const { entries } = parseIspTrendsResponse(value);
    return { asOf: envelope.data.asOf, listing: listingColumns(entries) };
  } catch (error) {
    if (error instanceof ResponseValidationError) fail(error.message);
    throw error;
  }
}

class LineTooLong extends Error {
  constructor(readonly line: number) {
    super(`line ${line} too long`);
  }
}

/**
 * The file's lines with their numbers (1-based), as UTF-8 text without the line end. A line
 * longer than `maxBytes` stops the read as soon as it is: it is never held whole.
 */
async function* fileLines(
  file: string,
  maxBytes: number,
): AsyncGenerator<{ number: number; text: string }> {
  let parts: Buffer[] = [];
  let length = 0;
  let number = 1;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
      length += end - start;
      if (length > maxBytes) throw new LineTooLong(number);
      parts.push(chunk.subarray(start, end));
      yield { number, text: lineText(parts) };
      parts = [];
      length = 0;
      number += 1;
      start = end + 1;
    }
    length += chunk.length - start;
    if (length > maxBytes) throw new LineTooLong(number);
    if (start < chunk.length) parts.push(chunk.subarray(start));
  }
  if (parts.length > 0) yield { number, text: lineText(parts) };
}

/** A line's text: a CR before its LF and a byte-order mark at its start are not part of it. */
function lineText(parts: Buffer[]): string {
  let text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}
