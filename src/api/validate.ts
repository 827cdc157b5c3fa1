import { z } from 'zod';
import {
  documentedIspTrendsResponseSchema,
  ispTrendsResponseSchema,
  type IspTrendsResponse,
} from './schemas.js';

/**
 * Validation of API responses with zod, with one message format:
 * `entries[17].yesterday_total_clicks: expected number, received string`.
 */

export class ResponseValidationError extends Error {
  /** e.g. `entries[17].yesterday_total_clicks` */
  readonly path: string;
  constructor(path: string, detail: string, extra = '') {
    super(`${path ? `${path}: ` : ''}${detail}${extra}`);
    this.name = 'ResponseValidationError';
    this.path = path;
  }
}

/** `["entries", 17, "relationship", "url"]` -> `entries[17].relationship.url` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function issueDetail(issue: z.core.$ZodIssue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/** Parses `value` with a zod schema; on failure throws naming the first issue's path. */
export function parseWithSchema<T>(
  schema: z.ZodType<T>,
  value: unknown,
  prefix: PropertyKey[] = [],
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0];
  if (!first) throw new ResponseValidationError(formatPath(prefix), 'invalid');
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue(s))` : '';
  throw new ResponseValidationError(
    formatPath([...prefix, ...first.path]),
    issueDetail(first),
    more,
  );
}

/**
 * Validates a parsed isptrends body as a traffic-check reads it: every entry, the fields it
 * reads (api/schemas.ts, ispTrendSchema). A bad body names its first invalid entry's field and
 * how many entries are invalid in all.
 */
export function parseIspTrendsResponse(value: unknown): IspTrendsResponse {
  return parseEntries(ispTrendsResponseSchema, value);
}

/** The same, every documented field checked and any other kept: the answer `thm api` prints. */
export function parseDocumentedIspTrends(value: unknown): unknown {
  return parseEntries(documentedIspTrendsResponseSchema, value);
}

function parseEntries<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0];
  if (!first) throw new ResponseValidationError('', 'invalid');
  const badEntries = new Set<number>();
  for (const issue of issues) {
    const [field, index] = issue.path;
    if (field === 'entries' && typeof index === 'number') badEntries.add(index);
  }
  const more =
    badEntries.size > 1
      ? ` (${badEntries.size} invalid entries in all)`
      : badEntries.size === 0 && issues.length > 1
        ? ` (and ${issues.length - 1} more issue(s))`
        : '';
  throw new ResponseValidationError(formatPath(first.path), issueDetail(first), more);
}
