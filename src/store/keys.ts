import { NETWORK_ID } from '../config/schema.js';
import { isIsoDate } from '../dates.js';
import type { RunChoiceFields } from '../monitor/overdue.js';
import type { IsoDate, RunKind } from '../monitor/types.js';

/*
 * Every Redis key and hash field name of the store, in one place.
 *
 * Layout (P = `redis.prefix`):
 *   P:store:net:<networkId>     hash, ALL state of one network (fields below)
 *   P:store:inv:<networkId>     list, invoice snapshots, newest first (trimmed to `keep`)
 *   P:store:listing:<networkId>:<asOf>
 *                               string, the traffic-check's listing of that as-of date and the
 *                               alert it sent (store/listing-codec.ts); expires
 *                               history.keepListingsDays after the run that wrote it
 *   P:store:networks            set of network ids with state
 *   P:store:silence-ids         hash silence id -> network id (remove by id)
 *   P:store:scheduled-since     hash network id -> when a worker first scheduled it (epoch ms)
 *   P:store:unreadable          hash network id -> the open problem episode of a network whose
 *                               own hash cannot be read (kept outside it; handed over to it once
 *                               it reads again)
 *   P:store:outbox:body         hash notification id -> Notification JSON (immutable)
 *   P:store:outbox:meta         hash notification id -> delivery state JSON
 *   P:store:outbox:pending      zset id, score = due time (epoch ms)
 *   P:store:outbox:sent         zset id, score = sent time
 *   P:store:outbox:failed       zset id, score = failure time
 *   P:store:outbox:lease:<id>   string, the sender delivering <id> now (expires: PX)
 *   P:store:reload-failed:<w>   string, JSON {message, at}: worker <w>'s last config reload
 *                               failed (expires; removed when a good config loads)
 *   P:store:workers             hash worker instance -> its advert JSON (store/worker-adverts.ts):
 *                               the schedulers its config holds, until when it is live
 *
 * Redis Cluster: with a hash-tagged prefix such as "{thm}" every key above hashes to the slot
 * of "thm", so the multi-key scripts (a run's commit touches the network hash and the outbox)
 * are legal. BullMQ uses the same prefix for its queues (P:<queue>:...); "store" is therefore
 * not a usable queue name.
 */

export interface StoreKeys {
  network(networkId: string): string;
  invoices(networkId: string): string;
  listing(networkId: string, asOf: IsoDate): string;
  networks: string;
  silenceIds: string;
  scheduledSince: string;
  unreadableEpisodes: string;
  outboxBody: string;
  outboxMeta: string;
  outboxPending: string;
  outboxSent: string;
  outboxFailed: string;
  outboxLease(notificationId: string): string;
  reloadFailed(instance: string): string;
  /** SCAN pattern of every reloadFailed key. */
  reloadFailedPattern: string;
  workers: string;
}

export function storeKeys(prefix: string): StoreKeys {
  const base = `${prefix}:store`;
  return {
    network: (networkId) => `${base}:net:${checkedNetworkId(networkId)}`,
    invoices: (networkId) => `${base}:inv:${checkedNetworkId(networkId)}`,
    listing: (networkId, asOf) =>
      `${base}:listing:${checkedNetworkId(networkId)}:${checkedDate(asOf)}`,
    networks: `${base}:networks`,
    silenceIds: `${base}:silence-ids`,
    scheduledSince: `${base}:scheduled-since`,
    unreadableEpisodes: `${base}:unreadable`,
    outboxBody: `${base}:outbox:body`,
    outboxMeta: `${base}:outbox:meta`,
    outboxPending: `${base}:outbox:pending`,
    outboxSent: `${base}:outbox:sent`,
    outboxFailed: `${base}:outbox:failed`,
    outboxLease: (notificationId) => `${base}:outbox:lease:${notificationId}`,
    reloadFailed: (instance) =>
      `${base}:reload-failed:${instance.replace(/[^A-Za-z0-9_.-]/g, '_')}`,
    reloadFailedPattern: `${base.replace(/[*?[\]\\]/g, '\\$&')}:reload-failed:*`,
    workers: `${base}:workers`,
  };
}

