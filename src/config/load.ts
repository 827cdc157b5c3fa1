import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { loadYaml } from '../cjs-packages.js';
import { ConfigError } from '../errors.js';
import type { ChannelType, NotificationKind } from '../notification-names.js';
import {
  channelNames,
  configSchema,
  endpointProblem,
  type ParsedChannel,
  type ParsedConfig,
  type ParsedNetwork,
} from './schema.js';
import { describeIssues, summarizeProblems } from './problems.js';
import { ApiKey } from './api-key.js';
import { SecretSource, secretErrors } from './secret-source.js';
import { Secret, redactUrl } from './secret.js';
import type { AlertSettings } from '../monitor/alert-settings.js';

/**
 * The effective config: the file, validated and defaulted, with environment overrides applied
 * and every secret resolved into a `Secret`, except the networks' API keys and the channels'
 * URLs and signing keys: those are `SecretSource`s, read where they are used (the API called, a
 * delivery posted) and by the worker at start (`readSecrets`). Nothing downstream reads the
 * environment again.
 */
export interface NetworkConfig extends Omit<ParsedNetwork, 'name' | 'channels' | 'heartbeat'> {
  name: string;
  /** Its own heartbeat URLs (secrets: anyone holding one can ping it). */
  heartbeat: { url?: Secret; invoicesUrl?: Secret };
  /** apiKeyEnv or apiKeyFile, read only by what calls the API (config/api-key.ts). */
  apiKey: ApiKey;
  /** apiKeyFile as an absolute path (for the world-readable warning, config/warnings.ts). */
  apiKeyPath?: string;
  alerts: AlertSettings;
  /** Its own channels, else the top-level list. */
  channels: ChannelConfig[];
}

/**
 * A channel of the effective config. Its URL and signing key are read where a delivery is
 * posted (notify/channels/target.ts), a file again for every delivery.
 */
export interface ChannelConfig {
  type: ChannelType;
  /** Unique among the network's channels; part of every delivery id. */
  name: string;
  /**
   * Where to post; undefined: no endpoint, the body is written to `mail.outboxDir` as a `.json`
   * file beside the e-mails (the demo, a dry run).
   */
  url?: SecretSource;
  /** webhook: the HMAC-SHA256 key of the X-Thm-Signature header. */
  secret?: SecretSource;
  /** Kinds posted to this channel; undefined: every kind. */
  kinds?: NotificationKind[];
  /** The deadline of one post; undefined: the transport's (DEFAULT_CHANNEL_TIMEOUTS.totalMs). */
  timeoutMs?: number;
}

export interface Config extends Omit<
  ParsedConfig,
  'networks' | 'redis' | 'mail' | 'heartbeat' | 'monitoring' | 'channels'
> {
  /** Where the config came from, for messages. */
  source: string;
  redis: RedisConfig;
  mail: Omit<ParsedConfig['mail'], 'url'> & { url?: Secret };
  heartbeat: { url?: Secret };
  /** dashboardAuth is "user:password". */
  monitoring: Omit<ParsedConfig['monitoring'], 'dashboardAuth'> & { dashboardAuth?: Secret };
  networks: NetworkConfig[];
  logLevel: string;
}

/** How to reach Redis: `url` alone (one node), or with `sentinel` or `cluster` (exclusive). */
export interface RedisConfig {
  /** Credentials, TLS and database of the data nodes (and the node itself without the others). */
  url: Secret;
  prefix: string;
  sentinel?: { name: string; nodes: string[]; password?: Secret };
  cluster?: { nodes: string[] };
  /** Writes count once this many replicas have them (WAIT): 0 = no WAIT. */
  confirm: { replicas: number; timeoutMs: number };
}

export interface LoadOptions {
  /** --config */
  file?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Read again by a running worker (SIGHUP, POST /-/reload): its environment is the one it
   * started with, so a variable that is not set says that only a restart brings it.
   */
  reload?: boolean;
  /**
   * Read every secret the worker uses (each network's API key, each channel's URL and signing
   * key) now, and refuse the config when one does not resolve: the worker at start and on a
   * reload, and `thm config check --online`. Other commands leave them unread.
   */
  readSecrets?: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `--config FILE`, else `THM_CONFIG`, else `./thm.yaml`. */
export function resolveConfigPath(options: LoadOptions = {}): string {
  const env = options.env ?? process.env;
  const chosen = options.file ?? env.THM_CONFIG ?? 'thm.yaml';
  return path.resolve(options.cwd ?? process.cwd(), chosen);
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  const file = resolveConfigPath(options);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : 'unreadable';
    throw new ConfigError(`config file ${file}: ${reason} (use --config FILE or THM_CONFIG)`);
  }
  return parseConfig(parseConfigText(text, file), { ...options, env, source: file });
}

export function parseConfigText(text: string, file: string): unknown {
  try {
    return file.endsWith('.json') ? JSON.parse(text) : loadYaml().parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    throw new ConfigError(
      `config file ${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${withLine(reason, text, error)}`,
    );
  }
}

