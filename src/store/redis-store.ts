import { randomBytes } from 'node:crypto';
import { isFailoverReply, type RedisClient } from '../redis/connection.js';
import { writeConfirmed, type ConfirmOptions } from './confirm.js';
import { StoredStateError, ThmError } from '../errors.js';
import { addDays, isIsoDate, localDate } from '../dates.js';
import { latestRuns, type LatestRuns, type RunChoiceFields } from '../monitor/overdue.js';
import { isSilenceActive } from '../monitor/silences.js';
import type {
  ActivePair,
  HistoryChange,
  InvoiceSnapshot,
  IsoDate,
  PremiumState,
  ProblemEpisode,
  RunKind,
  RunRecord,
  Silence,
  WatchedRun,
} from '../monitor/types.js';
import { EMAIL_CHANNEL } from '../notification-names.js';
import { parseChannelDeliveryId } from '../notify/channels/delivery-id.js';
import type {
  ChannelDelivery,
  Notification,
  OutboxClaim,
  OutboxEntry,
  OutboxNotification,
  OutboxStore,
} from '../notify/types.js';
import { activeDropPercents, decodeActive, encodeActive } from './active-codec.js';
import { encodeListing, type ListingRecord } from './listing-codec.js';
import { checkRuns, decodeRuns, encodeRuns } from './runs-codec.js';
import {
  FIELD,
  indexLine,
  isRunField,
  parseIndexLine,
  runField,
  sentField,
  storeKeys,
  type StoreKeys,
} from './keys.js';
import {
  invoiceSnapshotSchema,
  outboxItemSchema,
  outboxMetaSchema,
  hasRunChoiceFields,
  parseOptional,
  parseStored,
  parseStoredJson,
  premiumStateSchema,
  problemEpisodeSchema,
  runRecordSchema,
  silenceSchema,
  type OutboxMeta,
} from './records.js';
import {
  EXPIRED_SILENCE_RETENTION_MS,
  RUN_RETENTION_DAYS,
  SENT_NOTIFICATION_MAX,
  SENT_NOTIFICATION_RETENTION_MS,
} from './retention.js';
import {
  addSilenceScript,
  commitScript,
  deleteNetworkScript,
  leaseScript,
  handOverEpisodeScript,
  outboxAddScript,
  outboxScript,
  removeSilenceScript,
  unreadableProblemScript,
} from './scripts.js';

/** What a run needs to know about its network, read in one command. */
export interface NetworkState {
  /** Optimistic-concurrency revision; pass it back as RunEffect.expectedRev. */
  rev: number;
  /** The active pairs (the history), each once, in no meaningful order. */
  active: ActivePair[];
  /** The listed runs (monitor/runs.ts), each pair's once. */
  runs: WatchedRun[];
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
 * object per active pair was most of a 100-network `thm status`'s reading; target P7,
 * docs/performance.md). The rest of its state is checked as a run would read it.
 */
export interface NetworkOverview {
  premium?: PremiumState;
  problem?: ProblemEpisode;
  latestInvoice?: InvoiceSnapshot;
  /** Each active pair's last drop in percent: its severity under the network's thresholds. */
  activeDrops: number[];
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

/** A worker's config reload that failed; it goes on with its previous config. */
export interface ReloadFailure {
  instance: string;
  message: string;
  /** Epoch ms (ISO 8601 in `--json`, by the name; see cli/output.ts). */
  failedAt: number;
}

/** Where a notification or channel delivery is in the outbox. */
export type OutboxState = 'pending' | 'sent' | 'failed';
const OUTBOX_STATES: readonly OutboxState[] = ['pending', 'sent', 'failed'];
export type OutboxCounts = Record<OutboxState, number>;

export interface LoadOptions {
  asOf: IsoDate;
  kind: RunKind;
  /** Epoch ms: decides which silences are unexpired. */
  now: number;
}

const DAY_MS = 86_400_000;

/**
 * The monitor's memory in Redis (layout: store/keys.ts). All per-network state lives in one
 * hash, so a traffic-check costs one HMGET to load and one EVALSHA to commit (8 commands in
 * all, counting those inside the script, however many pairs), and the active pairs are one
 * compact blob (store/active-codec.ts).
 */
export class RedisStore implements OutboxStore {
  readonly keys: StoreKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    /** Writes that must survive a failover (commit, claim) wait for replicas: store/confirm.ts. */
    private readonly confirm: ConfirmOptions = { replicas: 0, timeoutMs: 0 },
  ) {
    this.keys = storeKeys(prefix);
  }

  // ---------------------------------------------------------------- network state and runs

  async loadNetworkState(networkId: string, options: LoadOptions): Promise<NetworkState> {
    return this.readState(networkId, options, decodeActive, decodeRuns);
  }

