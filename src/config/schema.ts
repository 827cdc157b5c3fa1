import { cronExpressionProblem } from '../cron.js';
import { z } from 'zod';
import type { AlertSettings } from '../monitor/alert-settings.js';
import {
  CHANNEL_NAME,
  EMAIL_CHANNEL,
  NOTIFICATION_KINDS,
  type ChannelType,
} from '../notification-names.js';
import { displayText, mailbox } from './mailbox.js';

/**
 * The config file's schema: the one place where every option, its default and its meaning
 * live. `config/thm.example.yaml` documents the same options for people; a test keeps the two
 * in step. Objects are strict, so a misspelt option is an error naming it, not a silent no-op.
 *
 * zod 4 note: `.prefault({})` (not `.default({})`) so that an omitted section is parsed and
 * gets the defaults of its fields.
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Each zone tried once a process: a fleet's networks share a few zones, and every command reads
 * the config, so a hundred networks do not make a hundred formatters (about 0.15 ms each).
 */
export function isValidTimeZone(zone: string): boolean {
  if (validZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return false;
  }
  validZones.add(zone);
  return true;
}

/** Zones found valid (IANA names only, so a few hundred at most). */
const validZones = new Set<string>();

/**
 * Validated as the parser BullMQ's job schedulers use (cron-parser) reads it, with its message
 * (src/cron.ts). Each expression once a process: a fleet's networks share a few schedules, and
 * every command reads the config, so a hundred networks' crons are not parsed a hundred times.
 */
export function cronProblem(expression: string): string | undefined {
  if (cronProblems.has(expression)) return cronProblems.get(expression);
  const problem = cronExpressionProblem(expression);
  if (cronProblems.size >= 1_000) cronProblems.clear();
  cronProblems.set(expression, problem);
  return problem;
}

const cronProblems = new Map<string, string | undefined>();

const cron = z.string().superRefine((value, ctx) => {
  const problem = cronProblem(value);
  if (problem)
    ctx.addIssue({ code: 'custom', message: `not a valid cron expression (${problem})` });
});

const email = z.email({ message: 'not a valid e-mail address' });
/** A dead man's switch URL (heartbeat.url, networks[].heartbeat.*): pinged with GET, http(s) only. */
const heartbeatUrl = z
  .url({ message: 'not a valid URL' })
  .refine((value) => /^https?:\/\//i.test(value), {
    message: 'must be an http:// or https:// URL',
  });

/**
 * A network id: a slug, because it is part of Redis key names (src/store/keys.ts), job ids and
 * metric labels. The one definition; the store and the sandbox check against it too.
 */
export const NETWORK_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

const slug = z.string().regex(NETWORK_ID, 'must be a slug: lower-case letters, digits, - and _');

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** https://, or http:// to a loopback host (tests, a local relay). */
export function endpointProblem(value: string): string | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url) return 'not a valid URL';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must be https:// (http is allowed only for loopback hosts)';
}

const channelCommon = {
  /** Unique among the network's channels; default: the type, then type-2, type-3 ... */
  name: z
    .string()
    .regex(CHANNEL_NAME, 'must be a slug of at most 24 characters: a-z, 0-9, - and _')
    .refine((name) => name !== EMAIL_CHANNEL, `"${EMAIL_CHANNEL}" names the e-mail: choose another`)
    .optional(),
  /** Kinds posted to the channel; absent: every kind. */
  kinds: z
    .array(z.enum(NOTIFICATION_KINDS))
    .min(1, 'list at least one kind, or leave it out')
    .optional(),
  urlEnv: envName.optional(),
  urlFile: z.string().min(1).optional(),
  /**
   * The deadline of one post, connect to the last byte of the reply read; a post that misses it
   * is retried like a 5xx. Absent: 20000 (DEFAULT_CHANNEL_TIMEOUTS.totalMs).
   */
  timeoutMs: z.number().int().min(100).max(120_000).optional(),
};

/**
 * A channel. URLs that carry a secret (every Slack incoming-webhook URL) come from the
 * environment or a file, never from the config; with no URL at all the body is written to
 * `mail.outboxDir` as a `.json` file (as e-mails are without `mail.url`).
 */
