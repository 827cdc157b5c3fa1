import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { backoffDelay } from '../../backoff.js';
import { ChannelError } from '../../errors.js';
import type { Logger } from '../../log.js';
import {
  isChannelDelivery,
  type ChannelDelivery,
  type DeliveryOutcome,
  type OutboxStore,
} from '../types.js';
import type { ChannelTransport } from './transport.js';
import { readChannel, type ChannelTarget } from './target.js';
import type { ChannelConfig } from '../../config/load.js';
import { ConfigError } from '../../errors.js';

/**
 * Delivers channel deliveries from the outbox, one attempt per call, with the e-mail's
 * guarantees (see NotificationSender): claim (state check plus lease, so two replicas never
 * post the same delivery at once) -> post -> markSent only after a 2xx. A crash between the
 * endpoint's 2xx and the record posts it again, with the same X-Thm-Notification-Id and body.
 *
 * Transient failures (5xx, 408, 429, timeouts, connection errors) are due again after a backoff,
 * or after the endpoint's Retry-After when that is longer, until `maxAttempts`; then, like any
 * other 4xx at once, the delivery is failed for good: `thm notify failed` lists it with the
 * reply and `thm notify retry` puts it back.
 *
 * One endpoint that hangs must not take every slot of the channels queue: at most
 * `maxPerEndpoint` posts to one endpoint are in flight in this sender; a delivery beyond that
 * gives its lease back unposted ('endpoint-busy') and is due again a moment later, while the
 * deliveries to other endpoints go on.
 */
export interface ChannelSenderOptions {
  store: OutboxStore;
  transport: ChannelTransport;
  /** The configured channel of a network by name; undefined: no longer configured. */
  channel(networkId: string, name: string): ChannelConfig | undefined;
  logger: Logger;
  /** @defaultValue Date.now */
  now?: () => number;
  /** @defaultValue DEFAULT_CHANNEL_BACKOFF */
  backoff?: { baseMs: number; maxMs: number };
  /** @defaultValue Math.random */
  random?: () => number;
  /** Transient failures before giving up. @defaultValue DEFAULT_CHANNEL_MAX_ATTEMPTS */
  maxAttempts?: number;
  /**
   * Must outlast the slowest post (the channels' deadlines); a function is asked at each claim,
   * so a reloaded config's longer deadline takes effect. @defaultValue 60000
   */
  leaseMs?: number | (() => number);
  /** Posts to one endpoint in flight at once in this sender. @defaultValue 2 */
  maxPerEndpoint?: number;
  /** How long a delivery held back by maxPerEndpoint waits. @defaultValue 2000 */
  endpointBusyDelayMs?: number;
  onOutcome?: (delivery: ChannelDelivery, outcome: 'sent' | 'retry' | 'failed') => void;
}

/** 10 s doubling to an hour, with jitter. */
export const DEFAULT_CHANNEL_BACKOFF = { baseMs: 10_000, maxMs: 3_600_000 } as const;
/** With the default backoff, about 17 hours of trying. */
export const DEFAULT_CHANNEL_MAX_ATTEMPTS = 30;
/** The longest Retry-After honoured; a longer one waits this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export interface ChannelAttempt {
  outcome: DeliveryOutcome;
  /** 'retry' or 'not-due': when it is due again (epoch ms). */
  retryAt?: number;
}

export class ChannelSender {
  readonly #o: Required<Omit<ChannelSenderOptions, 'onOutcome'>> &
    Pick<ChannelSenderOptions, 'onOutcome'>;
  readonly #logger: Logger;
  readonly #owner = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  /** Posts in flight per endpoint (endpointKey). */
  readonly #inFlight = new Map<string, number>();

