import type {
  ClassifiedPair,
  DayFigures,
  IsoDate,
  PairClass,
  Severity,
} from '../../monitor/types.js';
import type { NotificationKind } from '../../notification-names.js';
import type { ChannelMessageInput } from './event.js';
import { channelListing, clicksOf } from './listing.js';

/**
 * The webhook's JSON document, version 1 (docs/configuration.md, its schema and an example). One per notification, the
 * same on every retry. Adding a field is compatible; renaming or removing one means version 2.
 */
export const WEBHOOK_PAYLOAD_VERSION = 1;

/**
 * Pairs listed in one document, worst first; `pairsOmitted` counts the rest (`thm history
 * --json` has them all). Keeps a 10,000-pair first day to a post of a few hundred KB.
 */
export const MAX_WEBHOOK_PAIRS = 1_000;
export const MAX_WEBHOOK_DOMAINS = 100;

export interface WebhookPair {
  class: PairClass;
  domain: { id: number; url: string };
  isp: string;
  severity: Severity;
  /** Drop against 7 days back, percent (positive is a drop). */
  dropPercent: number;
  /** Yesterday and 7, 14, 30 days back; null for a pair no longer in the API's list. */
  clicks: DayFigures | null;
  firstSeen: IsoDate;
  /** Cleared only: the clear may be the comparison day sliding into the block (the e-mail's caveat). */
  mayStillBeDepressed: boolean;
}

export interface WebhookPayload {
  version: typeof WEBHOOK_PAYLOAD_VERSION;
  /** Also the X-Thm-Notification-Id header: the idempotency key. */
  notificationId: string;
  /** The e-mail's Message-ID: the same notification on every channel. */
  messageId: string;
  kind: NotificationKind;
  network: { id: string; name: string };
  asOf: IsoDate;
  /** ISO 8601, when the notification was decided. */
  createdAt: string;
  /** The e-mail's subject. */
  title: string;
  /** alert: pairs per class in this run (ongoing and silenced are counted, never listed). */
  counts?: Record<PairClass, number>;
  /**
   * alert: the common drops that are news (most of a domain, or of the network, down together:
   * monitor/common-drops.ts), the network's first; absent: none.
   */
  drops?: Array<{
    scope: 'domain' | 'network';
    /** The domain's id (0 for the network) and URL. */
    domainId: number;
    url: string;
    class: string;
    dropPercent: number;
    ispsDown: number;
    ispsKnown: number;
  }>;
  /** alert: domains with declining pairs, worst first. */
  domains?: Array<{
    id: number;
    url: string;
    ispsAffected: number;
    clicksLost: number;
    looksBlocked: boolean;
  }>;
  /** alert: the pairs of this notification, worst first. */
  pairs?: WebhookPair[];
  /** alert: pairs not listed (beyond MAX_WEBHOOK_PAIRS). */
  pairsOmitted?: number;
  /** problem, restored: the episode (code is the monitor's error code). */
  problem?: { code: string; message: string; openedAt: string; restoredAt?: string };
  /** premium-lost, premium-regained. */
  premium?: { active: boolean; firstSight: boolean };
  /** invoice: the snapshot and its change since the previous one. */
  invoice?: {
    time: string;
    status: string;
    totalCount: number;
    balance: number;
    billed: number;
    paid: number;
    change?: { totalCount: number; balance: number; billed: number; paid: number };
  };
}

export function renderWebhookPayload(input: ChannelMessageInput): WebhookPayload {
  const { notification: n, event } = input;
  const payload: WebhookPayload = {
    version: WEBHOOK_PAYLOAD_VERSION,
    notificationId: n.id,
    messageId: n.messageId,
    kind: n.kind,
    network: { id: input.network.id, name: input.network.name },
    asOf: n.asOf,
    createdAt: new Date(n.createdAt).toISOString(),
    title: n.subject,
  };
  switch (event.kind) {
    case 'alert': {
      const listing = channelListing(event.classification, event.notifyCleared);
      payload.counts = { ...event.classification.counts };
      if (listing.drops.length > 0) {
        payload.drops = listing.drops.map((d) => ({
          scope: d.scope,
          domainId: d.domainId,
          url: d.domainUrl,
          class: d.class,
          dropPercent: Math.round(d.dropPercent * 10) / 10,
          ispsDown: d.ispsDown,
          ispsKnown: d.ispsKnown,
        }));
      }
      payload.domains = listing.domains.slice(0, MAX_WEBHOOK_DOMAINS).map((d) => ({
        id: d.domainId,
        url: d.domainUrl,
        ispsAffected: d.ispsAffected,
        clicksLost: d.clicksLost,
        looksBlocked: d.headline,
      }));
      payload.pairs = listing.pairs.slice(0, MAX_WEBHOOK_PAIRS).map(webhookPair);
      payload.pairsOmitted = Math.max(0, listing.pairs.length - MAX_WEBHOOK_PAIRS);
      break;
    }
    case 'problem':
    case 'restored': {
      const { code, message, openedAt } = event.problem;
      payload.problem = { code, message, openedAt: new Date(openedAt).toISOString() };
      if (event.kind === 'restored')
        payload.problem.restoredAt = new Date(event.restoredAt).toISOString();
      break;
    }
    case 'premium-lost':
    case 'premium-regained':
      payload.premium = { active: event.kind === 'premium-regained', firstSight: event.firstSight };
      break;
    case 'invoice': {
      const s = event.snapshot;
      payload.invoice = {
        time: new Date(s.time * 1000).toISOString(),
        status: s.status,
        totalCount: s.total_count,
        balance: s.balance,
        billed: s.billed,
        paid: s.paid,
      };
      if (event.change) {
        const c = event.change;
        payload.invoice.change = {
          totalCount: c.total_count,
          balance: c.balance,
          billed: c.billed,
          paid: c.paid,
        };
      }
      break;
    }
  }
  return payload;
}

function webhookPair(pair: ClassifiedPair): WebhookPair {
  return {
    class: pair.class,
    domain: { id: pair.domainId, url: pair.domainUrl },
    isp: pair.isp,
    severity: pair.severity,
    dropPercent: Math.round(pair.dropPercent * 10) / 10,
    clicks: clicksOf(pair) ?? null,
    firstSeen: pair.firstSeen,
    mayStillBeDepressed: pair.mayStillBeDepressed === true,
  };
}
