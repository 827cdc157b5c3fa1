import type { z } from 'zod';

/**
 * Config problems as people read them: one line per problem, the field's path in JS notation
 * first (`networks[0].alerts.minBaselineClicks: expected a number, got text`). An unknown
 * option gets a "did you mean" from the options allowed at that place; a wrongly typed field
 * says what type was expected (never its value: it may be a secret put in the wrong place).
 */

/** `networks[0].baseUrl`: the path in JS notation. */
export function formatIssuePath(issuePath: readonly PropertyKey[]): string {
  let out = '';
  for (const part of issuePath) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(root)';
}

/** Every issue as one line, in the schema's order. Pass the schema for "did you mean". */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  schema?: z.core.$ZodType,
): string[] {
  return issues.map((issue) => `${formatIssuePath(issue.path)}: ${describeIssue(issue, schema)}`);
}

/** One line: the first problem, and how many more there are. */
export function summarizeProblems(problems: readonly string[]): string {
  const [first] = problems;
  if (first === undefined) return 'invalid config';
  const more = problems.length - 1;
  return more > 0 ? `${first} (and ${more} more problem${more > 1 ? 's' : ''})` : first;
}

function describeIssue(issue: z.core.$ZodIssue, schema?: z.core.$ZodType): string {
  if (issue.code === 'unrecognized_keys') {
    const known = schema ? objectKeysAt(schema, issue.path) : [];
    return issue.keys
      .map((key) => {
        const guess = closest(key, known);
        return `unknown option "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
      })
      .join('; ');
  }
  if (issue.code === 'invalid_type') {
    // zod reports the input only when asked (`reportInput`); without it every wrong type
    // would read as missing.
    if (issue.input === undefined) return 'is required';
    return `expected ${article(issue.expected)}, got ${typeName(issue.input)}`;
  }
  return issue.message;
}

function article(type: string): string {
  const names: Record<string, string> = {
    number: 'a number',
    string: 'text',
    boolean: 'true or false',
    array: 'a list',
    object: 'a section (key: value lines)',
    int: 'a whole number',
  };
  return names[type] ?? type;
}

function typeName(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'true/false';
  if (typeof value === 'object') return 'a section';
  return typeof value;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
}

function defOf(schema: z.core.$ZodType): SchemaDef {
  return schema._zod.def as unknown as SchemaDef;
}

/** The options an object in the schema allows at `at` (through defaults, optionals, arrays). */
export function objectKeysAt(schema: z.core.$ZodType, at: readonly PropertyKey[]): string[] {
  let current: z.core.$ZodType | undefined = schema;
  const path = [...at];
  while (current) {
    const def = defOf(current);
    if (def.innerType) current = def.innerType;
    else if (def.type === 'pipe') current = def.in;
    else if (path.length === 0) return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
    else if (def.type === 'array') {
      path.shift();
      current = def.element;
    } else if (def.type === 'object') {
      current = def.shape?.[String(path.shift())];
    } else return [];
  }
  return [];
}

/** The candidate nearest to `word` by edit distance (case-insensitive), when near enough. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.max(1, Math.floor(word.length / 3));
  if (bestDistance <= allowed) return best;
  // A name cut short (`minBaseline` for `minBaselineClicks`) is far by edit distance: the one
  // option it begins, when it begins only one.
  const lower = word.toLowerCase();
  const begun = candidates.filter((c) => c.toLowerCase().startsWith(lower));
  return word.length >= 4 && begun.length === 1 ? begun[0] : undefined;
}

/** Levenshtein distance, with a transposition counted as one edit ("prefxi" -> "prefix"). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = value;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
