import { isIsoDate, type IsoDate } from '../dates.js';
import {
  latestRuns as chooseLatestRuns,
  type LatestRuns,
  type RunChoiceFields,
} from '../monitor/overdue.js';
import type { RunKind, RunRecord } from '../monitor/types.js';
import {
  checkDate,
  networkCall,
  readNetworkField,
  storeCall,
  type StoreContext,
} from './context.js';
import { FIELD, isRunField, parseIndexLine, runField } from './keys.js';
import {
  hasRunChoiceFields,
  parseOptional,
  parseStored,
  parseStoredJson,
  runRecordSchema,
} from './records.js';

/**
 * A network's run records: one field of its hash each (`run:<kind>:<as-of>`), listed with what
 * each says of itself in the hash's index (store/keys.ts, indexLine). They are written by the
 * run's commit (network-state.ts, commitRun) and kept RUN_RETENTION_DAYS (store/retention.ts).
 */

const DAY_MS = 86_400_000;

export async function getRun(
  ctx: StoreContext,
  networkId: string,
  kind: RunKind,
  asOf: IsoDate,
): Promise<RunRecord | undefined> {
  checkDate(asOf);
  const raw = await storeCall('getRun', () =>
    ctx.redis.hget(ctx.keys.network(networkId), runField(kind, asOf)),
  );
  return parseOptional(runRecordSchema, raw, 'run record');
}

/**
 * The as-of dates that have a run record of `kind`, newest first: from the hash's field
 * names, without reading a record (what `thm run --date` checks: src/jobs/as-of.ts).
 */
export async function runDates(
  ctx: StoreContext,
  networkId: string,
  kind: RunKind,
): Promise<IsoDate[]> {
  const fields = await networkCall(ctx, networkId, 'runDates', () =>
    ctx.redis.hkeys(ctx.keys.network(networkId)),
  );
  const prefix = runField(kind, '');
  return fields
    .filter((field) => field.startsWith(prefix))
    .map((field) => field.slice(prefix.length))
    .filter(isIsoDate)
    .sort()
    .reverse();
}

/**
 * Run records, newest first (by as-of date, then start). `days`: only runs that finished
 * within the last `days` days before `now`. Records are kept RUN_RETENTION_DAYS.
 */
export async function listRuns(
  ctx: StoreContext,
  networkId: string,
  options: { days?: number; limit?: number; now?: number } = {},
): Promise<RunRecord[]> {
  const fields = await indexedRunFields(ctx, networkId, 'listRuns');
  const since =
    options.days === undefined ? -Infinity : (options.now ?? Date.now()) - options.days * DAY_MS;
  const runs = (await readRunRecords(ctx, networkId, fields, 'listRuns'))
    .map(([field, raw]) =>
      readNetworkField(ctx, networkId, field, () =>
        parseStored(runRecordSchema, raw, 'run record'),
      ),
    )
    .filter((run) => run.finishedAt >= since)
    .sort((a, b) => (a.asOf === b.asOf ? b.startedAt - a.startedAt : a.asOf < b.asOf ? 1 : -1));
  return options.limit === undefined ? runs : runs.slice(0, options.limit);
}

/**
 * The network's latest run of each kind and its last successful traffic-check (the rule:
 * `latestRuns` in monitor/overdue.ts), chosen by what the index says of each record (its
 * kind, outcome and finish time: store/keys.ts, indexLine), so that only the chosen records
 * are read, not the ~120 a network keeps (RUN_RETENTION_DAYS, two kinds a day): `thm status`
 * asks this of every network, and the worker's /metrics on each scrape.
 *
 * A record whose index line says nothing (written before lines did) is read and parsed, and
 * the three fields the choice reads are checked. The chosen records are validated whole; if
 * one is not what its line says (a line left by an older version's re-run), every record is
 * read and the choice made again from them. A record that is not JSON, or whose kind,
 * outcome or finish time is not what it must be, is the network's unreadable state, as in
 * listRuns; an older record broken elsewhere is left to `thm history`, which reads them all.
 */
