import type { IsoDate } from '../dates.js';
import type { ProblemEpisode, RunKind, Silence } from '../monitor/types.js';
import type { ChannelDelivery, Notification, OutboxStore } from '../notify/types.js';
import type { RedisClient } from '../redis/connection.js';
import type { ConfirmOptions } from './confirm.js';
import type { StoreContext } from './context.js';
import { storeKeys, type StoreKeys } from './keys.js';
import * as networkState from './network-state.js';
import type { LoadOptions, RunEffect } from './network-state.js';
import * as outbox from './outbox.js';
import type { OutboxState } from './outbox.js';
import * as reloadFailures from './reload-failures.js';
import * as runRecords from './run-records.js';
import * as schedules from './schedules.js';
import * as silences from './silences.js';
import * as unreadableEpisodes from './unreadable-episodes.js';
import * as workerAdverts from './worker-adverts.js';
import type { WorkerAdvert } from './worker-adverts.js';

export type {
  CommitResult,
  LoadOptions,
  NetworkOverview,
  NetworkState,
  RunEffect,
} from './network-state.js';
export type { OutboxCounts, OutboxState } from './outbox.js';
export type { ReloadFailure } from './reload-failures.js';

/**
 * The monitor's memory in Redis, as the rest of the product uses it: one object over one
 * connection and key prefix, whose methods each hand over to the module that does that job:
 * - network-state.ts: a network's state, loaded for a run and committed with its whole effect;
 * - run-records.ts: the run records (`thm history`, `thm status`, overdue checks);
 * - silences.ts: `thm silence`;
 * - schedules.ts and reload-failures.ts: what the workers note for `thm status`;
 * - outbox.ts: the e-mails and channel deliveries, from pending to sent or failed;
 * - unreadable-episodes.ts: the problem of a network whose own state cannot be read.
 * The stored listings that `thm replay` reads are read by listings.ts itself.
 * Every key name is in keys.ts; the Lua steps in scripts.ts.
 */
export class RedisStore implements OutboxStore {
  readonly keys: StoreKeys;
  private readonly ctx: StoreContext;

  constructor(
    redis: RedisClient,
    prefix: string,
    /** Writes that must survive a failover (commit, claim) wait for replicas: store/confirm.ts. */
    confirm: ConfirmOptions = { replicas: 0, timeoutMs: 0 },
  ) {
    this.keys = storeKeys(prefix);
    this.ctx = { redis, keys: this.keys, confirm };
  }

  // A network's state (network-state.ts)

  loadNetworkState(networkId: string, options: LoadOptions) {
    return networkState.loadNetworkState(this.ctx, networkId, options);
  }

  commitRun(effect: RunEffect) {
    return networkState.commitRun(this.ctx, effect);
  }

  confirmNetworkWrites(networkId: string) {
    return networkState.confirmNetworkWrites(this.ctx, networkId);
  }

  networkNow(networkId: string, timeZone: string, now: number) {
    return networkState.networkNow(this.ctx, networkId, timeZone, now);
  }

  networkIds() {
    return networkState.networkIds(this.ctx);
  }

  deleteNetworkState(networkId: string) {
    return networkState.deleteNetworkState(this.ctx, networkId);
  }

  listInvoiceSnapshots(networkId: string, limit: number) {
    return networkState.listInvoiceSnapshots(this.ctx, networkId, limit);
  }

  // Run records (run-records.ts)

  getRun(networkId: string, kind: RunKind, asOf: IsoDate) {
    return runRecords.getRun(this.ctx, networkId, kind, asOf);
  }

  runDates(networkId: string, kind: RunKind) {
    return runRecords.runDates(this.ctx, networkId, kind);
  }

  listRuns(networkId: string, options?: { days?: number; limit?: number; now?: number }) {
    return runRecords.listRuns(this.ctx, networkId, options);
  }

  latestRuns(networkId: string) {
    return runRecords.latestRuns(this.ctx, networkId);
  }

  // Silences (silences.ts)

