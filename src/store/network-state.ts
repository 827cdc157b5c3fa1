import { addDays, localDate, type IsoDate } from '../dates.js';
import { ThmError } from '../errors.js';
import type { LatestRuns } from '../monitor/overdue.js';
import { isSilenceActive } from '../monitor/silences.js';
import type {
  ActivePair,
  HistoryChange,
  InvoiceSnapshot,
  LearnedState,
  PremiumState,
  ProblemEpisode,
  RunKind,
  RunRecord,
  Silence,
  WatchedRun,
} from '../monitor/types.js';
import type { ChannelDelivery, Notification } from '../notify/types.js';
import { activeDropPercents, decodeActive, encodeActive } from './active-codec.js';
import { writeConfirmed } from './confirm.js';
import {
  checkDate,
  networkCall,
  readNetworkField,
  storeCall,
  type StoreContext,
} from './context.js';
import { FIELD, indexLine, runField, sentField } from './keys.js';
import { encodeListing, type ListingRecord } from './listing-codec.js';
import { outboxArgs } from './outbox.js';
import {
  invoiceSnapshotSchema,
  learnedStateSchema,
  parseOptional,
  parseSilenceLines,
  parseStored,
  premiumStateSchema,
  problemEpisodeSchema,
  runRecordSchema,
} from './records.js';
import { RUN_RETENTION_DAYS } from './retention.js';
import { latestRuns } from './run-records.js';
import { checkRuns, decodeRuns, encodeRuns } from './runs-codec.js';
import { commitScript, deleteNetworkScript } from './scripts.js';

/**
 * A network's state: all of it lives in one hash (layout: store/keys.ts), so a traffic-check
 * costs one HMGET to load and one EVALSHA to commit (at most 10 commands in all, counting those
 * inside the script, however many pairs), and the active pairs are one compact blob
 * (store/active-codec.ts). A run loads it, decides, and commits its whole effect in one atomic
 * step, guarded by the revision it loaded.
 */

/** What a run needs to know about its network, read in one command. */
export interface NetworkState {
  /** Optimistic-concurrency revision; pass it back as RunEffect.expectedRev. */
  rev: number;
  /** The active pairs (the history), each once, in no meaningful order. */
  active: ActivePair[];
  /** The listed runs (monitor/runs.ts), each pair's once. */
  runs: WatchedRun[];
  /** What is learned of the network (monitor/variation.ts and beside it); absent: nothing yet. */
  learned?: LearnedState;
  /** The network's silences unexpired at `now`. */
  silences: Silence[];
  premium?: PremiumState;
  problem?: ProblemEpisode;
  /** The existing record for (kind, asOf). */
  run?: RunRecord;
  /** Pair events already e-mailed for asOf: "class|pairKey". */
  sentEvents: Set<string>;
  latestInvoice?: InvoiceSnapshot;
}

/**
 * A network as `thm status` and the metrics show it: its history counted, not decoded (an
 * object per active pair is not needed to count them, and status reads every network). The
 * rest of its state is checked as a run would read it.
 */
export interface NetworkOverview {
  premium?: PremiumState;
  problem?: ProblemEpisode;
  latestInvoice?: InvoiceSnapshot;
  /** Each active pair's last drop in percent: its severity under the network's thresholds. */
  activeDrops: number[];
  /** What is learned of the network's variation (monitor/variation.ts); absent: nothing yet. */
  learned?: LearnedState['variation'];
}

/**
 * A run's whole effect, committed in ONE atomic step (all of it or nothing). Nothing is
 * committed for a failed or invalid fetch, except a failed run record (no history).
 */