export const channelSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('webhook'),
      ...channelCommon,
      /** A webhook URL that is not a secret may stand in the config. */
      url: z.string().optional(),
      /** The key of the HMAC-SHA256 signature (X-Thm-Signature). */
      secretEnv: envName.optional(),
      secretFile: z.string().min(1).optional(),
    })
    .strict()
    .superRefine((channel, ctx) => {
      if (channel.url !== undefined) {
        const problem = endpointProblem(channel.url);
        if (problem) ctx.addIssue({ code: 'custom', path: ['url'], message: problem });
      }
      const urls = [channel.url, channel.urlEnv, channel.urlFile].filter((v) => v !== undefined);
      if (urls.length > 1)
        ctx.addIssue({
          code: 'custom',
          path: ['url'],
          message: 'set at most one of url, urlEnv or urlFile',
        });
      const secrets = [channel.secretEnv, channel.secretFile].filter((v) => v !== undefined);
      if (secrets.length > 1 || (urls.length > 0 && secrets.length === 0))
        ctx.addIssue({
          code: 'custom',
          path: ['secretEnv'],
          message: 'set exactly one of secretEnv or secretFile (every request is signed)',
        });
    }),
  z
    .object({
      type: z.literal('slack'),
      ...channelCommon,
      // Named only to refuse it with a reason: an incoming-webhook URL is a secret.
      url: z.unknown().optional(),
    })
    .strict()
    .superRefine((channel, ctx) => {
      if (channel.url !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['url'],
          message: 'a Slack webhook URL is a secret: use urlEnv or urlFile',
        });
      if (channel.urlEnv !== undefined && channel.urlFile !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['urlEnv'],
          message: 'set at most one of urlEnv or urlFile',
        });
    }),
]);

/** The channels' names: given, else the type, then `type-2`, `type-3` ... in list order. */
export function channelNames(
  channels: ReadonlyArray<{ type: ChannelType; name?: string }>,
): string[] {
  const seen = new Map<ChannelType, number>();
  return channels.map((channel) => {
    const n = (seen.get(channel.type) ?? 0) + 1;
    seen.set(channel.type, n);
    return channel.name ?? (n === 1 ? channel.type : `${channel.type}-${n}`);
  });
}

export const alertsSchema = z
  .object({
    /** A pair is alertable only when its clicks 7 days back were at least this. */
    minBaselineClicks: z.number().int().min(0).default(50),
    /** ... and the drop against 7 days back is at least this percent. */
    minDropPercent: z.number().gt(0).max(100).default(20),
    /** ... and the drop is this many standard deviations of noise (monitor/significance.ts); 0 = off. */
    minSignificance: z.number().min(0).default(3.5),
    /** A drop of at least this percent is critical, below it a warning. */
    criticalDropPercent: z.number().gt(0).max(100).default(50),
    /** Re-send an active, still alertable pair after this many days; 0 = never. */
    renotifyAfterDays: z.number().int().min(0).default(7),
    /** An active pair clears after this many quiet runs (not alertable, not held: monitor/hold.ts). */
    clearAfterRuns: z.number().int().min(1).default(2),
    /** Whether cleared pairs are e-mailed. */
    notifyCleared: z.boolean().default(true),
  })
  .strict()
  // Here, not on the network: `thm replay --set` checks its settings with this schema alone.
  .superRefine((alerts, ctx) => {
    if (alerts.criticalDropPercent < alerts.minDropPercent) {
      ctx.addIssue({
        code: 'custom',
        path: ['criticalDropPercent'],
        message: `must be at least alerts.minDropPercent (${alerts.minDropPercent})`,
      });
    }
  }) satisfies z.ZodType<AlertSettings, unknown>;