  addSilence(silence: Omit<Silence, 'id' | 'createdAt'>, now: number) {
    return silences.addSilence(this.ctx, silence, now);
  }

  listSilences(networkId?: string, now?: number, options?: { expired?: boolean }) {
    return silences.listSilences(this.ctx, networkId, now, options);
  }

  readSilences(networkId?: string, now?: number, options?: { expired?: boolean }) {
    return silences.readSilences(this.ctx, networkId, now, options);
  }

  removeSilence(id: string, now?: number) {
    return silences.removeSilence(this.ctx, id, now);
  }

  // What the workers note (schedules.ts, reload-failures.ts, worker-adverts.ts)

  markScheduled(networkIds: readonly string[], now: number) {
    return schedules.markScheduled(this.ctx, networkIds, now);
  }

  scheduledSince(networkIds: readonly string[]) {
    return schedules.scheduledSince(this.ctx, networkIds);
  }

  recordReloadFailure(instance: string, message: string, at: number, ttlSeconds: number) {
    return reloadFailures.recordReloadFailure(this.ctx, instance, message, at, ttlSeconds);
  }

  clearReloadFailure(instance: string) {
    return reloadFailures.clearReloadFailure(this.ctx, instance);
  }

  reloadFailures() {
    return reloadFailures.reloadFailures(this.ctx);
  }

  publishAdvert(advert: WorkerAdvert, now: number) {
    return workerAdverts.publishAdvert(this.ctx, advert, now);
  }

  liveAdverts(now: number) {
    return workerAdverts.liveAdverts(this.ctx, now);
  }

  withdrawAdvert(instance: string) {
    return workerAdverts.withdrawAdvert(this.ctx, instance);
  }

  // The outbox (outbox.ts)

  addToOutbox(items: ReadonlyArray<Notification | ChannelDelivery>) {
    return outbox.addToOutbox(this.ctx, items);
  }

  pendingNotificationIds(limit: number, now: number) {
    return outbox.pendingNotificationIds(this.ctx, limit, now);
  }

  getNotification(id: string) {
    return outbox.getNotification(this.ctx, id);
  }

  getNotifications(ids: string[]) {
    return outbox.getNotifications(this.ctx, ids);
  }

  claimNotification(id: string, owner: string, leaseMs: number, now: number) {
    return outbox.claimNotification(this.ctx, id, owner, leaseMs, now);
  }

  releaseNotification(id: string, owner: string) {
    return outbox.releaseNotification(this.ctx, id, owner);
  }

  recordAttempt(id: string, error: string, nextAttemptAt: number) {
    return outbox.recordAttempt(this.ctx, id, error, nextAttemptAt);
  }

  markSent(id: string, at: number) {
    return outbox.markSent(this.ctx, id, at);
  }

  markFailed(id: string, error: string, at: number) {
    return outbox.markFailed(this.ctx, id, error, at);
  }

  retryFailed(id: string, now?: number) {
    return outbox.retryFailed(this.ctx, id, now);
  }

  failedNotifications() {
    return outbox.failedNotifications(this.ctx);
  }

  unreadableNotifications() {
    return outbox.unreadableNotifications(this.ctx);
  }

  outboxCounts() {
    return outbox.outboxCounts(this.ctx);
  }

  outboxCountsByChannel(states?: readonly OutboxState[]) {
    return outbox.outboxCountsByChannel(this.ctx, states);
  }

  // Networks whose state cannot be read (unreadable-episodes.ts)

  openUnreadableEpisode(
    networkId: string,
    episode: ProblemEpisode,
    items: ReadonlyArray<Notification | ChannelDelivery>,
  ) {
    return unreadableEpisodes.openUnreadableEpisode(this.ctx, networkId, episode, items);
  }

  unreadableEpisodeNetworks() {
    return unreadableEpisodes.unreadableEpisodeNetworks(this.ctx);
  }

  handOverUnreadableEpisode(networkId: string) {
    return unreadableEpisodes.handOverUnreadableEpisode(this.ctx, networkId);
  }
}