export interface RunEffect {
  networkId: string;
  /** NetworkState.rev as loaded; another commit in between refuses this one ('conflict'). */
  expectedRev: number;
  run: RunRecord;
  /** Replace an existing non-failed record of (kind, asOf) instead of answering 'exists'. */
  force?: boolean;
  /**
   * The history after the run: `upsert` and `added` must hold EVERY pair active after the run
   * (as `Classification.changes` does); the history is rewritten whole from them, and the
   * listed runs from `runs` and `runsStarted` when either is there. Absent: untouched.
   */
  history?: HistoryChange;
  /** Added to the outbox; an id already there (pending, sent or failed) is not added again. */
  notifications: Notification[];
  /**
   * The notifications' channel deliveries (notify/channels/deliveries.ts): outbox entries of
   * their own, added the same way and in the same step.
   */
  deliveries?: ChannelDelivery[];
  /** Pair events now e-mailed for run.asOf (added to NetworkState.sentEvents). */
  sentEvents?: string[];
  premium?: PremiumState;
  /** null: close the open episode; undefined: leave as is. */
  problem?: ProblemEpisode | null;
  /** Appended to the network's series, which is trimmed to the newest `keep`. */
  invoiceSnapshot?: { snapshot: InvoiceSnapshot; keep: number };
  /**
   * The run's listing and the alert it decided, kept for `thm replay` until `expiresAt` (epoch
   * ms; store/listing-codec.ts). Absent: a listing stored for the date is left as it is.
   */
  listing?: { record: ListingRecord; expiresAt: number };
}

export type CommitResult =
  | { committed: true; rev: number }
  | { committed: false; reason: 'conflict' | 'exists'; run?: RunRecord };

export interface LoadOptions {
  asOf: IsoDate;
  kind: RunKind;
  /** Epoch ms: decides which silences are unexpired. */
  now: number;
}

export async function loadNetworkState(
  ctx: StoreContext,
  networkId: string,
  options: LoadOptions,
): Promise<NetworkState> {
  return readState(ctx, networkId, options, decodeActive, decodeRuns);
}

/**
 * The network's state, every field read and checked as a run reads it (so that what a run could
 * not read is reported the same), its history decoded by `decodeActivePairs` and its listed
 * runs by `decodeListedRuns`.
 */
async function readState<A, R>(
  ctx: StoreContext,
  networkId: string,
  options: LoadOptions,
  decodeActivePairs: (blob: Buffer | null) => A,
  decodeListedRuns: (blob: Buffer | null) => R,
): Promise<Omit<NetworkState, 'active' | 'runs'> & { active: A; runs: R }> {
  checkDate(options.asOf);
  const runKey = runField(options.kind, options.asOf);
  // As bytes: the two blobs are read from them (store/domain-lists.ts); the rest is text.
  const [rev, active, silences, premium, problem, run, sent, invoice, runs, learned] =
    await networkCall(ctx, networkId, 'load', () =>
      ctx.redis.hmgetBuffer(
        ctx.keys.network(networkId),
        FIELD.rev,
        FIELD.active,
        FIELD.silences,
        FIELD.premium,
        FIELD.problem,
        runField(options.kind, options.asOf),
        sentField(options.asOf),
        FIELD.invoice,
        FIELD.runs,
        FIELD.learned,
      ),
    );
  const read = <T>(field: string, parse: () => T): T =>
    readNetworkField(ctx, networkId, field, parse);
  const state: Omit<NetworkState, 'active' | 'runs'> & { active: A; runs: R } = {
    rev: read(FIELD.rev, () => parseRev(bytesAsText(rev))),
    active: read(FIELD.active, () => decodeActivePairs(active ?? null)),
    runs: read(FIELD.runs, () => decodeListedRuns(runs ?? null)),
    silences: read(FIELD.silences, () => parseSilenceLines(bytesAsText(silences))).filter((s) =>
      isSilenceActive(s, options.now),
    ),
    sentEvents: new Set(read(sentField(options.asOf), () => parseSentEvents(bytesAsText(sent)))),
  };
  const premiumState = read(FIELD.premium, () =>
    parseOptional(premiumStateSchema, bytesAsText(premium), 'premium state'),
  );
  if (premiumState) state.premium = premiumState;
  const episode = read(FIELD.problem, () =>
    parseOptional(problemEpisodeSchema, bytesAsText(problem), 'problem episode'),
  );
  if (episode) state.problem = episode;
  const record = read(runKey, () => parseOptional(runRecordSchema, bytesAsText(run), 'run record'));
  if (record) state.run = record;
  const snapshot = read(FIELD.invoice, () =>
    parseOptional(invoiceSnapshotSchema, bytesAsText(invoice), 'invoice snapshot'),
  );
  if (snapshot) state.latestInvoice = snapshot;
  const knowledge = read(FIELD.learned, () =>
    parseOptional(learnedStateSchema, bytesAsText(learned), 'learned variation'),
  );
  if (knowledge) state.learned = knowledge;
  return state;
}

