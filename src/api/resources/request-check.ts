import type { z } from 'zod';
import { ThmError } from '../../errors.js';
import { formatPath } from '../validate.js';

/**
 * Checking a request body against the rules the API spec states, before it is sent (the client)
 * or when it arrives (the sandbox). Both sides use the same rule functions (one place per fact);
 * each problem names its field the same way response validation does (`columns[2].column`).
 */

/** One broken rule: the field (path) and what is wrong with it. */
export interface RequestProblem {
  field: string;
  problem: string;
}

/** `email: must be an e-mail address` */
export function formatProblem(p: RequestProblem): string {
  return p.field ? `${p.field}: ${p.problem}` : p.problem;
}

/** Every problem zod finds, as field/problem pairs (an unknown key is named as the field). */
export function problemsOf(schema: z.ZodType, value: unknown): RequestProblem[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  const problems: RequestProblem[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({
          field: formatPath([...issue.path, key]),
          problem: 'not a field of this request',
        });
      }
      continue;
    }
    problems.push({
      field: formatPath(issue.path),
      problem: issue.message.replace(/^Invalid input: /, ''),
    });
  }
  return problems;
}

/** A body's fields as a record (anything else: none), for rules that read several fields. */
export function fieldsOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

/**
 * Field problems (types, enums, formats) and rule problems (conditions across fields) together.
 * The rules run on the raw body even when a field is mistyped, so one answer lists every broken
 * rule (a zod refinement would be skipped then); a field reported already is not named twice.
 */
export function combineProblems(
  fieldProblems: RequestProblem[],
  ruleProblems: RequestProblem[],
): RequestProblem[] {
  const named = new Set(fieldProblems.map((p) => p.field));
  return [...fieldProblems, ...ruleProblems.filter((p) => !named.has(p.field))];
}

/**
 * A request the client refuses to send. `field` is the first broken rule's field; the message
 * lists the first problem and how many more there are.
 */
export class RequestValidationError extends ThmError {
  readonly field: string;
  readonly problems: RequestProblem[];

  /** `note`: said after the problems (e.g. how to send the request anyway). */
  constructor(what: string, problems: RequestProblem[], note?: string) {
    const first = problems[0] ?? { field: '', problem: 'invalid' };
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : '';
    super(
      'THM_API_REQUEST_INVALID',
      `${what}: ${formatProblem(first)}${more}${note ? `; ${note}` : ''}`,
    );
    this.name = 'RequestValidationError';
    this.field = first.field;
    this.problems = problems;
  }
}

/** Throws RequestValidationError when there is any problem. */
export function assertNoProblems(what: string, problems: RequestProblem[]): void {
  if (problems.length > 0) throw new RequestValidationError(what, problems);
}

/** A path parameter that must be a positive integer ID (advertiserId, creativeId). */
export function checkId(what: string, field: string, value: unknown): number {
  assertNoProblems(what, idProblems(field, value));
  return value as number;
}

/** The same rule as a list of problems (empty when `value` is a positive integer). */
export function idProblems(field: string, value: unknown): RequestProblem[] {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
    ? []
    : [{ field, problem: 'must be a positive integer' }];
}

/** A query parameter that must be a positive integer when present (page, page_size). */
export function positiveIntegerParamProblems(
  query: URLSearchParams,
  names: readonly string[],
): RequestProblem[] {
  return names.flatMap((name) =>
    query
      .getAll(name)
      .flatMap((value) =>
        /^[1-9]\d*$/.test(value) ? [] : [{ field: name, problem: 'must be a positive integer' }],
      ),
  );
}
