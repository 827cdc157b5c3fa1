import { z } from 'zod';
import { ispTrendSchema, ispTrendsResponseSchema, type IspTrendsResponse } from './schemas.js';

/**
 * Validation of API responses, with one message format: `entries[17].yesterday_total_clicks:
 * expected number, received string`.
 *
 * Why a fast path: zod's parse of 10,000 ISP trend entries costs about 80% of the JSON.parse of
 * the same body (measured: 25 ms vs 30 ms), and target P1 (docs/performance.md) allows the whole
 * traffic-check 1.5x of fetch + JSON.parse. So the entries array is checked by plain
 * predicates, derived from `ispTrendSchema` itself: each field's zod schema is matched against
 * a small set of candidate predicates by probing both with the same values, and a candidate is
 * used only when it agrees with zod on every probe. zod stays the single source of truth for
 * the field list and the types; a field no candidate matches makes the whole entry schema fall
 * back to zod (correct, only slower). When an entry fails the fast check, zod parses that entry
 * to produce the message, so both paths report exactly the same text.
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

type Check = (value: unknown) => boolean;

/**
 * Predicates a field schema may turn out to be; the first that agrees with zod wins. Each comes
 * twice: as a function (probed against zod) and as the same test in source form, from which
 * the entry check is generated as one function with static property reads (V8 then inlines
 * them: about 4x faster than calling one closure per field, measured on 10,000 entries).
 */
interface Candidate {
  test: Check;
  source: (v: string) => string;
}

const FINITE = (v: string) => `(typeof ${v} === 'number' && Number.isFinite(${v}))`;
const CANDIDATES: readonly Candidate[] = [
  { test: (v) => typeof v === 'string', source: (v) => `typeof ${v} === 'string'` },
  { test: (v) => typeof v === 'boolean', source: (v) => `typeof ${v} === 'boolean'` },
  {
    test: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0,
    source: (v) => `(Number.isSafeInteger(${v}) && ${v} >= 0)`,
  },
  { test: (v) => Number.isSafeInteger(v), source: (v) => `Number.isSafeInteger(${v})` },
  { test: (v) => typeof v === 'number' && Number.isFinite(v), source: FINITE },
  {
    test: (v) => v === null || v === undefined || (typeof v === 'number' && Number.isFinite(v)),
    source: (v) => `(${v} === null || ${v} === undefined || ${FINITE(v)})`,
  },
  {
    test: (v) => v === null || (typeof v === 'number' && Number.isFinite(v)),
    source: (v) => `(${v} === null || ${FINITE(v)})`,
  },
  {
    test: (v) => v === undefined || (typeof v === 'number' && Number.isFinite(v)),
    source: (v) => `(${v} === undefined || ${FINITE(v)})`,
  },
];

const PROBES: readonly unknown[] = [
  0,
  1,
  -1,
  1.5,
  -0.5,
  2 ** 53,
  -(2 ** 53),
  1e300,
  Number.NaN,
  Infinity,
  'x',
  '',
  '1',
  null,
  undefined,
  true,
  false,
  {},
  [],
  [1],
];
const SAMPLES: readonly unknown[] = [0, 'x', true, null];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function agrees(schema: z.ZodType, test: Check): boolean {
  return PROBES.every((probe) => schema.safeParse(probe).success === test(probe));
}

interface Compiled {
  /** Source of a boolean expression testing the value held in variable `v`. */
  source: (v: string) => string;
  /** A value the expression accepts (to check zod accepts it too). */
  sample: unknown;
}

/**
 * A predicate equivalent to a zod object schema (fields of the kinds above, nested objects),
 * or undefined when some field is of a kind this module does not know.
 */
export function compileObjectCheck(schema: z.ZodType): Check | undefined {
  const compiled = compileObject(schema);
  if (!compiled) return undefined;
  // Generated from our own templates and JSON-quoted field names only, never from input data.
  return new Function('value', `return ${compiled.source('value')};`) as Check;
}

function compileObject(schema: z.ZodType): Compiled | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  const parts: Array<(v: string) => string> = [];
  // An object the compiled check accepts, with an extra field: zod must accept it too (a loose
  // object), else the fast path would accept what zod refuses.
  const sample: Record<string, unknown> = { __extra_field_probe: 1 };
  for (const [key, fieldSchema] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const access = (v: string) => `${v}[${JSON.stringify(key)}]`;
    if (fieldSchema instanceof z.ZodObject) {
      const nested = compileObject(fieldSchema);
      if (!nested) return undefined;
      parts.push((v) => nested.source(access(v)));
      sample[key] = nested.sample;
      continue;
    }
    const candidate = CANDIDATES.find((c) => agrees(fieldSchema, c.test));
    if (!candidate) return undefined;
    const value = SAMPLES.find((v) => candidate.test(v));
    if (value === undefined && !candidate.test(undefined)) return undefined;
    parts.push((v) => candidate.source(access(v)));
    sample[key] = value;
  }
  if (!schema.safeParse(sample).success) return undefined;
  return {
    source: (v) =>
      `(typeof ${v} === 'object' && ${v} !== null && !Array.isArray(${v})` +
      parts.map((part) => ` && ${part(v)}`).join('') +
      ')',
    sample,
  };
}

/**
 * The entries' compiled check, made on first use: made at import, it was ~6 ms (zod parsing
 * its probes) of every CLI command whose modules share a chunk with this one, `thm run`
 * included (target P7, docs/performance.md).
 */
let compiledEntryCheck: Check | undefined | null = null;
function entryCheck(): Check | undefined {
  if (compiledEntryCheck === null) compiledEntryCheck = compileObjectCheck(ispTrendSchema);
  return compiledEntryCheck;
}

/** Whether ISP trend entries are checked by the fast path (a test keeps this true). */
export function ispTrendFastPath(): boolean {
  return entryCheck() !== undefined;
}

/**
 * Validates a parsed isptrends body without copying it. Entries are returned as sent (extra
 * fields kept), exactly as the loose zod schema would.
 */
export function parseIspTrendsResponse(value: unknown): IspTrendsResponse {
  const fastEntryCheck = entryCheck();
  if (!fastEntryCheck || !isPlainObject(value) || !Array.isArray(value.entries)) {
    return parseWithSchema(ispTrendsResponseSchema, value);
  }
  const entries: unknown[] = value.entries;
  let firstBad = -1;
  let bad = 0;
  for (let i = 0; i < entries.length; i += 1) {
    if (!fastEntryCheck(entries[i])) {
      if (firstBad < 0) firstBad = i;
      bad += 1;
    }
  }
  if (firstBad >= 0) {
    const result = ispTrendSchema.safeParse(entries[firstBad]);
    // zod is the judge: should the predicates ever refuse what zod accepts, zod decides.
    if (result.success) return parseWithSchema(ispTrendsResponseSchema, value);
    const issue = result.error.issues[0];
    const path = formatPath(['entries', firstBad, ...(issue?.path ?? [])]);
    const more = bad > 1 ? ` (${bad} invalid entries in all)` : '';
    throw new ResponseValidationError(path, issue ? issueDetail(issue) : 'invalid entry', more);
  }
  return value as IspTrendsResponse;
}