export async function commitRun(ctx: StoreContext, effect: RunEffect): Promise<CommitResult> {
  const { networkId, run } = effect;
  if (run.networkId !== networkId) {
    throw new ThmError('THM_STORE', `run record of ${run.networkId} committed to ${networkId}`);
  }
  checkDate(run.asOf);
  if (!Number.isInteger(effect.expectedRev) || effect.expectedRev < 0) {
    throw new ThmError('THM_STORE', `expectedRev must be a revision, not ${effect.expectedRev}`);
  }
  const listing = effect.listing ? await encodeListing(effect.listing.record) : '';
  const rField = runField(run.kind, run.asOf);
  const sField = sentField(run.asOf);
  const set: (string | Buffer)[] = [];
  const history = effect.history;
  if (history) {
    set.push(FIELD.active, encodeActive(history.upsert, history.added));
    if (history.runs || history.runsStarted) {
      set.push(FIELD.runs, encodeRuns(history.runs ?? [], history.runsStarted));
    }
    if (history.learned) set.push(FIELD.learned, JSON.stringify(history.learned));
  }
  if (effect.premium) set.push(FIELD.premium, JSON.stringify(effect.premium));
  if (effect.problem) set.push(FIELD.problem, JSON.stringify(effect.problem));
  if (effect.invoiceSnapshot) {
    set.push(FIELD.invoice, JSON.stringify(effect.invoiceSnapshot.snapshot));
  }
  const del = effect.problem === null ? [FIELD.problem] : [];
  const sentAppend = effect.sentEvents?.length ? sentLines(effect.sentEvents) : '';
  const indexAdd = `${indexLine(run.asOf, rField, run)}\n${sentAppend ? `${indexLine(run.asOf, sField)}\n` : ''}`;
  const notifications = outboxArgs([...effect.notifications, ...(effect.deliveries ?? [])]);
  const args: (string | number | Buffer)[] = [
    FIELD.rev,
    FIELD.index,
    rField,
    sField,
    effect.expectedRev,
    effect.force ? '1' : '0',
    JSON.stringify(run),
    sentAppend,
    // From the clock (when the run finished), never from its as-of date, which a manual
    // trigger chose: a far-future label must not prune every real record.
    addDays(localDate(run.finishedAt, 'UTC'), -RUN_RETENTION_DAYS),
    indexAdd,
    networkId,
    set.length / 2,
    ...set,
    del.length,
    ...del,
    notifications.length / 3,
    ...notifications,
    effect.invoiceSnapshot ? JSON.stringify(effect.invoiceSnapshot.snapshot) : '',
    effect.invoiceSnapshot?.keep ?? 0,
  ];
  args.push(listing, effect.listing?.expiresAt ?? 0);
  const networkKey = ctx.keys.network(networkId);
  const reply = (await storeCall('commit', () =>
    writeConfirmed(ctx.redis, networkKey, ctx.confirm, 'commit', () =>
      commitScript.run(
        ctx.redis,
        [
          networkKey,
          ctx.keys.outboxBody,
          ctx.keys.outboxPending,
          ctx.keys.invoices(networkId),
          ctx.keys.networks,
          ctx.keys.listing(networkId, run.asOf),
        ],
        args,
      ),
    ),
  )) as [string, string];
  const [status, detail] = reply;
  if (status === 'ok') return { committed: true, rev: Number(detail) };
  if (status === 'exists') {
    return {
      committed: false,
      reason: 'exists',
      run: parseStored(runRecordSchema, detail, 'run record'),
    };
  }
  return { committed: false, reason: 'conflict' };
}