export async function latestRuns(
  ctx: StoreContext,
  networkId: string,
): Promise<LatestRuns & { any: boolean }> {
  const lines = await indexedRunLines(ctx, networkId, 'latestRuns');
  if (lines.length === 0) return { any: false };
  type Candidate = RunChoiceFields & { field: string; raw?: string };
  const candidates: Candidate[] = [];
  const undescribed: string[] = [];
  for (const { field, run } of lines) {
    // Written out, not spread: with the ~110 lines a network keeps, spreading each cost
    // `thm status` about 9 ms at 100 networks (target P7, docs/performance.md).
    if (run !== undefined && hasRunChoiceFields(run))
      candidates.push({ kind: run.kind, outcome: run.outcome, finishedAt: run.finishedAt, field });
    else undescribed.push(field);
  }
  const fetched = await readRunRecords(ctx, networkId, undescribed);
  candidates.push(...withChoiceFields(ctx, networkId, fetched));
  let chosen = chooseLatestRuns(candidates);
  const unread = [chosen.trafficCheck, chosen.invoiceSnapshot, chosen.lastSuccess].filter(
    (c): c is Candidate => c !== undefined && c.raw === undefined,
  );
  if (unread.length > 0) {
    const raws = new Map(
      await readRunRecords(ctx, networkId, [...new Set(unread.map((c) => c.field))]),
    );
    const isAsItsLineSays = (c: Candidate): boolean => {
      const raw = raws.get(c.field);
      const [read] = raw === undefined ? [] : withChoiceFields(ctx, networkId, [[c.field, raw]]);
      return (
        read !== undefined &&
        read.kind === c.kind &&
        read.outcome === c.outcome &&
        read.finishedAt === c.finishedAt
      );
    };
    if (unread.every(isAsItsLineSays)) for (const c of unread) c.raw = raws.get(c.field);
    else {
      const all = await readRunRecords(
        ctx,
        networkId,
        lines.map((l) => l.field),
      );
      chosen = chooseLatestRuns(withChoiceFields(ctx, networkId, all));
    }
  }
  // The latest traffic-check is its last success too, as a rule: each record validated once.
  const records = new Map<string, RunRecord>();
  const validated = (run: Candidate | undefined): RunRecord | undefined => {
    if (run === undefined) return undefined;
    let record = records.get(run.field);
    if (record === undefined) {
      record = readNetworkField(ctx, networkId, run.field, () =>
        parseStored(runRecordSchema, run.raw!, 'run record'),
      );
      records.set(run.field, record);
    }
    return record;
  };
  return {
    any: candidates.length > 0,
    trafficCheck: validated(chosen.trafficCheck),
    invoiceSnapshot: validated(chosen.invoiceSnapshot),
    lastSuccess: validated(chosen.lastSuccess),
  };
}

/** The stored text of each of the network's `fields` that exists, as [field, text]. */
async function readRunRecords(
  ctx: StoreContext,
  networkId: string,
  fields: readonly string[],
  operation = 'latestRuns',
): Promise<Array<[string, string]>> {
  if (fields.length === 0) return [];
  const raws = await networkCall(ctx, networkId, operation, () =>
    ctx.redis.hmget(ctx.keys.network(networkId), ...fields),
  );
  const found: Array<[string, string]> = [];
  raws.forEach((raw, i) => {
    if (raw !== null) found.push([fields[i]!, raw]);
  });
  return found;
}

/**
 * Run records parsed, with the three fields the choice of the latest reads checked. One that
 * cannot be chosen by is validated whole, which says what is wrong (unreadable state).
 */
function withChoiceFields(
  ctx: StoreContext,
  networkId: string,
  records: ReadonlyArray<[string, string]>,
): Array<RunChoiceFields & { field: string; raw: string }> {
  const parsed: Array<RunChoiceFields & { field: string; raw: string }> = [];
  for (const [field, raw] of records) {
    const value = readNetworkField(ctx, networkId, field, () => parseStoredJson(raw, 'run record'));
    if (hasRunChoiceFields(value)) parsed.push(Object.assign(value, { field, raw }));
    else
      readNetworkField(ctx, networkId, field, () =>
        parseStored(runRecordSchema, raw, 'run record'),
      );
  }
  return parsed;
}

/** The lines of the network's index that name run records (store/keys.ts, indexLine). */
async function indexedRunLines(
  ctx: StoreContext,
  networkId: string,
  operation: string,
): Promise<ReturnType<typeof parseIndexLine>[]> {
  const index = await networkCall(ctx, networkId, operation, () =>
    ctx.redis.hget(ctx.keys.network(networkId), FIELD.index),
  );
  return (index ?? '')
    .split('\n')
    .map(parseIndexLine)
    .filter((line) => isRunField(line.field));
}

/** The fields of the network's run records, from its index. */
async function indexedRunFields(
  ctx: StoreContext,
  networkId: string,
  operation: string,
): Promise<string[]> {
  return (await indexedRunLines(ctx, networkId, operation)).map((line) => line.field);
}
