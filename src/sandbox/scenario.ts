import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadYaml } from '../cjs-packages.js';
import { ConfigError } from '../errors.js';
import { invoiceSummarySchema } from '../api/schemas.js';
import { formatPath } from '../api/validate.js';
import { NETWORK_ID } from '../config/schema.js';
import { isIsoDate } from '../dates.js';

/**
 * A sandbox scenario: the networks the simulated API knows, their keys, premium flags, ISP
 * trend data and invoice summaries per as-of date, and faults queued from the start. Written as
 * YAML or JSON (`thm sandbox --scenario FILE`) or built in code (builtin.ts).
 *
 * Trend data of a network comes from, in this order: explicit `days` (an as-of date's entries,
 * full API entries or the shorthand below), else its `generator`, else nothing declines.
 *
 * Example (YAML):
 *
 *   seed: 7
 *   startDay: 2026-11-21
 *   networks:
 *     - id: acme
 *       name: Acme Network
 *       premium: true
 *       days:
 *         2026-11-21:
 *           entries:
 *             - { domain: 101, isp: Comcast, clicks: [120, 400, 390, 410] }
 *           summaries:
 *             unpaid: { total_count: 12, balance: 1500, billed: 4000, paid: 2500 }
 *     - id: globex
 *       generator:
 *         type: realistic
 *         domains: [{ id: 201, url: https://t.globex.example, clicks: 5000 }]
 *         isps: [{ name: Comcast, share: 0.3 }, { name: Verizon, share: 0.2 }]
 *         declines: [{ domain: 201, isps: [Comcast], start: 2026-11-19, profile: [40, 60, 0] }]
 */

export const PORTALS = ['network', 'affiliate', 'advertiser', 'marketplace'] as const;
export type Portal = (typeof PORTALS)[number];

/** Which endpoint a fault applies to. */
export const FAULT_ENDPOINTS = [
  'access',
  'isptrends',
  'summary',
  'identity',
  'connections',
  'advertiser-users',
  'tiered-commissions',
  'creatives',
  'entity-report',
  '*',
] as const;
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];

const isoDate = z.string().refine(isIsoDate, { message: 'must be a date YYYY-MM-DD' });
const count = z.number().int().nonnegative();
const figures = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export const faultSchema = z
  .object({
    /** Only requests with this network's keys; absent: any network. */
    network: z.string().optional(),
    /** absent or '*': any endpoint. */
    endpoint: z.enum(FAULT_ENDPOINTS).optional(),
    /** How many requests it applies to. @defaultValue 1 */
    times: z.number().int().min(1).default(1),
    /** Answer with this status (and {"error": <status text>} unless `body` says otherwise). */
    status: z.number().int().min(100).max(599).optional(),
    /** Retry-After header: seconds or an HTTP date. */
    retryAfter: z.union([z.number().nonnegative(), z.string().min(1)]).optional(),
    /** Wait this long before answering (then answer normally or with the fault). */
    delayMs: z.number().int().min(0).max(600_000).optional(),
    /**
     * - malformed-json: a body cut inside JSON, served complete (status 200 unless given)
     * - invalid-schema: the real body with one field of the last entry mistyped
     *   (isptrends: `yesterday_total_clicks` as a string; access: `has_premium`; summary: `balance`)
     * - truncated: the real body, Content-Length of all of it, the connection closed halfway
     * - stalled: the real body's headers and first half, then nothing (a body timeout)
     * - any other string: sent as the body verbatim
     */
    body: z.string().optional(),
    /** Send the body chunked, without Content-Length (tests the client's streaming cap). */
    chunked: z.boolean().optional(),
    /** Never answer (the connection stays open until the client gives up). */
    hang: z.boolean().optional(),
    /**
     * Send the answer's body one byte every this many ms: a server too slow for the client's
     * per-step timeouts (connect, headers, gap between chunks) ever to trip.
     */
    dripMs: z.number().int().min(1).max(60_000).optional(),
  })
  .strict();
export type Fault = z.input<typeof faultSchema>;
export type ParsedFault = z.output<typeof faultSchema>;

/** An entry written by hand: the sandbox computes every API field from the four-day figures. */
export const shorthandEntrySchema = z
  .object({
    domain: z.number().int().nonnegative(),
    /** relationship.url; default https://trk<domain>.example.com */
    url: z.string().optional(),
    isp: z.string().min(1),
    /** [yesterday, 7 days ago, 14 days ago, 30 days ago] */
    clicks: z.tuple([count, count, count, count]),
    conversions: z.tuple([count, count, count, count]).optional(),
    revenue: figures.optional(),
  })
  .strict();
export type ShorthandEntry = z.output<typeof shorthandEntrySchema>;

/**
 * An entry of an explicit day: an object with `network_tracking_domain_id` is a full API entry,
 * passed through as written (so a scenario can also serve odd data); anything else must be the
 * shorthand, and its problems are reported with their field path.
 */
export type DayEntry = ShorthandEntry | Record<string, unknown>;
export function isFullEntry(entry: unknown): entry is Record<string, unknown> {
  return typeof entry === 'object' && entry !== null && 'network_tracking_domain_id' in entry;
}
export function isShorthandEntry(entry: DayEntry): entry is ShorthandEntry {
  return !isFullEntry(entry);
}
/* Parsing is idempotent (a parsed scenario parses to itself), so startSandbox takes either. */
const dayEntrySchema = z.unknown().transform((value, ctx): DayEntry => {
  if (isFullEntry(value)) return value;
  const result = shorthandEntrySchema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    ctx.addIssue({
      code: 'custom',
      message: issue.message.replace(/^Invalid input: /, ''),
      path: issue.path,
    });
  }
  return z.NEVER;
});