/**
 * The parser's first line ends with "at line 3, column 1:" and the excerpt below it; in one
 * line, the line it points at follows the colon, quoted (a tab shows as \t).
 */
function withLine(reason: string, text: string, error: unknown): string {
  const at = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
  if (at === undefined) return reason.replace(/:$/, '');
  const line = text.split(/\r?\n/)[at - 1];
  const shown = line === undefined || line.trim() === '' ? '(an empty line)' : JSON.stringify(line);
  return `${reason.replace(/:$/, '')}: ${shown}`;
}

/** Validates a raw config document (already parsed from YAML/JSON) and resolves its secrets. */
export function parseConfig(
  raw: unknown,
  options: Pick<LoadOptions, 'env' | 'cwd' | 'reload' | 'readSecrets'> & { source?: string } = {},
): Config {
  const reload = options.reload === true;
  const env = options.env ?? process.env;
  const source = options.source ?? '(inline)';
  const withOverrides = applyEnvOverrides(raw, env);
  // reportInput: a wrongly typed field is told apart from a missing one (src/config/problems.ts).
  const result = configSchema.safeParse(withOverrides, { reportInput: true });
  const problems: string[] = [];
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  if (!result.success) {
    throw configError([...describeIssues(result.error.issues, configSchema), ...problems]);
  }
  const parsed = result.data;
  const baseDir =
    options.source && options.source !== '(inline)'
      ? path.dirname(options.source)
      : (options.cwd ?? process.cwd());
  const { channels: defaultChannels, ...rest } = parsed;
  const networks = parsed.networks.map((network, index) => ({
    ...network,
    name: network.name ?? network.id,
    heartbeat: {
      url: network.heartbeat.url === undefined ? undefined : new Secret(network.heartbeat.url),
      invoicesUrl:
        network.heartbeat.invoicesUrl === undefined
          ? undefined
          : new Secret(network.heartbeat.invoicesUrl),
    },
    apiKey: apiKeyOf(network, index, env, baseDir, reload),
    ...(network.apiKeyFile !== undefined
      ? { apiKeyPath: path.resolve(baseDir, network.apiKeyFile) }
      : {}),
    channels: network.channels
      ? channelsOf(network.channels, `networks[${index}].channels`, env, baseDir, reload)
      : channelsOf(defaultChannels, 'channels', env, baseDir, reload),
  }));
  // Every secret read, so that one check names every one that does not resolve.
  if (options.readSecrets === true)
    problems.push(...secretErrors(networks.flatMap(secretsOf)).map((error) => error.message));
  // The default channels are read per network: the same problem once.
  if (problems.length > 0) throw configError([...new Set(problems)]);

  return {
    ...rest,
    source,
    logLevel,
    redis: resolveRedis(parsed.redis, env),
    mail: {
      ...parsed.mail,
      url: parsed.mail.url === undefined ? undefined : new Secret(parsed.mail.url),
    },
    heartbeat: {
      url: parsed.heartbeat.url === undefined ? undefined : new Secret(parsed.heartbeat.url),
    },
    monitoring: {
      ...parsed.monitoring,
      dashboardAuth:
        parsed.monitoring.dashboardAuth === undefined
          ? undefined
          : new Secret(parsed.monitoring.dashboardAuth),
    },
    networks,
  };
}

/**
 * Channels with their URLs and signing keys named, not read. A URL from the environment or a
 * file is checked when read, like one in the file (https://, or http:// to a loopback host), and
 * the error names the variable or the file, never the value.
 */
function channelsOf(
  channels: readonly ParsedChannel[],
  where: string,
  env: NodeJS.ProcessEnv,
  baseDir: string,
  reload: boolean,
): ChannelConfig[] {
  const names = channelNames(channels);
  return channels.map((channel, j) => {
    const at = `${where}[${j}]`;
    const resolved: ChannelConfig = { type: channel.type, name: names[j]! };
    if (channel.kinds) resolved.kinds = [...channel.kinds];
    if (channel.timeoutMs !== undefined) resolved.timeoutMs = channel.timeoutMs;
    const url =
      channel.type === 'webhook' && channel.url !== undefined
        ? new SecretSource(`${at}.url`, { value: new Secret(channel.url) })
        : sourceOf(at, 'url', channel, env, baseDir, reload);
    if (url !== undefined) resolved.url = url;
    if (channel.type === 'webhook') {
      const secret = sourceOf(at, 'secret', channel, env, baseDir, reload);
      if (secret !== undefined) resolved.secret = secret;
    }
    return resolved;
  });
}

/** `<what>Env` or `<what>File` of a channel; undefined when neither is set. */
function sourceOf(
  at: string,
  what: 'url' | 'secret',
  channel: Partial<Record<'urlEnv' | 'urlFile' | 'secretEnv' | 'secretFile', string>>,
  env: NodeJS.ProcessEnv,
  baseDir: string,
  reload: boolean,
): SecretSource | undefined {
  const check = what === 'url' ? urlProblem : undefined;
  const variable = channel[`${what}Env`];
  if (variable !== undefined)
    return new SecretSource(
      `${at}.${what}Env`,
      SecretSource.variableOf(variable, env, reload),
      check,
    );
  const file = channel[`${what}File`];
  if (file === undefined) return undefined;
  return new SecretSource(`${at}.${what}File`, { file: path.resolve(baseDir, file) }, check);
}

