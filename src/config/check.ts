import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import {
  apiKeyProblems,
  applyEnvOverrides,
  loadConfig,
  parseConfigText,
  resolveConfigPath,
  type Config,
  type LoadOptions,
} from './load.js';
import { configSchema } from './schema.js';
import { configWarnings, type ConfigWarning } from './warnings.js';

/**
 * `thm config check`: everything wrong with a config at once (every schema problem, every key
 * that does not resolve), and the warnings the worker would log at start.
 *
 * The keys are problems only with `readKeys` (`--online`, which calls the API with them).
 * Without it a key that does not resolve is a warning: the check answers whoever runs it (an
 * operator who may not read the service's credentials, or lacks its environment), and says which
 * keys it could not read here.
 */
export interface ConfigCheck {
  /** The effective config, when there is no problem. */
  config?: Config;
  /** The config file. */
  source: string;
  problems: string[];
  warnings: ConfigWarning[];
  /** How many keys did not resolve here (each also a warning); 0 with `readKeys`. */
  unresolvedKeys: number;
}

export function checkConfig(options: LoadOptions = {}, now = Date.now()): ConfigCheck {
  try {
    const config = loadConfig(options);
    const keys = options.readKeys === true ? [] : unresolvedKeyWarnings(config);
    return {
      config,
      source: config.source,
      problems: [],
      warnings: [...keys, ...configWarnings(config.networks, now)],
      unresolvedKeys: keys.length,
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return {
      source: resolveConfigPath(options),
      problems: error.problems,
      warnings: warningsOfInvalid(options, now),
      unresolvedKeys: 0,
    };
  }
}

/** A key this process cannot read, as a warning: the worker must be able to. */
function unresolvedKeyWarnings(config: Config): ConfigWarning[] {
  return config.networks.flatMap((network) => {
    const problem = apiKeyProblems([network])[0];
    if (problem === undefined) return [];
    const field = network.apiKey.field;
    return [
      {
        network: network.id,
        field,
        message: `${problem.slice(field.length + 2)}: not read here; the worker needs it (--online reads every key)`,
      },
    ];
  });
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
