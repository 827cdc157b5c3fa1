import { alertsSchema } from '../config/schema.js';
import type { AlertSettings } from '../monitor/alert-settings.js';
import { closest, describeIssues } from '../config/problems.js';
import { UsageError } from '../errors.js';
import type { ReplayVariant } from './replay.js';

/*
 * `thm replay --set alerts.KEY=VALUE`: other alert settings to replay with, checked by the
 * config's own schema (config/schema.ts, alertsSchema), so a value the config file would refuse
 * is refused here with the same words. Without --compare every --set applies to one replay;
 * with it each --set is a replay of its own beside the configured settings, and one --set may
 * change several keys, comma-separated (`--set alerts.minDropPercent=30,alerts.clearAfterRuns=3`).
 */

const PREFIX = 'alerts.';

/** The replays to run: the configured settings changed by `sets`, as the module says. */
export function replayVariants(
  configured: AlertSettings,
  sets: readonly string[],
  compare: boolean,
): ReplayVariant[] {
  if (!compare) {
    const changes = sets.flatMap(assignments);
    return [
      {
        label: changes.length === 0 ? 'as configured' : changes.map((c) => c.label).join(','),
        alerts: withChanges(configured, changes),
      },
    ];
  }
  if (sets.length === 0)
    throw new UsageError('--compare: give the settings to compare, one --set each');
  return [
    { label: 'as configured', alerts: configured },
    ...sets.map((set) => {
      const changes = assignments(set);
      return {
        label: changes.map((c) => c.label).join(','),
        alerts: withChanges(configured, changes),
      };
    }),
  ];
}

interface Assignment {
  /** As written, trimmed: `alerts.minDropPercent=30`. */
  text: string;
  /** As a replay's label shows it: `minDropPercent=30`. */
  label: string;
  key: string;
  value: unknown;
}

/** The assignments of one --set, each key checked against the schema's. */
function assignments(set: string): Assignment[] {
  return set.split(',').map((part) => {
    const text = part.trim();
    const eq = text.indexOf('=');
    if (!text.startsWith(PREFIX) || eq < 0)
      throw new UsageError(
        `--set ${text}: expected alerts.KEY=VALUE (e.g. alerts.minDropPercent=30)`,
      );
    const key = text.slice(PREFIX.length, eq);
    const known = Object.keys(alertsSchema.shape);
    if (!known.includes(key)) {
      const guess = closest(key, known);
      throw new UsageError(
        `--set ${text}: unknown setting "${PREFIX}${key}"${guess ? ` (did you mean "${PREFIX}${guess}"?)` : ''}`,
      );
    }
    const value = text.slice(eq + 1).trim();
    return { text, label: `${key}=${value}`, key, value: valueOf(value) };
  });
}

/** A value as the config file's YAML would read it: a number, true or false, else text. */
function valueOf(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw !== '' && Number.isFinite(Number(raw))) return Number(raw);
  return raw;
}

function withChanges(configured: AlertSettings, changes: readonly Assignment[]): AlertSettings {
  const raw: Record<string, unknown> = { ...configured };
  for (const change of changes) raw[change.key] = change.value;
  const result = alertsSchema.safeParse(raw, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = String(issue.path[0] ?? '');
  const change = [...changes].reverse().find((c) => c.key === key);
  const [problem] = describeIssues([issue], alertsSchema);
  throw new UsageError(
    `--set ${change?.text ?? changes.map((c) => c.text).join(',')}: ${PREFIX}${problem}`,
  );
}
