import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import {
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
 */
export interface ConfigCheck {
  /** The effective config, when there is no problem. */
  config?: Config;
  /** The config file. */
  source: string;
  problems: string[];
  warnings: ConfigWarning[];
}

export function checkConfig(options: LoadOptions = {}, now = Date.now()): ConfigCheck {
  try {
    const config = loadConfig(options);
    return {
      config,
      source: config.source,
      problems: [],
      warnings: configWarnings(config.networks, now),
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return {
      source: resolveConfigPath(options),
      problems: error.problems,
      warnings: warningsOfInvalid(options, now),
    };
  }
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
