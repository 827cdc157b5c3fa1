import { z } from 'zod';
import { THM_ERROR_CODES, ThmError } from '../errors.js';
import { DROP_CLASSES, PAIR_CLASSES, RUN_KINDS } from '../monitor/types.js';
import type {
  InvoiceSnapshot,
  LearnedState,
  PremiumState,
  ProblemEpisode,
  RunRecord,
  Silence,
} from '../monitor/types.js';
import type { RunChoiceFields } from '../monitor/overdue.js';
import { CHANNEL_TYPES } from '../notification-names.js';
import type { ChannelDelivery, OutboxItem, OutboxNotification } from '../notify/types.js';

/**
 * Schemas of the small records the store keeps as JSON. Redis is a boundary like any other:
 * what comes back is validated, so a stale or hand-edited value is a clear THM_STORE error
 * instead of a crash somewhere downstream. Typed against the domain types, so they cannot drift.
 */

/**
 * An error code of a stored run record or problem episode. A code this version does not know
 * (written by another version) reads as THM_INTERNAL, its message kept, rather than making the
 * network's whole state unreadable.
 */
const storedCode = z.enum(THM_ERROR_CODES).catch('THM_INTERNAL');

const counts = z.object(
  Object.fromEntries(PAIR_CLASSES.map((c) => [c, z.number().int()])) as Record<
    (typeof PAIR_CLASSES)[number],
    z.ZodNumber
  >,
);

const RUN_OUTCOMES = ['ok', 'premium-inactive', 'failed'] as const satisfies ReadonlyArray<
  RunRecord['outcome']
>;

export const runRecordSchema: z.ZodType<RunRecord> = z.object({
  networkId: z.string(),
  kind: z.enum(RUN_KINDS),
  asOf: z.string(),
  outcome: z.enum(RUN_OUTCOMES),
  startedAt: z.number(),
  finishedAt: z.number(),
  counts: counts.optional(),
  pairsListed: z.number().int().optional(),
  drops: z
    .array(
      z.object({
        scope: z.enum(['domain', 'network']),
        domainId: z.number().int(),
        class: z.enum(DROP_CLASSES),
        dropPercent: z.number(),
      }),
    )
    .optional(),
  notificationIds: z.array(z.string()),
  deliveryIds: z.array(z.string()).optional(),
  error: z.object({ code: storedCode, message: z.string() }).optional(),
  runs: z.number().int(),
});

export const premiumStateSchema: z.ZodType<PremiumState> = z.object({
  hasPremium: z.boolean(),
  checkedAt: z.number(),
  since: z.number(),
});

export const problemEpisodeSchema: z.ZodType<ProblemEpisode> = z.object({
  kind: z.enum(RUN_KINDS),
  openedAt: z.number(),
  code: storedCode,
  message: z.string(),
});

export const invoiceSnapshotSchema: z.ZodType<InvoiceSnapshot> = z.object({
  time: z.number(),
  status: z.string(),
  total_count: z.number(),
  balance: z.number(),
  billed: z.number(),
  paid: z.number(),
});

/**
 * A finite number: zod's number refuses Infinity and NaN itself (and JSON holds neither). A
 * refinement saying so again cost a call per number, in every run's and status's read.
 */
const finite = z.number();
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a YYYY-MM-DD date');

/** What is learned of a network (monitor/types.ts, LearnedState). */
export const learnedStateSchema: z.ZodType<LearnedState> = z.object({
  variation: z
    .object({
      asOf: date,
      spread: z.array(finite),
      spreadWeight: z.array(finite),
      shared: z.array(finite),
      sharedWeight: z.array(finite),
      network: z.array(finite),
      networkSquares: z.array(finite).optional(),
      networkWeight: z.array(finite),
      days: finite,
    })
    .optional(),
  known: z.array(
    z.object({
      domainId: z.number().int(),
      since: z.number().int(),
      level: z.number().int().min(0).max(16),
      hashes: z.array(z.number().int().min(0).max(0xffff)),
      lastListed: z.array(z.number().int()),
    }),
  ),
  drops: z.array(
    z.object({
      scope: z.enum(['domain', 'network']),
      domainId: z.number().int(),
      domainUrl: z.string(),
      firstSeen: date,
      lastSeen: date,
      lastNotified: date.optional(),
      dropPercent: finite,
      dropPercent14: finite,
      notifiedDropPercent: finite,
      quietRuns: z.number().int().min(0),
      quietAsOf: date.optional(),
    }),
  ),
  domainRuns: z
    .array(
      z.object({
        domainId: z.number().int(),
        first: date,
        last: date,
        days: z.number().int().min(1),
        log7: finite,
        log14: finite,
        variance: finite,
        toldByCard: z.boolean().optional(),
      }),
    )
    .optional(),
  day30Shares: z.array(finite).length(7).optional(),
  outages: z
    .array(z.object({ domainId: z.number().int(), firstSeen: date, lastSeen: date }))
    .optional(),
  networkDips: z
    .array(z.object({ seen: date, kept: finite.gt(0).lt(1), told: z.literal(true).optional() }))
    .optional(),
  levelShifts: z.array(z.object({ domainId: z.number().int(), firstSeen: date })).optional(),
});

