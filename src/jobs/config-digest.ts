import { createHash } from 'node:crypto';
import { SCHEDULE_FIELDS } from '../config/changes.js';
import { redactedConfig, type Config } from '../config/load.js';
import type { WorkerAdvert } from '../store/worker-adverts.js';
import { desiredSchedulers } from './schedulers.js';

/**
 * What a worker's advert (store/worker-adverts.ts) says of its config: the schedulers it holds,
 * and digests of the rest, so that workers can tell whether their configs differ without
 * showing each other a secret.
 */

/** "<cron> <zone>" of every scheduler the config holds. */
export function heldSchedulers(config: Config): Record<string, string> {
  return Object.fromEntries(
    desiredSchedulers(config.networks).map((d) => [d.id, `${d.pattern} ${d.tz}`]),
  );
}

/**
 * The config's digests (WorkerAdvert.settings), without what differs from host to host by
 * nature (the file's path, the monitoring port) and without secrets (shown redacted).
 */
export function settingsDigest(config: Config): WorkerAdvert['settings'] {
  const {
    source: _source,
    monitoring: _monitoring,
    networks,
    ...global
  } = redactedConfig(config) as Record<string, unknown> & {
    networks: Array<Record<string, unknown> & { id: string }>;
  };
  return {
    global: digest(global),
    networks: Object.fromEntries(
      networks.map((network) => [network.id, digest(withoutSchedule(network))]),
    ),
  };
}

/** A network without the fields its schedulers are made of (config/changes.ts). */
function withoutSchedule(network: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(network);
  for (const field of SCHEDULE_FIELDS) {
    const [head, tail] = field.split('.') as [string, string | undefined];
    if (tail === undefined) delete copy[head];
    else if (copy[head] && typeof copy[head] === 'object')
      delete (copy[head] as Record<string, unknown>)[tail];
  }
  return copy;
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}