  /**
   * The network's state, every field read and checked as a run reads it (so that what a run could
   * not read is reported the same), its history decoded by `decodeActivePairs` and its listed
   * runs by `decodeListedRuns`.
   */
  private async readState<A, R>(
    networkId: string,
    options: LoadOptions,
    decodeActivePairs: (blob: Buffer | null) => A,
    decodeListedRuns: (blob: Buffer | null) => R,
  ): Promise<Omit<NetworkState, 'active' | 'runs'> & { active: A; runs: R }> {
    checkDate(options.asOf);
    const runKey = runField(options.kind, options.asOf);
    // As bytes: the two blobs are read from them (store/domain-lists.ts); the rest is text.
    const [rev, active, silences, premium, problem, run, sent, invoice, runs] =
      await this.networkCall(networkId, 'load', () =>
        this.redis.hmgetBuffer(
          this.keys.network(networkId),
          FIELD.rev,
          FIELD.active,
          FIELD.silences,
          FIELD.premium,
          FIELD.problem,
          runField(options.kind, options.asOf),
          sentField(options.asOf),
          FIELD.invoice,
          FIELD.runs,
        ),
      );
    const read = <T>(field: string, parse: () => T): T => this.readField(networkId, field, parse);
    const state: Omit<NetworkState, 'active' | 'runs'> & { active: A; runs: R } = {
      rev: read(FIELD.rev, () => parseRev(text(rev))),
      active: read(FIELD.active, () => decodeActivePairs(active ?? null)),
      runs: read(FIELD.runs, () => decodeListedRuns(runs ?? null)),
      silences: read(FIELD.silences, () => parseSilences(text(silences))).filter((s) =>
        isSilenceActive(s, options.now),
      ),
      sentEvents: new Set(read(sentField(options.asOf), () => parseLines(text(sent)))),
    };
    const premiumState = read(FIELD.premium, () =>
      parseOptional(premiumStateSchema, text(premium), 'premium state'),
    );
    if (premiumState) state.premium = premiumState;
    const episode = read(FIELD.problem, () =>
      parseOptional(problemEpisodeSchema, text(problem), 'problem episode'),
    );
    if (episode) state.problem = episode;
    const record = read(runKey, () => parseOptional(runRecordSchema, text(run), 'run record'));
    if (record) state.run = record;
    const snapshot = read(FIELD.invoice, () =>
      parseOptional(invoiceSnapshotSchema, text(invoice), 'invoice snapshot'),
    );
    if (snapshot) state.latestInvoice = snapshot;
    return state;
  }