export const silenceSchema: z.ZodType<Silence> = z.object({
  id: z.string(),
  networkId: z.string(),
  domainId: z.number().int().optional(),
  isp: z.string().optional(),
  caseSensitive: z.boolean().optional(),
  reason: z.string(),
  author: z.string().optional(),
  createdAt: z.number(),
  startsAt: z.number().optional(),
  expiresAt: z.number(),
});

/** Entries written before the events were dropped from the outbox still carry them: stripped. */
export const notificationSchema: z.ZodType<OutboxNotification> = z.object({
  id: z.string(),
  messageId: z.string(),
  networkId: z.string(),
  kind: z.enum(['alert', 'problem', 'restored', 'premium-lost', 'premium-regained', 'invoice']),
  asOf: z.string(),
  to: z.array(z.string()),
  createdAt: z.number(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
});

export const channelDeliverySchema: z.ZodType<ChannelDelivery> = z.object({
  id: z.string(),
  notificationId: z.string(),
  messageId: z.string(),
  networkId: z.string(),
  kind: z.enum(['alert', 'problem', 'restored', 'premium-lost', 'premium-regained', 'invoice']),
  asOf: z.string(),
  subject: z.string(),
  createdAt: z.number(),
  channel: z.object({ type: z.enum(CHANNEL_TYPES), name: z.string() }),
  body: z.string(),
});

/** An outbox body: a channel delivery (it has `channel`), else an e-mail. */
export const outboxItemSchema: z.ZodType<OutboxItem> = z.union([
  channelDeliverySchema,
  notificationSchema,
]);

/** Delivery state of one outbox entry (absent: pending, never attempted). */
export const outboxMetaSchema = z.object({
  state: z.enum(['pending', 'sent', 'failed']),
  attempts: z.number().int(),
  lastError: z.string().optional(),
  sentAt: z.number().optional(),
  nextAttemptAt: z.number().optional(),
  failedAt: z.number().optional(),
});
export type OutboxMeta = z.infer<typeof outboxMetaSchema>;

/**
 * Whether a parsed run record has the three fields that `latestRuns` (monitor/overdue.ts)
 * chooses by, as runRecordSchema has them: the light check of RedisStore.latestRuns, which
 * validates only the records it chooses.
 */
export function hasRunChoiceFields(value: unknown): value is RunChoiceFields {
  if (value === null || typeof value !== 'object') return false;
  const { kind, outcome, finishedAt } = value as Record<string, unknown>;
  return (
    (RUN_KINDS as readonly unknown[]).includes(kind) &&
    (RUN_OUTCOMES as readonly unknown[]).includes(outcome) &&
    typeof finishedAt === 'number'
  );
}

/** A stored value's JSON, parsed; `what` names it in the error. */
export function parseStoredJson(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new ThmError('THM_STORE', `stored ${what} is not JSON`);
  }
}

/** Parses a stored JSON value with its schema; `what` names it in the error. */
export function parseStored<T>(schema: z.ZodType<T>, raw: string, what: string): T {
  const value = parseStoredJson(raw, what);
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(root)';
    throw new ThmError('THM_STORE', `stored ${what} is invalid at ${where}: ${issue?.message}`);
  }
  return result.data;
}

export function parseOptional<T>(
  schema: z.ZodType<T>,
  raw: string | null | undefined,
  what: string,
): T | undefined {
  return raw === null || raw === undefined || raw === ''
    ? undefined
    : parseStored(schema, raw, what);
}

/** A network's silences: one JSON object a line (absent: none). */
export function parseSilenceLines(raw: string | null | undefined): Silence[] {
  if (!raw) return [];
  return raw
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => parseStored(silenceSchema, line, 'silence'));
}