function urlProblem(url: string): string | undefined {
  const problem = endpointProblem(url);
  return problem === undefined ? undefined : `the URL ${problem}`;
}

/** One line for the usual error path, every problem for `thm config check`. */
function configError(problems: string[]): ConfigError {
  return new ConfigError(summarizeProblems(problems), { problems });
}

/** A YAML section left with only comments in it (`heartbeat:`) parses as null: same as absent. */
function dropNullSections(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}

export function applyEnvOverrides(raw: unknown, env: NodeJS.ProcessEnv): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const doc = dropNullSections(raw) as Record<string, unknown>;
  if (Array.isArray(doc.networks)) doc.networks = doc.networks.map(dropNullSections);
  const section = (name: string): Record<string, unknown> => {
    const value = doc[name];
    return value && typeof value === 'object' && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  };
  if (env.REDIS_URL) doc.redis = { ...section('redis'), url: env.REDIS_URL };
  const redis = section('redis');
  const sub = (name: string): Record<string, unknown> => {
    const value = redis[name];
    return value && typeof value === 'object' && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  };
  if (env.REDIS_SENTINEL_NODES || env.REDIS_SENTINEL_NAME) {
    redis.sentinel = {
      ...sub('sentinel'),
      ...(env.REDIS_SENTINEL_NODES ? { nodes: commaList(env.REDIS_SENTINEL_NODES) } : {}),
      ...(env.REDIS_SENTINEL_NAME ? { name: env.REDIS_SENTINEL_NAME } : {}),
    };
    doc.redis = redis;
  }
  if (env.REDIS_CLUSTER_NODES) {
    redis.cluster = { ...sub('cluster'), nodes: commaList(env.REDIS_CLUSTER_NODES) };
    doc.redis = redis;
  }
  if (env.SMTP_URL) doc.mail = { ...section('mail'), url: env.SMTP_URL };
  return doc;
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function resolveRedis(redis: ParsedConfig['redis'], env: NodeJS.ProcessEnv): RedisConfig {
  const resolved: RedisConfig = {
    url: new Secret(redis.url),
    prefix: redis.prefix,
    confirm: {
      replicas: redis.confirmReplicas ?? (redis.sentinel || redis.cluster ? 1 : 0),
      timeoutMs: redis.confirmTimeoutMs,
    },
  };
  if (redis.sentinel) {
    const { passwordEnv, ...sentinel } = redis.sentinel;
    let password: Secret | undefined;
    if (passwordEnv !== undefined) {
      const value = env[passwordEnv];
      if (!value) {
        throw new ConfigError(
          `redis.sentinel.passwordEnv: environment variable ${passwordEnv} is not set or empty`,
        );
      }
      password = new Secret(value);
    }
    resolved.sentinel = { ...sentinel, ...(password ? { password } : {}) };
  }
  if (redis.cluster) resolved.cluster = { nodes: redis.cluster.nodes };
  return resolved;
}

function apiKeyOf(
  network: ParsedNetwork,
  index: number,
  env: NodeJS.ProcessEnv,
  baseDir: string,
  reload: boolean,
): ApiKey {
  if (network.apiKeyEnv !== undefined)
    return ApiKey.fromEnv(`networks[${index}].apiKeyEnv`, network.apiKeyEnv, env, reload);
  return ApiKey.fromFile(
    `networks[${index}].apiKeyFile`,
    path.resolve(baseDir, network.apiKeyFile ?? ''),
  );
}

/** The secrets of a network the worker reads: its API key, its channels' URLs and keys. */
export function secretsOf(network: Pick<NetworkConfig, 'apiKey' | 'channels'>): SecretSource[] {
  return [
    network.apiKey,
    ...network.channels.flatMap((channel) => [channel.url, channel.secret]),
  ].filter((source): source is SecretSource => source !== undefined);
}

/** One line: the first problem, and how many more there are (job data, scenario files). */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return summarizeProblems(describeIssues(issues));
}

/** The effective config as a plain document with every secret shown as [redacted]. */
export function redactedConfig(config: Config): unknown {
  return JSON.parse(
    JSON.stringify({
      ...config,
      redis: {
        ...config.redis,
        url: redactUrl(config.redis.url.reveal()),
        sentinel: config.redis.sentinel && {
          ...config.redis.sentinel,
          password: config.redis.sentinel.password ? '[redacted]' : undefined,
        },
      },
      mail: {
        ...config.mail,
        url: config.mail.url ? redactUrl(config.mail.url.reveal()) : undefined,
      },
      heartbeat: { url: config.heartbeat.url ? '[redacted]' : undefined },
      monitoring: {
        ...config.monitoring,
        // "user:password": the user helps tell configs apart, the password is a secret.
        dashboardAuth: config.monitoring.dashboardAuth?.reveal().replace(/:.*$/s, ':[redacted]'),
      },
    }),
  );
}