/** Network ids are config slugs; anything else in a key name is a bug, not data. */
function checkedNetworkId(networkId: string): string {
  if (!NETWORK_ID.test(networkId)) {
    throw new RangeError(`not a network id: ${JSON.stringify(networkId)}`);
  }
  return networkId;
}

/** As-of dates in key names are YYYY-MM-DD; anything else is a bug, not data. */
function checkedDate(asOf: IsoDate): IsoDate {
  if (!isIsoDate(asOf)) throw new RangeError(`not an as-of date: ${JSON.stringify(asOf)}`);
  return asOf;
}

/** Fields of the network hash. */
export const FIELD = {
  /** Optimistic-concurrency revision: +1 per committed run. */
  rev: 'rev',
  /** All active pairs, one compact blob (store/active-codec.ts). */
  active: 'active',
  /** The listed runs (monitor/runs.ts), one compact blob (store/runs-codec.ts). */
  runs: 'runs',
  /** What is learned of the network (monitor/variation.ts and beside it), one JSON value. */
  learned: 'learned',
  /** One JSON line per silence. */
  silences: 'silences',
  premium: 'premium',
  /** The open problem episode (absent: none). */
  problem: 'problem',
  /** The latest invoice snapshot (the series is the P:store:inv list). */
  invoice: 'invoice',
  /** One line per dated field, for retention and for choosing the latest runs (`indexLine`). */
  index: 'index',
} as const;

/** What the name of every run record's field begins with: `run:<kind>:<as-of>`. */
const RUN_FIELD = 'run:';

/** The run record of (kind, as-of). */
export function runField(kind: RunKind, asOf: IsoDate): string {
  return `${RUN_FIELD}${kind}:${asOf}`;
}

export function isRunField(field: string): boolean {
  return field.startsWith(RUN_FIELD);
}

/**
 * A line of the network's index: "<as-of> <field>", and for a run record
 * "<as-of>|<finishedAt>|<outcome> <field>": what choosing the latest runs reads of the record
 * (its kind is in the field's name), so that `thm status` need not read two months of records to
 * find the newest. The commit script prunes by the text before
 * the space compared with the cutoff date, and a longer head compares as its date does. Lines
 * written before run records carried these are "<as-of> <field>": their records are read.
 */
export function indexLine(asOf: IsoDate, field: string, run?: RunChoiceFields): string {
  return run === undefined
    ? `${asOf} ${field}`
    : `${asOf}|${run.finishedAt}|${run.outcome} ${field}`;
}

/**
 * An index line read back: its field, and for a run record what its line says of it, unchecked
 * (`hasRunChoiceFields` checks it); undefined on a line without it.
 */
export function parseIndexLine(line: string): {
  field: string;
  run?: { kind: string | undefined; outcome: string; finishedAt: number };
} {
  // By positions, not by split: `thm status` reads every line of every network's index (about
  // 120 a network with two months of records), and a split of each is garbage for nothing.
  const space = line.indexOf(' ');
  const field = line.slice(space + 1);
  if (space < 0 || !isRunField(field)) return { field };
  const bar = line.indexOf('|');
  const bar2 = bar < 0 ? -1 : line.indexOf('|', bar + 1);
  if (bar < 0 || bar2 < 0 || bar2 > space || bar + 1 === bar2) return { field };
  const bar3 = line.indexOf('|', bar2 + 1);
  const finishedAt = Number(line.slice(bar + 1, bar2));
  if (!Number.isFinite(finishedAt)) return { field };
  const outcome = line.slice(bar2 + 1, bar3 >= 0 && bar3 < space ? bar3 : space);
  const colon = field.indexOf(':', RUN_FIELD.length);
  return {
    field,
    run: {
      kind: field.slice(RUN_FIELD.length, colon < 0 ? undefined : colon),
      outcome,
      finishedAt,
    },
  };
}

/** Pair events already e-mailed for an as-of date, one JSON string per line. */
export function sentField(asOf: IsoDate): string {
  return `sent:${asOf}`;
}
