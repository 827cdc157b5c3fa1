import type { ThmErrorCode } from '../errors.js';
import type { Config } from './load.js';
import { Secret } from './secret.js';
import { SecretSource } from './secret-source.js';

/**
 * What a config reload changes, for the worker's log line and to know what to redo: networks
 * added, removed and changed (by field path), global options that apply from the next job, and
 * those a running worker cannot take without a restart (its Redis connection, its monitoring
 * port, its SMTP transport, its BullMQ lock settings). Secrets are compared, never shown: a
 * changed key is reported as `apiKey`, not as its value.
 */
export interface ConfigChanges {
  added: string[];
  removed: string[];
  /** Per network that stayed: the changed field paths (`trafficCheck.cron`, `apiKey`, ...). */
  changed: Array<{ network: string; fields: string[] }>;
  /** Global option paths that apply from the next job (`api.attempts`, `mail.from`, ...). */
  applied: string[];
  /** Global option paths kept as they were until the worker restarts. */
  restartNeeded: string[];
}

/** What a reload gave: the changes applied, or the error that refused the config. */
export type ReloadResult =
  | { ok: true; changes: ConfigChanges }
  | { ok: false; error: { code: ThmErrorCode; message: string } };

/** Global options a running worker keeps (they shaped its connections and servers). */
const RESTART_ONLY = [
  'source',
  'redis.',
  'monitoring.',
  'mail.',
  'worker.lockDurationMs',
  'worker.stalledIntervalMs',
  'worker.sweepIntervalMs',
  'logLevel',
];

/** Fields of a network that decide its job schedulers. */
export const SCHEDULE_FIELDS = [
  'timezone',
  'trafficCheck.cron',
  'invoices.cron',
  'invoices.enabled',
] as const;

/**
 * The config a running worker goes on with after a reload: the new one, with the options it
 * cannot take (RESTART_ONLY) kept as they were, so they keep showing as changed until a restart.
 */
export function appliedConfig(before: Config, after: Config): Config {
  return {
    ...after,
    source: before.source,
    redis: before.redis,
    monitoring: before.monitoring,
    mail: before.mail,
    logLevel: before.logLevel,
    worker: {
      ...after.worker,
      lockDurationMs: before.worker.lockDurationMs,
      stalledIntervalMs: before.worker.stalledIntervalMs,
      sweepIntervalMs: before.worker.sweepIntervalMs,
    },
  };
}

export function configChanges(before: Config, after: Config): ConfigChanges {
  const oldNetworks = new Map(before.networks.map((n) => [n.id, n]));
  const newNetworks = new Map(after.networks.map((n) => [n.id, n]));
  const changed: ConfigChanges['changed'] = [];
  for (const [id, network] of newNetworks) {
    const previous = oldNetworks.get(id);
    if (!previous) continue;
    const fields = differingPaths(flatten(previous), flatten(network));
    if (fields.length > 0) changed.push({ network: id, fields });
  }
  const { networks: _oldNetworks, ...oldGlobal } = before;
  const { networks: _newNetworks, ...newGlobal } = after;
  const globals = differingPaths(flatten(oldGlobal), flatten(newGlobal)).filter(
    (path) => path !== 'source',
  );
  const restartOnly = (path: string) =>
    RESTART_ONLY.some((rule) => (rule.endsWith('.') ? path.startsWith(rule) : path === rule));
  return {
    added: [...newNetworks.keys()].filter((id) => !oldNetworks.has(id)),
    removed: [...oldNetworks.keys()].filter((id) => !newNetworks.has(id)),
    changed,
    applied: globals.filter((path) => !restartOnly(path)),
    restartNeeded: globals.filter(restartOnly),
  };
}

export function hasChanges(changes: ConfigChanges): boolean {
  return (
    changes.added.length +
      changes.removed.length +
      changes.changed.length +
      changes.applied.length +
      changes.restartNeeded.length >
    0
  );
}

/** Whether the job schedulers must be reconciled for these changes. */
export function schedulesChanged(changes: ConfigChanges, attemptsChanged: boolean): boolean {
  return (
    attemptsChanged ||
    changes.added.length > 0 ||
    changes.removed.length > 0 ||
    changes.changed.some((c) =>
      c.fields.some((f) => (SCHEDULE_FIELDS as readonly string[]).includes(f)),
    )
  );
}

/**
 * Leaf paths to comparable strings; a Secret or a SecretSource compares by its value (kept in
 * memory, never returned). List items are compared one by one and reported under the list's name.
 */
function flatten(
  value: unknown,
  prefix = '',
  out = new Map<string, string>(),
): Map<string, string> {
  if (value instanceof Secret) {
    out.set(prefix, `secret:${value.reveal()}`);
  } else if (value instanceof SecretSource) {
    // Read as the worker reads it on a reload (one that does not resolve refused that config).
    out.set(prefix, `secret:${value.readIfPossible()?.reveal() ?? `unresolved ${value.field}`}`);
  } else if (Array.isArray(value)) {
    out.set(`${prefix}[]`, String(value.length));
    value.forEach((item, i) => flatten(item, `${prefix}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    }
  } else {
    out.set(prefix, JSON.stringify(value) ?? 'undefined');
  }
  return out;
}

function differingPaths(a: Map<string, string>, b: Map<string, string>): string[] {
  const paths = new Set([...a.keys(), ...b.keys()]);
  const differing = [...paths].filter((path) => a.get(path) !== b.get(path));
  return [...new Set(differing.map((path) => path.replace(/\[\d*\]/g, '')))].sort();
}
