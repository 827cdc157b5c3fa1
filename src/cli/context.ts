import type { Command } from 'commander';
import { loadConfig, type Config, type NetworkConfig } from '../config/load.js';
import { UsageError } from '../errors.js';
import { createdOnFirstUse, createLogger, type Logger } from '../log.js';

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

/** Made when it first logs: a command that logs nothing (most do not) does not load pino. */
export function cliLogger(config?: Config): Logger {
  return createdOnFirstUse(() => createLogger({ level: config?.logLevel }));
}

/** The networks a command names: `--all`, or the one `--network` (a usage error if unknown). */
export function selectNetworks(
  config: Config,
  options: { network?: string; all?: boolean },
): NetworkConfig[] {
  if (options.all) return config.networks;
  const network = config.networks.find((n) => n.id === options.network);
  if (!network) {
    throw new UsageError(
      `--network: no network "${options.network}" in ${config.source} (configured: ${config.networks.map((n) => n.id).join(', ')})`,
    );
  }
  return [network];
}