/**
 * Waits until replicas have what this connection wrote to the network's state (store/confirm.ts);
 * a commit in doubt that the state shows was made counts only then.
 */
export async function confirmNetworkWrites(ctx: StoreContext, networkId: string): Promise<void> {
  await writeConfirmed(ctx.redis, ctx.keys.network(networkId), ctx.confirm, 'commit', () =>
    Promise.resolve(),
  );
}

/**
 * A network as `thm status` and the worker's /metrics show it at `now`: its state as today's
 * traffic-check would read it (today in the network's zone), and its latest runs.
 */
export async function networkNow(
  ctx: StoreContext,
  networkId: string,
  timeZone: string,
  now: number,
): Promise<{ state: NetworkOverview; latest: LatestRuns & { any: boolean } }> {
  const [read, latest] = await Promise.all([
    readState(
      ctx,
      networkId,
      { asOf: localDate(now, timeZone), kind: 'traffic-check', now },
      activeDropPercents,
      checkRuns,
    ),
    latestRuns(ctx, networkId),
  ]);
  const state: NetworkOverview = { activeDrops: read.active };
  if (read.premium) state.premium = read.premium;
  if (read.problem) state.problem = read.problem;
  if (read.latestInvoice) state.latestInvoice = read.latestInvoice;
  if (read.learned?.variation) state.learned = read.learned.variation;
  return { state, latest };
}

export async function networkIds(ctx: StoreContext): Promise<string[]> {
  const ids = await storeCall('networkIds', () => ctx.redis.smembers(ctx.keys.networks));
  return ids.sort();
}

/** Every key of the network: history, runs, silences, invoices. */
export async function deleteNetworkState(ctx: StoreContext, networkId: string): Promise<void> {
  await storeCall('deleteNetworkState', () =>
    deleteNetworkScript.run(
      ctx.redis,
      [
        ctx.keys.network(networkId),
        ctx.keys.invoices(networkId),
        ctx.keys.networks,
        ctx.keys.silenceIds,
      ],
      [FIELD.silences, networkId],
    ),
  );
}

export async function listInvoiceSnapshots(
  ctx: StoreContext,
  networkId: string,
  limit: number,
): Promise<InvoiceSnapshot[]> {
  if (limit <= 0) return [];
  const raws = await storeCall('listInvoiceSnapshots', () =>
    ctx.redis.lrange(ctx.keys.invoices(networkId), 0, limit - 1),
  );
  return raws.map((raw) => parseStored(invoiceSnapshotSchema, raw, 'invoice snapshot'));
}

/** A field read as bytes, as text (what HMGET gives without the bytes). */
function bytesAsText(bytes: Buffer | null | undefined): string | null {
  return bytes ? bytes.toString('utf8') : null;
}

/** The sent-events record's new lines: one JSON string an event. */
function sentLines(events: readonly string[]): string {
  let lines = '';
  for (const event of events) lines += `${JSON.stringify(event)}\n`;
  return lines;
}

/** The sent-events record: one JSON string a line. */
function parseSentEvents(raw: string | null | undefined): string[] {
  if (!raw) return [];
  const out: string[] = [];
  for (const line of raw.split('\n')) {
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ThmError('THM_STORE', 'stored sent events are not JSON lines');
    }
    if (typeof value !== 'string')
      throw new ThmError('THM_STORE', 'stored sent event is not a string');
    out.push(value);
  }
  return out;
}

function parseRev(raw: string | null | undefined): number {
  if (!raw) return 0;
  const rev = Number(raw);
  if (!Number.isSafeInteger(rev) || rev < 0)
    throw new ThmError('THM_STORE', `stored revision is not a whole number`);
  return rev;
}