  constructor(options: ChannelSenderOptions) {
    // Each default by ??, so an option passed as undefined (a caller's own optional) keeps it.
    this.#o = {
      ...options,
      now: options.now ?? Date.now,
      backoff: options.backoff ?? DEFAULT_CHANNEL_BACKOFF,
      random: options.random ?? Math.random,
      maxAttempts: options.maxAttempts ?? DEFAULT_CHANNEL_MAX_ATTEMPTS,
      leaseMs: options.leaseMs ?? 60_000,
      maxPerEndpoint: options.maxPerEndpoint ?? 2,
      endpointBusyDelayMs: options.endpointBusyDelayMs ?? 2_000,
    };
    this.#logger = options.logger.child({ component: 'channel-sender' });
  }

  async deliver(id: string): Promise<DeliveryOutcome> {
    return (await this.attempt(id)).outcome;
  }

  /** One attempt, and when a retried delivery is due again. Store errors are thrown. */
  async attempt(id: string): Promise<ChannelAttempt> {
    const { store } = this.#o;
    const leaseMs = typeof this.#o.leaseMs === 'function' ? this.#o.leaseMs() : this.#o.leaseMs;
    const claim = await store.claimNotification(id, this.#owner, leaseMs, this.#o.now());
    if (claim.status === 'not-due') return { outcome: 'not-due', retryAt: claim.dueAt };
    if (claim.status !== 'claimed') {
      if (claim.status === 'missing')
        this.#logger.warn({ deliveryId: id }, 'channel delivery not in the outbox');
      const outcome = {
        busy: 'in-flight',
        sent: 'already-sent',
        failed: 'failed',
        missing: 'missing',
      } as const;
      return { outcome: outcome[claim.status] };
    }
    const d = claim.entry.notification;
    if (!isChannelDelivery(d)) {
      await store.releaseNotification(id, this.#owner);
      return { outcome: 'in-flight' };
    }
    const target = this.#target(d);
    const endpoint = target instanceof ChannelError ? '' : endpointKey(target);
    const busy = this.#inFlight.get(endpoint) ?? 0;
    if (endpoint && busy >= this.#o.maxPerEndpoint) {
      await store.releaseNotification(id, this.#owner);
      return {
        outcome: 'endpoint-busy',
        retryAt: this.#o.now() + Math.round(this.#o.endpointBusyDelayMs * (1 + this.#o.random())),
      };
    }
    this.#inFlight.set(endpoint, busy + 1);
    try {
      const result = await this.#attemptClaimed(d, claim.entry.attempts, target);
      this.#o.onOutcome?.(d, result.outcome as 'sent' | 'retry' | 'failed');
      return result;
    } finally {
      const left = (this.#inFlight.get(endpoint) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(endpoint, left);
      else this.#inFlight.delete(endpoint);
    }
  }

  /**
   * The delivery's channel in the config in force, its secrets read now; why it cannot be posted
   * otherwise: a channel no longer configured is refused, a secret that does not resolve (a file
   * being rotated, say) is tried again like a 5xx. The error names the option, never the value.
   */
  #target(d: ChannelDelivery): ChannelTarget | ChannelError {
    const channel: ChannelConfig | undefined = this.#o.channel(d.networkId, d.channel.name);
    if (!channel || channel.type !== d.channel.type)
      return new ChannelError(
        'THM_CHANNEL_REJECTED',
        `${d.channel.type} channel "${d.channel.name}" of network ${d.networkId} is no longer configured`,
      );
    try {
      return readChannel(channel);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return new ChannelError('THM_CHANNEL_TRANSIENT', `network ${d.networkId}: ${error.message}`);
    }
  }

  async #attemptClaimed(
    d: ChannelDelivery,
    attempts: number,
    target: ChannelTarget | ChannelError,
  ): Promise<ChannelAttempt> {
    const { store } = this.#o;
    const log = {
      deliveryId: d.id,
      notificationId: d.notificationId,
      networkId: d.networkId,
      channel: d.channel.name,
      kind: d.kind,
    };
    let transitioned = false;
    try {
      let error: ChannelError | undefined;
      if (target instanceof ChannelError) {
        error = target;
      } else {
        try {
          const result = await this.#o.transport.post(d, target);
          await store.markSent(d.id, this.#o.now());
          transitioned = true;
          this.#logger.info({ ...log, response: result.response }, 'channel delivery sent');
          return { outcome: 'sent' };
        } catch (caught) {
          error =
            caught instanceof ChannelError
              ? caught
              : new ChannelError(
                  'THM_CHANNEL_TRANSIENT',
                  caught instanceof Error ? caught.message : String(caught),
                );
        }
      }
      const now = this.#o.now();
      if (error.code === 'THM_CHANNEL_TRANSIENT' && attempts + 1 < this.#o.maxAttempts) {
        const delay = Math.max(
          backoffDelay(attempts + 1, { ...this.#o.backoff, jitter: 'equal' }, this.#o.random),
          Math.min(error.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS),
        );
        await store.recordAttempt(d.id, error.message, now + delay);
        transitioned = true;
        this.#logger.warn(
          { ...log, attempts: attempts + 1, retryInMs: delay, error: error.message },
          'channel delivery not accepted, will retry',
        );
        return { outcome: 'retry', retryAt: now + delay };
      }
      const reason =
        error.code === 'THM_CHANNEL_TRANSIENT'
          ? `gave up after ${attempts + 1} attempts: ${error.message}`
          : error.message;
      await store.markFailed(d.id, reason, now);
      transitioned = true;
      this.#logger.error({ ...log, error: reason }, 'channel delivery failed for good');
      return { outcome: 'failed' };
    } finally {
      if (!transitioned) await store.releaseNotification(d.id, this.#owner).catch(() => {});
    }
  }
}

/**
 * Which endpoint a channel posts to, for the in-flight bound: a hash of its URL (the URL is a
 * secret and stays out of memory dumps of this map), or the outbox directory.
 */
function endpointKey(channel: ChannelTarget): string {
  if (!channel.url) return 'file';
  return createHash('sha256').update(channel.url.reveal()).digest('hex').slice(0, 16);
}