const summarySchema = invoiceSummarySchema.strict();

const daySchema = z
  .object({
    entries: z.array(dayEntrySchema).optional(),
    /** Invoice summary per filters.status; statuses not listed are generated. */
    summaries: z.record(z.string(), summarySchema).optional(),
  })
  .strict();

const declineSchema = z
  .object({
    domain: z.number().int(),
    /** ISPs affected; absent: every ISP of the domain (a blocked domain). */
    isps: z.array(z.string()).optional(),
    /** First traffic day affected (the as-of date of the first run that sees it is one later). */
    start: isoDate,
    /** Percent of clicks lost on each day from `start`; the last value holds from then on. */
    profile: z.array(z.number().min(0).max(100)).min(1),
  })
  .strict();

export const realisticGeneratorSchema = z
  .object({
    type: z.literal('realistic'),
    domains: z
      .array(
        z
          .object({
            id: z.number().int().nonnegative(),
            url: z.string().min(1),
            /** Mean clicks per day of the whole domain. */
            clicks: z.number().positive(),
          })
          .strict(),
      )
      .min(1),
    isps: z
      .array(z.object({ name: z.string().min(1), share: z.number().positive().max(1) }).strict())
      .min(1),
    /** Multiplier per weekday, Sunday first. */
    weekly: z
      .array(z.number().positive())
      .length(7)
      .default([0.8, 1.05, 1.1, 1.08, 1.05, 1.0, 0.85]),
    conversionRate: z.number().min(0).max(1).default(0.025),
    /** Mean revenue per conversion. */
    payout: z.number().min(0).default(4.5),
    declines: z.array(declineSchema).default([]),
  })
  .strict();

/** N pairs, all declining and alertable with the default thresholds: for benchmarks. */
export const decliningGeneratorSchema = z
  .object({
    type: z.literal('declining'),
    pairs: z.number().int().min(0).max(1_000_000),
    /** ISPs per tracking domain. @defaultValue 50 */
    ispsPerDomain: z.number().int().min(1).default(50),
  })
  .strict();

const slug = z.string().regex(NETWORK_ID, 'must be a slug: a-z, 0-9, - and _');

export const sandboxNetworkSchema = z
  .object({
    id: slug,
    /** network_id in API bodies; default 1001 + the network's index. */
    networkId: z.number().int().positive().optional(),
    name: z.string().min(1).optional(),
    premium: z.boolean().default(false),
    /** Portals that get a key. */
    portals: z
      .array(z.enum(PORTALS))
      .min(1)
      .default([...PORTALS]),
    /** Fixed keys per portal; others are derived from the seed (sbx_<network>_<portal>_<hash>). */
    keys: z.partialRecord(z.enum(PORTALS), z.string().min(8)).default({}),
    /** Data per as-of date (YYYY-MM-DD). */
    days: z
      .record(z.string(), daySchema)
      .superRefine((days, ctx) => {
        for (const key of Object.keys(days)) {
          if (!isIsoDate(key))
            ctx.addIssue({ code: 'custom', path: [key], message: 'must be a date YYYY-MM-DD' });
        }
      })
      .default({}),
    generator: z
      .discriminatedUnion('type', [realisticGeneratorSchema, decliningGeneratorSchema])
      .optional(),
    /** Marketplace connections served by the paged POST /partners/connections/table. */
    connections: z.number().int().min(0).max(100_000).default(0),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z.string().optional(),
    seed: z.number().int().default(1),
    /** The as-of date the sandbox starts on; default: the first explicit day, else today (UTC). */
    startDay: isoDate.optional(),
    networks: z.array(sandboxNetworkSchema).min(1),
    faults: z.array(faultSchema).default([]),
  })
  .strict()
  .superRefine((scenario, ctx) => {
    const seen = new Set<string>();
    const keys = new Set<string>();
    scenario.networks.forEach((network, index) => {
      if (seen.has(network.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['networks', index, 'id'],
          message: `duplicate network id "${network.id}"`,
        });
      }
      seen.add(network.id);
      for (const [portal, key] of Object.entries(network.keys)) {
        if (key && keys.has(key)) {
          ctx.addIssue({
            code: 'custom',
            path: ['networks', index, 'keys', portal],
            message: 'key used twice',
          });
        }
        if (key) keys.add(key);
      }
    });
  });

/** What scenario files and `builtinScenario` give: defaults may be left out. */
export type Scenario = z.input<typeof scenarioSchema>;
export type ParsedScenario = z.output<typeof scenarioSchema>;
export type SandboxNetwork = z.output<typeof sandboxNetworkSchema>;
export type RealisticGenerator = z.output<typeof realisticGeneratorSchema>;

/** Validates a scenario; a bad one is a ConfigError naming the field. */
export function parseScenario(raw: unknown, source = 'scenario'): ParsedScenario {
  const result = scenarioSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue ? formatPath(issue.path) : '';
  throw new ConfigError(`${source}: ${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}`);
}

export function loadScenarioFile(file: string): ParsedScenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`scenario file ${file}: not found or unreadable`);
  }
  let raw: unknown;
  try {
    raw = file.endsWith('.json') ? JSON.parse(text) : loadYaml().parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(
      `scenario file ${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${reason}`,
    );
  }
  return parseScenario(raw, `scenario file ${file}`);
}
