import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import {
  applyEnvOverrides,
  loadConfig,
  parseConfigText,
  resolveConfigPath,
  secretsOf,
  type Config,
  type LoadOptions,
} from './load.js';
import { configSchema } from './schema.js';
import { secretErrors, UnreadableSecretError } from './secret-source.js';
import { configWarnings, type ConfigWarning } from './warnings.js';

/**
 * `thm config check`: everything wrong with a config at once (every schema problem, every secret
 * that does not resolve), and the warnings the worker would log at start.
 *
 * With `readSecrets` (`--online`) every secret the worker reads (API keys, channel URLs and
 * signing keys) must resolve. Without it one this process may not read (a file it cannot open,
 * a variable its environment lacks) is a warning: the check answers whoever runs it (an operator
 * who may not read the service's credentials, or lacks its environment), and says which secrets
 * it could not read here. One read and found wrong (an empty file, a URL that is not https://)
 * is a problem all the same.
 */
export interface ConfigCheck {
  /** The effective config, when there is no problem. */
  config?: Config;
  /** The config file. */
  source: string;
  problems: string[];
  warnings: ConfigWarning[];
  /** How many secrets could not be read here (each also a warning); 0 with `readSecrets`. */
  unreadSecrets: number;
}

export function checkConfig(options: LoadOptions = {}, now = Date.now()): ConfigCheck {
  try {
    const config = loadConfig(options);
    const secrets = options.readSecrets === true ? [] : unreadSecretWarnings(config);
    return {
      config,
      source: config.source,
      problems: [],
      warnings: [...secrets, ...configWarnings(config.networks, now)],
      unreadSecrets: secrets.length,
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return {
      source: resolveConfigPath(options),
      problems: error.problems,
      warnings: warningsOfInvalid(options, now),
      unreadSecrets: 0,
    };
  }
}

/**
 * A secret this process cannot read, as a warning (the worker must be able to); one read and
 * found wrong refuses the config (a ConfigError of every such problem).
 */
function unreadSecretWarnings(config: Config): ConfigWarning[] {
  const warnings = new Map<string, ConfigWarning>();
  const problems: string[] = [];
  for (const network of config.networks) {
    for (const source of secretsOf(network)) {
      const error = secretErrors([source])[0];
      if (error === undefined) continue;
      if (!(error instanceof UnreadableSecretError)) {
        problems.push(error.message);
        continue;
      }
      // A top-level channel is every network's: said once.
      warnings.set(error.message, {
        network: network.id,
        field: source.field,
        message: `${error.message.slice(source.field.length + 2)}: not read here; the worker needs it (--online reads every secret)`,
      });
    }
  }
  if (problems.length > 0)
    throw new ConfigError(problems[0]!, { problems: [...new Set(problems)] });
  return [...warnings.values()];
}

/**
 * The loader stops before warnings when a key does not resolve; the schema may still have
 * passed, and then the crons can be checked all the same.
 */
function warningsOfInvalid(options: LoadOptions, now: number): ConfigWarning[] {
  try {
    const file = resolveConfigPath(options);
    const raw = parseConfigText(readFileSync(file, 'utf8'), file);
    const parsed = configSchema.safeParse(applyEnvOverrides(raw, options.env ?? process.env));
    return parsed.success ? configWarnings(parsed.data.networks, now) : [];
  } catch {
    return [];
  }
}
