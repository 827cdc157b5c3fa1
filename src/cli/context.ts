import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/load.js';
import { createLogger, type Logger } from '../log.js';

/** Options every command accepts (declared once on the root program). */
export interface GlobalOptions {
  config?: string;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function loadCliConfig(command: Command): Config {
  return loadConfig({ file: globalOptions(command).config });
}

export function cliLogger(config?: Config): Logger {
  return createLogger({ level: config?.logLevel });
}