export const networkSchema = z
  .object({
    /** Slug used on the CLI and in Redis keys. */
    id: slug,
    /** Display name; defaults to the id. */
    name: z.string().min(1).max(200).pipe(displayText).optional(),
    /** API base including the version segment, e.g. https://api.example.com/v1. */
    baseUrl: z.url({ message: 'not a valid URL' }).superRefine((value, ctx) => {
      // zod 4 runs refinements even after the URL check failed: parse defensively.
      if (!URL.canParse(value)) return;
      const problem = endpointProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    /** Name of the environment variable holding the network API key. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    /** Path of a file holding the network API key (e.g. a Docker secret). */
    apiKeyFile: z.string().min(1).optional(),
    /** IANA time zone: decides the as-of date and when the crons fire. */
    timezone: z
      .string()
      .refine(isValidTimeZone, { message: 'not a valid IANA time zone' })
      .default('UTC'),
    /** E-mail recipients; may be empty when the network has a channel. */
    recipients: z.array(email).default([]),
    /** The network's channels; absent: the top-level `channels` list. */
    channels: z.array(channelSchema).optional(),
    trafficCheck: z
      .object({
        cron: cron.default('0 7 * * *'),
        /** `thm status` calls a network overdue this long after a missed period. */
        graceMinutes: z.number().int().min(0).default(120),
      })
      .strict()
      .prefault({}),
    invoices: z
      .object({
        /** Set false to take no invoice snapshots for this network. */
        enabled: z.boolean().default(true),
        cron: cron.default('0 8 * * *'),
        /** filters.status of the summary request. */
        status: z.string().min(1).max(50).default('unpaid'),
        /** E-mail each snapshot with its change. */
        notify: z.boolean().default(false),
        /** Snapshots kept per network. */
        keep: z.number().int().min(1).max(10_000).default(400),
      })
      .strict()
      .prefault({}),
    alerts: alertsSchema.prefault({}),
    /**
     * Dead man's switches of this network (one check per network and job kind, so that one
     * network's failure is not masked by another's success); absent: the top-level
     * heartbeat.url.
     */
    heartbeat: z
      .object({
        /** Pinged by this network's traffic-checks: /start, then success or /fail. */
        url: heartbeatUrl.optional(),
        /** The same for its invoice snapshots. */
        invoicesUrl: heartbeatUrl.optional(),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((network, ctx) => {
    const sources = [network.apiKeyEnv, network.apiKeyFile].filter((v) => v !== undefined);
    if (sources.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['apiKeyEnv'],
        message: 'set exactly one of apiKeyEnv or apiKeyFile',
      });
    }
  });

const redisUrl = z.string().superRefine((value, ctx) => {
  try {
    const url = new URL(value);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      ctx.addIssue({ code: 'custom', message: 'must be a redis:// or rediss:// URL' });
    }
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not a valid URL' });
  }
});

const smtpUrl = z.string().superRefine((value, ctx) => {
  try {
    const url = new URL(value);
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
      ctx.addIssue({ code: 'custom', message: 'must be an smtp:// or smtps:// URL' });
    }
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not a valid URL' });
  }
});

/**
 * The part of a key Redis Cluster hashes: between the first "{" and the first "}" after it,
 * when not empty (the Cluster spec's rule); undefined when the whole key is hashed.
 */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

function urlPath(value: string): string {
  try {
    return new URL(value).pathname;
  } catch {
    return '';
  }
}

/** "host:port" of a Sentinel or a Cluster node (IPv6 in brackets: "[::1]:7000"). */
const hostPort = z
  .string()
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$/, {
    message: 'must be host:port',
    abort: true,
  })
  .refine((value) => {
    const port = Number(value.slice(value.lastIndexOf(':') + 1));
    return port >= 1 && port <= 65_535;
  }, 'port must be 1-65535');

/**
 * Redis: one node (`url`), or a Sentinel-managed master (`sentinel`), or a Cluster (`cluster`).
 * `url` always carries the data nodes' credentials, TLS (rediss://) and database.
 */
const redisSchema = z
  .object({
    url: redisUrl.default('redis://127.0.0.1:6379'),
    /** Key and queue prefix; a Cluster needs a hash tag ("{thm}") so all keys share one slot. */
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9{}_:.-]{1,64}$/, 'letters, digits, {}_:.- only')
      .default('thm'),
    sentinel: z
      .object({
        /** The master's name in the Sentinels' config (`sentinel monitor <name> ...`). */
        name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _.- only'),
        nodes: z.array(hostPort).min(1, 'at least one Sentinel host:port'),
        /** Environment variable holding the Sentinels' own password (requirepass). */
        passwordEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
          .optional(),
      })
      .strict()
      .optional(),
    cluster: z
      .object({
        /** Some of the Cluster's nodes; the rest are discovered. */
        nodes: z.array(hostPort).min(1, 'at least one Cluster node host:port'),
      })
      .strict()
      .optional(),
    /**
     * A run's commit counts as done once this many replicas have it (Redis WAIT), so that a
     * failover cannot take back a run reported done or an e-mail about to be sent. Default: 1
     * with `sentinel` or `cluster`, else 0 (no WAIT).
     */
    confirmReplicas: z.number().int().min(0).max(16).optional(),
    /**
     * How long a commit waits for that; a node demoted meanwhile makes the run go again on the
     * new master, a node still master after it keeps the write (logged). @defaultValue 10000
     */
    confirmTimeoutMs: z.number().int().min(100).default(10_000),
  })
  .strict()
  .superRefine((redis, ctx) => {
    if (redis.sentinel && redis.cluster) {
      ctx.addIssue({
        code: 'custom',
        path: ['cluster'],
        message: 'set either redis.sentinel or redis.cluster, not both',
      });
    }
    if (redis.cluster && /^\/0*[1-9]/.test(urlPath(redis.url))) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'a Redis Cluster has only database 0: drop the /<db> from the URL',
      });
    }
    if (redis.cluster && hashTag(redis.prefix) === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['prefix'],
        message: `a Redis Cluster needs a hash tag in the prefix, e.g. "{${redis.prefix.replace(/[{}]/g, '')}}", so that all keys share one slot`,
      });
    }
  });

