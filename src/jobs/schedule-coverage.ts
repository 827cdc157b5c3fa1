import type { WorkerAdvert } from '../store/worker-adverts.js';

/**
 * What the live workers' adverts (store/worker-adverts.ts) and the schedulers in Redis say
 * together: which held schedulers are missing, which schedulers no live worker holds, and how
 * the workers' configs differ. Pure: `/healthz`, `thm status` and `/metrics` ask the same
 * question of the same reads and say the same.
 */
export interface ScheduleCoverage {
  /** Held by some live worker, absent from Redis: by id, with the workers that hold it. */
  missing: Array<{ id: string; heldBy: string[] }>;
  /** In Redis, held by no live worker. */
  unheld: string[];
  /** How the live workers' configs differ, one line each (empty when they agree). */
  differences: string[];
  /** How many different configs the live workers run (1 when they agree; 0 without workers). */
  variants: number;
  /**
   * Since when the live workers' configs have differed (epoch ms; undefined when they agree):
   * when the second of the configs they run now was first taken up by one of them. A rolling
   * deploy differs from its first replica's reload until its last; a replica left on an older
   * config, for good (see `configDriftProblem`).
   */
  differingSince?: number;
  /** How many live workers there are. */
  workers: number;
}

export function scheduleCoverage(
  advertsGiven: readonly WorkerAdvert[],
  existing: Iterable<string>,
): ScheduleCoverage {
  const adverts = [...advertsGiven].sort((a, b) => compare(a.instance, b.instance));
  const present = new Set(existing);
  const holders = new Map<string, string[]>();
  for (const advert of adverts)
    for (const id of Object.keys(advert.schedulers)) {
      const list = holders.get(id) ?? [];
      list.push(advert.instance);
      holders.set(id, list);
    }
  const missing = [...holders]
    .filter(([id]) => !present.has(id))
    .map(([id, heldBy]) => ({ id, heldBy }))
    .sort((a, b) => compare(a.id, b.id));
  const unheld = [...present].filter((id) => !holders.has(id)).sort(compare);
  // Each config, by when a live worker first took it up.
  const firstTakenUp = new Map<string, number>();
  for (const a of adverts) {
    const key = `${a.settings.global} ${canonical(a.settings.networks)} ${canonical(a.schedulers)}`;
    firstTakenUp.set(key, Math.min(firstTakenUp.get(key) ?? Infinity, a.configAt));
  }
  const differingSince = [...firstTakenUp.values()].sort((a, b) => a - b)[1];
  return {
    missing,
    unheld,
    differences: configDifferences(adverts),
    variants: firstTakenUp.size,
    ...(differingSince !== undefined ? { differingSince } : {}),
    workers: adverts.length,
  };
}

/**
 * Whether the live workers' configs differing is a problem (for `/healthz` and `thm status
 * --check`): once it has lasted `graceMs` (worker.configDriftGraceMs). A rolling deploy is over
 * by then; a replica left on an older config is not.
 */
export function configDriftIsProblem(
  coverage: Pick<ScheduleCoverage, 'differences' | 'differingSince'>,
  graceMs: number,
  now: number,
): boolean {
  return (
    coverage.differences.length > 0 &&
    coverage.differingSince !== undefined &&
    now - coverage.differingSince >= graceMs
  );
}

/**
 * The differences between the live workers' configs, grouped so that a replica lacking ten
 * networks is one line, not twenty:
 *   "traffic-check:globex, traffic-check:initech: held by host-a-1, not by host-b-2"
 *   "traffic-check:acme: 0 7 * * * UTC on host-a-1; 0 6 * * * Europe/Berlin on host-b-2"
 *   "settings of acme differ (recipients, alerts ...): host-a-1 | host-b-2"
 *   "global settings differ (api, mail, worker ...): host-a-1 | host-b-2"
 */
export function configDifferences(adverts: readonly WorkerAdvert[]): string[] {
  if (adverts.length < 2) return [];
  const ids = [...new Set(adverts.flatMap((a) => Object.keys(a.schedulers)))].sort(compare);
  const lacking = new Map<string, string[]>();
  const schedules: string[] = [];
  for (const id of ids) {
    const having = adverts.filter((a) => a.schedulers[id] !== undefined);
    if (having.length < adverts.length) {
      const key = `held by ${names(having)}, not by ${names(adverts.filter((a) => !having.includes(a)))}`;
      lacking.set(key, [...(lacking.get(key) ?? []), id]);
    }
    const bySchedule = groupBy(having, (a) => a.schedulers[id]!);
    if (bySchedule.size > 1)
      schedules.push(
        `${id}: ${[...bySchedule].map(([schedule, group]) => `${schedule} on ${names(group)}`).join('; ')}`,
      );
  }
  // A network's other settings (recipients, thresholds ...), among the workers that have it.
  const networkSettings = new Map<string, string[]>();
  const networkIds = [...new Set(adverts.flatMap((a) => Object.keys(a.settings.networks)))];
  for (const id of networkIds.sort(compare)) {
    const having = adverts.filter((a) => a.settings.networks[id] !== undefined);
    const groups = groupBy(having, (a) => a.settings.networks[id]!);
    if (groups.size < 2) continue;
    const key = [...groups.values()].map(names).join(' | ');
    networkSettings.set(key, [...(networkSettings.get(key) ?? []), id]);
  }
  const lines = [
    ...[...lacking].map(([key, list]) => `${list.join(', ')}: ${key}`),
    ...schedules,
    ...[...networkSettings].map(
      ([key, ids]) => `settings of ${ids.join(', ')} differ (recipients, alerts ...): ${key}`,
    ),
  ];
  const byGlobal = groupBy(adverts, (a) => a.settings.global);
  if (byGlobal.size > 1)
    lines.push(
      `global settings differ (api, mail, worker ...): ${[...byGlobal.values()].map(names).join(' | ')}`,
    );
  return lines;
}

function names(adverts: readonly WorkerAdvert[]): string {
  return adverts.map((a) => a.instance).join(', ');
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

function canonical(schedulers: Record<string, string>): string {
  return JSON.stringify(Object.entries(schedulers).sort(([a], [b]) => compare(a, b)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