  async commitRun(effect: RunEffect): Promise<CommitResult> {
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
    }
    if (effect.premium) set.push(FIELD.premium, JSON.stringify(effect.premium));
    if (effect.problem) set.push(FIELD.problem, JSON.stringify(effect.problem));
    if (effect.invoiceSnapshot) {
      set.push(FIELD.invoice, JSON.stringify(effect.invoiceSnapshot.snapshot));
    }
    const del = effect.problem === null ? [FIELD.problem] : [];
    const sentAppend = effect.sentEvents?.length ? sentLines(effect.sentEvents) : '';
    const indexAdd = `${indexLine(run.asOf, rField, run)}\n${sentAppend ? `${indexLine(run.asOf, sField)}\n` : ''}`;
    const notifications = [
      ...effect.notifications.flatMap((n) => [
        n.id,
        JSON.stringify(outboxNotification(n)),
        String(n.createdAt),
      ]),
      ...(effect.deliveries ?? []).flatMap((d) => [d.id, JSON.stringify(d), String(d.createdAt)]),
    ];
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
    const networkKey = this.keys.network(networkId);
    const reply = (await this.call('commit', () =>
      writeConfirmed(this.redis, networkKey, this.confirm, 'commit', () =>
        commitScript.run(
          this.redis,
          [
            networkKey,
            this.keys.outboxBody,
            this.keys.outboxPending,
            this.keys.invoices(networkId),
            this.keys.networks,
            this.keys.listing(networkId, run.asOf),
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
  async confirmNetworkWrites(networkId: string): Promise<void> {
    await writeConfirmed(this.redis, this.keys.network(networkId), this.confirm, 'commit', () =>
      Promise.resolve(),
    );
  }

  async getRun(networkId: string, kind: RunKind, asOf: IsoDate): Promise<RunRecord | undefined> {
    checkDate(asOf);
    const raw = await this.call('getRun', () =>
      this.redis.hget(this.keys.network(networkId), runField(kind, asOf)),
    );
    return parseOptional(runRecordSchema, raw, 'run record');
  }

  /**
   * The as-of dates that have a run record of `kind`, newest first: from the hash's field
   * names, without reading a record (what `thm run --date` checks: src/jobs/as-of.ts).
   */
  async runDates(networkId: string, kind: RunKind): Promise<IsoDate[]> {
    const fields = await this.networkCall(networkId, 'runDates', () =>
      this.redis.hkeys(this.keys.network(networkId)),
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
  async listRuns(
    networkId: string,
    options: { days?: number; limit?: number; now?: number } = {},
  ): Promise<RunRecord[]> {
    const fields = await this.runFields(networkId, 'listRuns');
    const since =
      options.days === undefined ? -Infinity : (options.now ?? Date.now()) - options.days * DAY_MS;
    const runs = (await this.runRecordsRaw(networkId, fields, 'listRuns'))
      .map(([field, raw]) =>
        this.readField(networkId, field, () => parseStored(runRecordSchema, raw, 'run record')),
      )
      .filter((run) => run.finishedAt >= since)
      .sort((a, b) => (a.asOf === b.asOf ? b.startedAt - a.startedAt : a.asOf < b.asOf ? 1 : -1));
    return options.limit === undefined ? runs : runs.slice(0, options.limit);
  }

  /**
   * The network's latest run of each kind and its last successful traffic-check (the rule:
   * `latestRuns` in monitor/overdue.ts), chosen by what the index says of each record (its
   * kind, outcome and finish time: store/keys.ts, indexLine), so that only the chosen records
   * are read: two months of them (RUN_RETENTION_DAYS, two kinds a day) are ~120 a network, and
   * reading them all took a 100-network `thm status` ~0.1 s (target P7, docs/performance.md);
   * the worker's /metrics reads this on each scrape too.
   *
   * A record whose index line says nothing (written before lines did) is read and parsed, and
   * the three fields the choice reads are checked. The chosen records are validated whole; if
   * one is not what its line says (a line left by an older version's re-run), every record is
   * read and the choice made again from them. A record that is not JSON, or whose kind,
   * outcome or finish time is not what it must be, is the network's unreadable state, as in
   * listRuns; an older record broken elsewhere is left to `thm history`, which reads them all.
   */
  async latestRuns(networkId: string): Promise<LatestRuns & { any: boolean }> {
    const lines = await this.runLines(networkId, 'latestRuns');
    if (lines.length === 0) return { any: false };
    type Candidate = RunChoiceFields & { field: string; raw?: string };
    const candidates: Candidate[] = [];
    const unsaid: string[] = [];
    for (const { field, run } of lines) {
      if (run !== undefined && hasRunChoiceFields(run)) candidates.push({ ...run, field });
      else unsaid.push(field);
    }
    const fetched = await this.runRecordsRaw(networkId, unsaid);
    candidates.push(...this.choosable(networkId, fetched));
    let chosen = latestRuns(candidates);
    const unread = [chosen.trafficCheck, chosen.invoiceSnapshot, chosen.lastSuccess].filter(
      (c): c is Candidate => c !== undefined && c.raw === undefined,
    );
    if (unread.length > 0) {
      const raws = new Map(
        await this.runRecordsRaw(networkId, [...new Set(unread.map((c) => c.field))]),
      );
      const asSaid = (c: Candidate): boolean => {
        const raw = raws.get(c.field);
        const [read] = raw === undefined ? [] : this.choosable(networkId, [[c.field, raw]]);
        return (
          read !== undefined &&
          read.kind === c.kind &&
          read.outcome === c.outcome &&
          read.finishedAt === c.finishedAt
        );
      };
      if (unread.every(asSaid)) for (const c of unread) c.raw = raws.get(c.field);
      else {
        const all = await this.runRecordsRaw(
          networkId,
          lines.map((l) => l.field),
        );
        chosen = latestRuns(this.choosable(networkId, all));
      }
    }
    // The latest traffic-check is its last success too, as a rule: each record validated once.
    const records = new Map<string, RunRecord>();
    const validated = (run: Candidate | undefined): RunRecord | undefined => {
      if (run === undefined) return undefined;
      let record = records.get(run.field);
      if (record === undefined) {
        record = this.readField(networkId, run.field, () =>
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
  private async runRecordsRaw(
    networkId: string,
    fields: readonly string[],
    operation = 'latestRuns',
  ): Promise<Array<[string, string]>> {
    if (fields.length === 0) return [];
    const raws = await this.networkCall(networkId, operation, () =>
      this.redis.hmget(this.keys.network(networkId), ...fields),
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
  private choosable(
    networkId: string,
    records: ReadonlyArray<[string, string]>,
  ): Array<RunChoiceFields & { field: string; raw: string }> {
    const parsed: Array<RunChoiceFields & { field: string; raw: string }> = [];
    for (const [field, raw] of records) {
      const value = this.readField(networkId, field, () => parseStoredJson(raw, 'run record'));
      if (hasRunChoiceFields(value)) parsed.push(Object.assign(value, { field, raw }));
      else this.readField(networkId, field, () => parseStored(runRecordSchema, raw, 'run record'));
    }
    return parsed;
  }

  /**
   * A network as `thm status` and the worker's /metrics show it at `now`: its state as today's
   * traffic-check would read it (today in the network's zone), and its latest runs.
   */
  async networkNow(
    networkId: string,
    timeZone: string,
    now: number,
  ): Promise<{ state: NetworkOverview; latest: LatestRuns & { any: boolean } }> {
    const [read, latest] = await Promise.all([
      this.readState(
        networkId,
        { asOf: localDate(now, timeZone), kind: 'traffic-check', now },
        activeDropPercents,
        checkRuns,
      ),
      this.latestRuns(networkId),
    ]);
    const state: NetworkOverview = { activeDrops: read.active };
    if (read.premium) state.premium = read.premium;
    if (read.problem) state.problem = read.problem;
    if (read.latestInvoice) state.latestInvoice = read.latestInvoice;
    return { state, latest };
  }

  /** The lines of the network's index that name run records (store/keys.ts, indexLine). */
  private async runLines(
    networkId: string,
    operation: string,
  ): Promise<ReturnType<typeof parseIndexLine>[]> {
    const index = await this.networkCall(networkId, operation, () =>
      this.redis.hget(this.keys.network(networkId), FIELD.index),
    );
    return (index ?? '')
      .split('\n')
      .map(parseIndexLine)
      .filter((line) => isRunField(line.field));
  }

  /** The fields of the network's run records, from its index. */
  private async runFields(networkId: string, operation: string): Promise<string[]> {
    return (await this.runLines(networkId, operation)).map((line) => line.field);
  }

  async networkIds(): Promise<string[]> {
    const ids = await this.call('networkIds', () => this.redis.smembers(this.keys.networks));
    return ids.sort();
  }

  /** Every key of the network: history, runs, silences, invoices. */
  async deleteNetworkState(networkId: string): Promise<void> {
    await this.call('deleteNetworkState', () =>
      deleteNetworkScript.run(
        this.redis,
        [
          this.keys.network(networkId),
          this.keys.invoices(networkId),
          this.keys.networks,
          this.keys.silenceIds,
        ],
        [FIELD.silences, networkId],
      ),
    );
  }

  // ---------------------------------------------------------------- silences

  async addSilence(silence: Omit<Silence, 'id' | 'createdAt'>, now: number): Promise<Silence> {
    if (!(silence.expiresAt > now)) {
      throw new ThmError('THM_STORE', 'a silence must expire in the future');
    }
    if (silence.startsAt !== undefined && !(silence.startsAt < silence.expiresAt)) {
      throw new ThmError('THM_STORE', 'a silence must start before it ends');
    }
    // The scripts drop silences expired before this; later ones stay for `list --expired`.
    const pruneBefore = now - EXPIRED_SILENCE_RETENTION_MS;
    for (let attempt = 0; attempt < 5; attempt++) {
      const stored: Silence = { id: randomBytes(4).toString('hex'), ...silence, createdAt: now };
      const created = await this.call('addSilence', () =>
        addSilenceScript.run(
          this.redis,
          [this.keys.network(silence.networkId), this.keys.silenceIds, this.keys.networks],
          [FIELD.silences, stored.id, JSON.stringify(stored), silence.networkId, pruneBefore],
        ),
      );
      if (created === 1) return stored;
    }
    throw new ThmError('THM_STORE', 'could not find a free silence id');
  }

  /**
   * Unexpired silences (in force, or starting later), of one network or of all, oldest first;
   * with `expired`, those that expired within EXPIRED_SILENCE_RETENTION_MS instead.
   */
  async listSilences(
    networkId?: string,
    now = Date.now(),
    options: { expired?: boolean } = {},
  ): Promise<Silence[]> {
    const { silences, unreadable } = await this.readSilences(networkId, now, options);
    if (unreadable[0]) throw unreadable[0];
    return silences;
  }

  /**
   * The same, network by network: a network whose silences cannot be read is reported in
   * `unreadable` (naming its key and field) and the others are still listed.
   */
  async readSilences(
    networkId?: string,
    now = Date.now(),
    options: { expired?: boolean } = {},
  ): Promise<{ silences: Silence[]; unreadable: StoredStateError[] }> {
    const ids = networkId === undefined ? await this.networkIds() : [networkId];
    if (ids.length === 0) return { silences: [], unreadable: [] };
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.keys.network(id), FIELD.silences);
    const replies = await this.call('listSilences', () => pipeline.exec());
    const silences: Silence[] = [];
    const unreadable: StoredStateError[] = [];
    (replies ?? []).forEach(([error, raw], i) => {
      const id = ids[i]!;
      try {
        if (error) throw this.networkError(id, error);
        silences.push(...this.readField(id, FIELD.silences, () => parseSilences(raw as string)));
      } catch (problem) {
        if (!(problem instanceof StoredStateError)) throw problem;
        unreadable.push(problem);
      }
    });
    return {
      silences: silences
        .filter((s) => s.expiresAt > now !== (options.expired === true))
        .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)),
      unreadable,
    };
  }

  /** True when a silence with this id (unexpired, or expired but still kept) is now gone. */
  async removeSilence(id: string, now = Date.now()): Promise<boolean> {
    const networkId = await this.call('removeSilence', () =>
      this.redis.hget(this.keys.silenceIds, id),
    );
    if (networkId === null) return false;
    const removed = await this.call('removeSilence', () =>
      removeSilenceScript.run(
        this.redis,
        [this.keys.network(networkId), this.keys.silenceIds],
        [FIELD.silences, id, now - EXPIRED_SILENCE_RETENTION_MS],
      ),
    );
    return removed === 1;
  }

  // ---------------------------------------------------------------- invoices

  async listInvoiceSnapshots(networkId: string, limit: number): Promise<InvoiceSnapshot[]> {
    if (limit <= 0) return [];
    const raws = await this.call('listInvoiceSnapshots', () =>
      this.redis.lrange(this.keys.invoices(networkId), 0, limit - 1),
    );
    return raws.map((raw) => parseStored(invoiceSnapshotSchema, raw, 'invoice snapshot'));
  }

  // ---------------------------------------------------------------- schedules

  /**
   * Notes that these networks are scheduled from `now` on, unless noted already: a network that
   * has never run is overdue only once its first scheduled run (plus grace) has passed.
   * One round trip for all of them (pipelined HSETNX).
   */
  async markScheduled(networkIds: readonly string[], now: number): Promise<void> {
    if (networkIds.length === 0) return;
    for (const id of networkIds) this.keys.network(id); // validates the ids
    const pipeline = this.redis.pipeline();
    for (const id of networkIds) pipeline.hsetnx(this.keys.scheduledSince, id, String(now));
    const replies = await this.call('markScheduled', () => pipeline.exec());
    for (const [error] of replies ?? []) if (error) throw storeError('markScheduled', error);
  }

  // ---------------------------------------------------------------- config reloads

  /** A worker's failed config reload, for `thm status` (expires unless refreshed). */
  async recordReloadFailure(
    instance: string,
    message: string,
    at: number,
    ttlSeconds: number,
  ): Promise<void> {
    await this.call('recordReloadFailure', () =>
      this.redis.set(
        this.keys.reloadFailed(instance),
        JSON.stringify({ instance, message, at }),
        'EX',
        ttlSeconds,
      ),
    );
  }

  async clearReloadFailure(instance: string): Promise<void> {
    await this.call('clearReloadFailure', () => this.redis.del(this.keys.reloadFailed(instance)));
  }

  /** Every worker whose last config reload failed, oldest first. */
  async reloadFailures(): Promise<ReloadFailure[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await this.call('reloadFailures', () =>
        this.redis.scan(cursor, 'MATCH', this.keys.reloadFailedPattern, 'COUNT', 500),
      );
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    if (keys.length === 0) return [];
    const values = await this.call('reloadFailures', () => this.redis.mget(...keys));
    const out: ReloadFailure[] = [];
    for (const value of values) {
      if (value === null) continue;
      try {
        const parsed = JSON.parse(value) as { instance?: unknown; message?: unknown; at?: unknown };
        if (
          typeof parsed.instance === 'string' &&
          typeof parsed.message === 'string' &&
          typeof parsed.at === 'number'
        )
          out.push({ instance: parsed.instance, message: parsed.message, failedAt: parsed.at });
      } catch {
        // Not ours to interpret: skipped.
      }
    }
    return out.sort((a, b) => a.failedAt - b.failedAt);
  }

  /** When each network was first scheduled (absent: never, or before this was recorded). */
  async scheduledSince(networkIds: readonly string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    if (networkIds.length === 0) return result;
    const values = await this.call('scheduledSince', () =>
      this.redis.hmget(this.keys.scheduledSince, ...networkIds),
    );
    values.forEach((value, i) => {
      const at = Number(value);
      if (value !== null && Number.isFinite(at)) result.set(networkIds[i]!, at);
    });
    return result;
  }

  // ---------------------------------------------------------------- outbox

  /**
   * Puts notifications (e-mails) and channel deliveries into the outbox on their own, without a
   * run record (see outboxAddScript). Returns how many were new.
   */
  async addToOutbox(items: ReadonlyArray<Notification | ChannelDelivery>): Promise<number> {
    if (items.length === 0) return 0;
    return (await this.call('addToOutbox', () =>
      outboxAddScript.run(
        this.redis,
        [this.keys.outboxBody, this.keys.outboxPending],
        [items.length, ...outboxArgs(items)],
      ),
    )) as number;
  }

  // ---------------------------------------------------------------- unreadable state

  /**
   * A network whose own state cannot be read: opens its unreadable-state episode and puts the
   * problem notice (e-mails and channel deliveries) into the outbox, in one step (see
   * unreadableProblemScript). False, and nothing added, when the episode is open already: one
   * notice per episode, not one per failed run or as-of date.
   */
  async openUnreadableEpisode(
    networkId: string,
    episode: ProblemEpisode,
    items: ReadonlyArray<Notification | ChannelDelivery>,
  ): Promise<boolean> {
    this.keys.network(networkId); // validates the id
    const keys = [this.keys.unreadableEpisodes, this.keys.outboxBody, this.keys.outboxPending];
    const added = (await this.call('openUnreadableEpisode', () =>
      writeConfirmed(this.redis, keys[0]!, this.confirm, 'commit', () =>
        unreadableProblemScript.run(this.redis, keys, [
          networkId,
          JSON.stringify(episode),
          items.length,
          ...outboxArgs(items),
        ]),
      ),
    )) as number;
    return added >= 0;
  }

  /** The networks with an open unreadable-state episode. */
  async unreadableEpisodeNetworks(): Promise<string[]> {
    const ids = await this.call('unreadableEpisodeNetworks', () =>
      this.redis.hkeys(this.keys.unreadableEpisodes),
    );
    return ids.sort();
  }

  /**
   * Ends the unreadable-state episode of a network whose state reads again (see
   * handOverEpisodeScript): it becomes the network's open problem, closed with one "restored"
   * notice by the next successful traffic-check. False when there was none.
   */
  async handOverUnreadableEpisode(networkId: string): Promise<boolean> {
    const handed = await this.networkCall(networkId, 'handOverUnreadableEpisode', () =>
      handOverEpisodeScript.run(
        this.redis,
        [this.keys.unreadableEpisodes, this.keys.network(networkId)],
        [networkId, FIELD.problem, FIELD.rev],
      ),
    );
    return handed === 1;
  }

  /**
   * Ids of the pending notifications due at `now`, earliest due first. Ids only: a sweep hands
   * them to delivery, whose claim reads each entry anyway.
   */
  async pendingNotificationIds(limit: number, now: number): Promise<string[]> {
    return this.call('pendingNotificationIds', () =>
      this.redis.zrangebyscore(this.keys.outboxPending, '-inf', now, 'LIMIT', 0, limit),
    );
  }

  async getNotification(id: string): Promise<OutboxEntry | undefined> {
    const [entry] = await this.getNotifications([id]);
    return entry;
  }

  /** The outbox entries of `ids`, in their order (undefined where there is none): one read. */
  async getNotifications(ids: string[]): Promise<Array<OutboxEntry | undefined>> {
    const [bodies, metas] = await this.outboxFields(ids);
    return ids.map((_, i) => {
      const body = bodies[i];
      return body === null || body === undefined ? undefined : this.entry(body, metas[i] ?? null);
    });
  }

  async claimNotification(
    id: string,
    owner: string,
    leaseMs: number,
    now: number,
  ): Promise<OutboxClaim> {
    // Confirmed before anything is sent: an e-mail never goes out on an entry or a lease that
    // a failover could take back (the entry would be decided and sent again).
    const keys = this.leaseKeys(id);
    const reply = (await this.call('claimNotification', () =>
      writeConfirmed(this.redis, keys[0]!, this.confirm, 'claim', () =>
        leaseScript.run(this.redis, keys, ['claim', id, owner, leaseMs, now]),
      ),
    )) as [string, string?, (string | null)?];
    const [status, body, meta] = reply;
    if (status === 'claimed' && body !== undefined) {
      let entry: OutboxEntry;
      try {
        entry = this.entry(body, meta ?? null);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw await this.setAside(id, `unreadable outbox entry: ${reason}`);
      }
      return { status, entry };
    }
    if (status === 'not-due' && body !== undefined) return { status, dueAt: Number(body) };
    if (status === 'missing') {
      // An id in the pending list without a stored notification (a junk id): moved aside once,
      // not swept again and again.
      const pending = await this.call('claimNotification', () =>
        this.redis.zscore(this.keys.outboxPending, id),
      );
      if (pending !== null)
        throw await this.setAside(id, 'unreadable outbox entry: pending without a notification');
      return { status };
    }
    if (status === 'busy' || status === 'sent' || status === 'failed') {
      return { status };
    }
    throw new ThmError('THM_STORE', `unexpected lease reply ${JSON.stringify(status)}`);
  }

  async releaseNotification(id: string, owner: string): Promise<void> {
    await this.call('releaseNotification', () =>
      leaseScript.run(this.redis, this.leaseKeys(id), ['release', id, owner]),
    );
  }

  async recordAttempt(id: string, error: string, nextAttemptAt: number): Promise<void> {
    await this.transition('attempt', id, nextAttemptAt, error);
  }

  async markSent(id: string, at: number): Promise<void> {
    await this.transition('sent', id, at, '');
  }

  async markFailed(id: string, error: string, at: number): Promise<void> {
    await this.transition('failed', id, at, error);
  }

  /** Back to pending, due at `now`. False when it was not failed. */
  async retryFailed(id: string, now = Date.now()): Promise<boolean> {
    return (await this.transition('retry', id, now, '')) === 1;
  }

  async failedNotifications(): Promise<OutboxEntry[]> {
    const ids = await this.call('failedNotifications', () =>
      this.redis.zrange(this.keys.outboxFailed, 0, -1),
    );
    return this.entries(ids, 'failed');
  }

  /**
   * Failed entries that cannot be read (no notification, or one the store cannot parse): moved
   * aside by a sender's claim, listed by `thm notify failed` beside the refused ones.
   */
  async unreadableNotifications(): Promise<
    Array<{ id: string; lastError?: string; failedAt?: number }>
  > {
    const ids = await this.call('unreadableNotifications', () =>
      this.redis.zrange(this.keys.outboxFailed, 0, -1),
    );
    if (ids.length === 0) return [];
    const [bodies, metas] = await this.call('unreadableNotifications', () =>
      Promise.all([
        this.redis.hmget(this.keys.outboxBody, ...ids),
        this.redis.hmget(this.keys.outboxMeta, ...ids),
      ]),
    );
    const result: Array<{ id: string; lastError?: string; failedAt?: number }> = [];
    ids.forEach((id, i) => {
      const body = bodies[i];
      if (body !== null && body !== undefined && readable(body)) return;
      const meta = readableMeta(metas[i] ?? null);
      result.push({
        id,
        ...(meta?.lastError !== undefined ? { lastError: meta.lastError } : {}),
        ...(meta?.failedAt !== undefined ? { failedAt: meta.failedAt } : {}),
      });
    });
    return result;
  }

  /**
   * Moves an unreadable entry from pending to failed (with the reason), so no sender takes it
   * again and `thm notify failed` lists it. Returns the error for the caller to throw (its log
   * line is the one line that reports it).
   */
  private async setAside(id: string, reason: string): Promise<ThmError> {
    const now = Date.now();
    const meta = JSON.stringify({ state: 'failed', attempts: 0, lastError: reason, failedAt: now });
    await this.call('setAside', () =>
      this.redis
        .multi()
        .zrem(this.keys.outboxPending, id)
        .zadd(this.keys.outboxFailed, now, id)
        .hset(this.keys.outboxMeta, id, meta)
        .del(this.keys.outboxLease(id))
        .exec(),
    );
    return new ThmError('THM_STORE', `notification ${id}: ${reason}; moved to failed`);
  }

  async outboxCounts(): Promise<OutboxCounts> {
    const replies = await this.call('outboxCounts', () =>
      this.redis
        .multi()
        .zcard(this.keys.outboxPending)
        .zcard(this.keys.outboxSent)
        .zcard(this.keys.outboxFailed)
        .exec(),
    );
    const [pending, sent, failed] = (replies ?? []).map(([error, n]) => {
      if (error) throw storeError('outboxCounts', error);
      return Number(n);
    });
    return { pending: pending ?? 0, sent: sent ?? 0, failed: failed ?? 0 };
  }

  /**
   * The outbox per channel (`email`, or a channel delivery's channel name) and state: for
   * `thm status` (every state) and /metrics (`pending` and `failed` only: the sent set is the
   * large one, bounded by SENT_NOTIFICATION_MAX). Reads the ids of those sets.
   */
  async outboxCountsByChannel(
    states: readonly OutboxState[] = OUTBOX_STATES,
  ): Promise<Record<string, OutboxCounts>> {
    const k = this.keys;
    const keyOf: Record<OutboxState, string> = {
      pending: k.outboxPending,
      sent: k.outboxSent,
      failed: k.outboxFailed,
    };
    const multi = this.redis.multi();
    for (const state of states) multi.zrange(keyOf[state], 0, -1);
    const replies = await this.call('outboxCountsByChannel', () => multi.exec());
    const counts: Record<string, OutboxCounts> = {};
    (replies ?? []).forEach(([error, ids], i) => {
      if (error) throw storeError('outboxCountsByChannel', error);
      for (const id of ids as string[]) {
        const channel = parseChannelDeliveryId(id)?.channel ?? EMAIL_CHANNEL;
        counts[channel] ??= { pending: 0, sent: 0, failed: 0 };
        counts[channel][states[i]!] += 1;
      }
    });
    return counts;
  }

  private async transition(
    op: 'attempt' | 'sent' | 'failed' | 'retry',
    id: string,
    at: number,
    error: string,
  ): Promise<number> {
    const k = this.keys;
    const cutoff = at - SENT_NOTIFICATION_RETENTION_MS;
    return (await this.call(op, () =>
      outboxScript.run(
        this.redis,
        [
          k.outboxBody,
          k.outboxMeta,
          k.outboxPending,
          k.outboxSent,
          k.outboxFailed,
          k.outboxLease(id),
        ],
        [op, id, at, error, cutoff, SENT_NOTIFICATION_MAX],
      ),
    )) as number;
  }

  /** Entries by id, in order; ids gone meanwhile are skipped. */
  /** The bodies and states of `ids`, index by index. */
  private async outboxFields(ids: string[]): Promise<[(string | null)[], (string | null)[]]> {
    if (ids.length === 0) return [[], []];
    return this.call('outbox', () =>
      Promise.all([
        this.redis.hmget(this.keys.outboxBody, ...ids),
        this.redis.hmget(this.keys.outboxMeta, ...ids),
      ]),
    );
  }

  private async entries(ids: string[], only?: OutboxEntry['state']): Promise<OutboxEntry[]> {
    const [bodies, metas] = await this.outboxFields(ids);
    const result: OutboxEntry[] = [];
    ids.forEach((_, i) => {
      const body = bodies[i];
      if (body === null || body === undefined) return;
      // A listing skips an entry it cannot read (unreadableNotifications lists those).
      if (only !== undefined && !readable(body)) return;
      const entry = this.entry(body, metas[i] ?? null);
      if (only === undefined || entry.state === only) result.push(entry);
    });
    return result;
  }

  private entry(body: string, rawMeta: string | null): OutboxEntry {
    const meta: OutboxMeta = parseOptional(outboxMetaSchema, rawMeta, 'outbox state') ?? {
      state: 'pending',
      attempts: 0,
    };
    const entry: OutboxEntry = {
      notification: parseStored(outboxItemSchema, body, 'notification'),
      state: meta.state,
      attempts: meta.attempts,
    };
    if (meta.lastError !== undefined) entry.lastError = meta.lastError;
    if (meta.sentAt !== undefined) entry.sentAt = meta.sentAt;
    if (meta.nextAttemptAt !== undefined) entry.nextAttemptAt = meta.nextAttemptAt;
    if (meta.failedAt !== undefined) entry.failedAt = meta.failedAt;
    return entry;
  }

  private leaseKeys(id: string): string[] {
    const k = this.keys;
    return [k.outboxBody, k.outboxMeta, k.outboxPending, k.outboxLease(id)];
  }

  // ---------------------------------------------------------------- plumbing

  /** Parses one field of a network's hash; its failure names the network, key and field. */
  private readField<T>(networkId: string, field: string, parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (error instanceof StoredStateError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new StoredStateError(networkId, this.keys.network(networkId), field, reason);
    }
  }

  /** A command on a network's hash: a WRONGTYPE there is that network's unreadable state. */
  private async networkCall<T>(
    networkId: string,
    operation: string,
    work: () => Promise<T>,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.networkError(networkId, error, operation);
    }
  }

  private networkError(networkId: string, error: unknown, operation = 'read'): ThmError {
    const message = error instanceof Error ? error.message : String(error);
    if (/^WRONGTYPE/.test(message))
      return new StoredStateError(
        networkId,
        this.keys.network(networkId),
        undefined,
        'holds another Redis type than the hash the store writes (WRONGTYPE)',
      );
    return storeError(operation, error);
  }

  private async call<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeError(operation, error);
    }
  }
}

/** Outbox entries as script arguments: id, JSON, due time each. */
function outboxArgs(items: ReadonlyArray<Notification | ChannelDelivery>): string[] {
  return items.flatMap((item) => [
    item.id,
    JSON.stringify('channel' in item ? item : outboxNotification(item)),
    String(item.createdAt),
  ]);
}

/** A field read as bytes, as text (hmget's decoding). */
function text(bytes: Buffer | null | undefined): string | null {
  return bytes ? bytes.toString('utf8') : null;
}

/** The sent-events record's new lines: one JSON string an event. */
function sentLines(events: readonly string[]): string {
  let lines = '';
  for (const event of events) lines += `${JSON.stringify(event)}\n`;
  return lines;
}

/** What the outbox keeps of a notification: all but the events (see OutboxNotification). */
function outboxNotification(n: Notification): OutboxNotification {
  const { events: _events, ...kept } = n;
  return kept;
}

function storeError(operation: string, error: unknown): ThmError {
  if (error instanceof ThmError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // A reply error (WRONGTYPE, a script's THM_STORE ...) will not go away by retrying; a lost
  // connection may, and so does a failover's refusal (READONLY, CLUSTERDOWN, ...).
  const reply = error instanceof Error && error.name === 'ReplyError' && !isFailoverReply(error);
  return new ThmError('THM_STORE', `redis ${operation}: ${firstLine(message)}`, {
    retryable: !reply,
    cause: error,
  });
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

function checkDate(asOf: string): void {
  if (!isIsoDate(asOf)) throw new ThmError('THM_STORE', `not a YYYY-MM-DD as-of date: ${asOf}`);
}

function parseLines(raw: string | null | undefined): string[] {
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

/** Whether an outbox body parses as a notification. */
function readable(body: string): boolean {
  try {
    parseStored(outboxItemSchema, body, 'notification');
    return true;
  } catch {
    return false;
  }
}

function readableMeta(raw: string | null): OutboxMeta | undefined {
  try {
    return parseOptional(outboxMetaSchema, raw, 'outbox state');
  } catch {
    return undefined;
  }
}

function parseRev(raw: string | null | undefined): number {
  if (!raw) return 0;
  const rev = Number(raw);
  if (!Number.isSafeInteger(rev) || rev < 0)
    throw new ThmError('THM_STORE', `stored revision is not a whole number`);
  return rev;
}

function parseSilences(raw: string | null | undefined): Silence[] {
  if (!raw) return [];
  return raw
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => parseStored(silenceSchema, line, 'silence'));
}