export const configSchema = z
  .object({
    redis: redisSchema.prefault({}),
    mail: z
      .object({
        /** SMTP server; absent: messages are written as .eml files into outboxDir. */
        url: smtpUrl.optional(),
        /** Exactly one address, optionally with a display name. */
        from: mailbox.default('Traffic Health <alerts@example.com>'),
        outboxDir: z.string().min(1).default('./outbox'),
        /** Per-step SMTP timeouts (nodemailer's own defaults are minutes). */
        timeoutMs: z.number().int().min(100).max(600_000).default(15_000),
        /**
         * smtp:// only sends after STARTTLS: a server that does not offer it (or a network in
         * between that strips it) gets neither the password nor the message. Off: STARTTLS
         * whenever the server offers it, in clear otherwise. smtps:// is TLS from the start.
         */
        requireTLS: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    api: z
      .object({
        connectTimeoutMs: z.number().int().min(100).default(5_000),
        headersTimeoutMs: z.number().int().min(100).default(15_000),
        bodyTimeoutMs: z.number().int().min(100).default(30_000),
        /**
         * Overall deadline of one request, its in-process retries included (the three above
         * bound single steps: a server dripping one byte a second never trips them). Also the
         * deadline of all the API calls of one run together.
         */
        requestTimeoutMs: z.number().int().min(100).default(120_000),
        /** Response bodies larger than this are refused as invalid. */
        maxResponseBytes: z
          .number()
          .int()
          .min(1024)
          .default(256 * 1024 * 1024),
        /** In-process attempts for transient errors before the job layer takes over. */
        attempts: z.number().int().min(1).max(10).default(3),
        /** Longest total wait the client spends on in-process retries. */
        retryBudgetMs: z.number().int().min(0).default(30_000),
      })
      .strict()
      .prefault({}),
    worker: z
      .object({
        /**
         * Checks processed at once by one worker process. Each holds its network's whole API
         * response while it runs, so this bounds memory; 2 keeps a 2-core worker busy, and more
         * adds memory for little throughput (docs/performance.md). Raise it for slow
         * APIs, where a check mostly waits. Also the most connections the worker keeps to one
         * API host, which its networks share (src/jobs/runtime.ts).
         */
        concurrency: z.number().int().min(1).max(100).default(2),
        /** BullMQ attempts per job for transient failures. */
        attempts: z.number().int().min(1).max(50).default(5),
        /** Base of the exponential backoff between job attempts. */
        backoffMs: z.number().int().min(100).default(30_000),
        /** A job whose worker stops renewing its lock this long is handed to another worker. */
        lockDurationMs: z.number().int().min(1_000).default(60_000),
        /** How often workers look for such stalled jobs. */
        stalledIntervalMs: z.number().int().min(500).default(30_000),
        /**
         * How often each worker sweeps: puts back the job schedulers its config holds that are
         * missing, hands out the outbox's due entries, and renews its advert to the others.
         */
        sweepIntervalMs: z.number().int().min(100).max(600_000).default(60_000),
        /**
         * How long the live workers' configs may differ before `/healthz` and `thm status
         * --check` call it a problem: a rolling deploy reloads or restarts one replica after
         * another, and they differ meanwhile; a replica left on an older config differs for good.
         * Missing schedulers are a problem at once, whatever this says.
         */
        configDriftGraceMs: z.number().int().min(0).default(1_800_000),
      })
      .strict()
      .prefault({}),
    monitoring: z
      .object({
        /** Port of /metrics, /healthz and /queues; absent: off. */
        port: z.number().int().min(1).max(65_535).optional(),
        host: z.string().default('127.0.0.1'),
        /** "user:password" for the /queues dashboard; absent: dashboard off. */
        dashboardAuth: z
          .string()
          .regex(/^[^:]+:.+$/, 'must be user:password')
          .optional(),
      })
      .strict()
      .prefault({}),
    heartbeat: z
      .object({
        /**
         * Every run of a network without a URL of its own for that kind: GET URL + "/start" when
         * it starts, URL on success, URL + "/fail" on failure. http(s) only.
         */
        url: heartbeatUrl.optional(),
      })
      .strict()
      .prefault({}),
    /** What the monitor keeps of what it saw, beside its alert history. */
    history: z
      .object({
        /**
         * Days each traffic-check's listing (the API's entries as they came, and the alert it
         * sent) is kept, for `thm replay` (docs/replay.md); 0 keeps none.
         */
        keepListingsDays: z.number().int().min(0).max(400).default(90),
      })
      .strict()
      .prefault({}),
    /** The channels of every network that has no `channels` of its own. */
    channels: z.array(channelSchema).default([]),
    networks: z.array(networkSchema).min(1, 'at least one network is required'),
  })
  .strict()
  .superRefine((config, ctx) => {
    const checkNames = (
      channels: ReadonlyArray<{ type: ChannelType; name?: string }>,
      path: (string | number)[],
    ) => {
      const first = new Map<string, number>();
      channelNames(channels).forEach((name, j) => {
        const earlier = first.get(name);
        if (earlier === undefined) first.set(name, j);
        else
          ctx.addIssue({
            code: 'custom',
            path: [...path, j, 'name'],
            message: `duplicate channel name "${name}" (also channel ${earlier} of the list): give each its own name`,
          });
      });
    };
    checkNames(config.channels, ['channels']);
    const seen = new Map<string, number>();
    config.networks.forEach((network, index) => {
      if (network.channels) checkNames(network.channels, ['networks', index, 'channels']);
      if (network.recipients.length === 0 && (network.channels ?? config.channels).length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['networks', index, 'recipients'],
          message: 'at least one recipient is required (or a channel)',
        });
      const first = seen.get(network.id);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['networks', index, 'id'],
          message: `duplicate network id "${network.id}" (also networks[${first}].id)`,
        });
      } else {
        seen.set(network.id, index);
      }
    });
  });

export type RawConfig = z.input<typeof configSchema>;
export type ParsedConfig = z.output<typeof configSchema>;
export type ParsedNetwork = z.output<typeof networkSchema>;
export type ParsedChannel = z.output<typeof channelSchema>;
