import type { Secret } from './secret.js';
import { SecretSource } from './secret-source.js';

/**
 * A network's API key as the config names it (`apiKeyEnv` or `apiKeyFile`), read only where a
 * command calls the API: the worker (at start and on a reload, to refuse a config whose keys do
 * not resolve, and again for every job, so that a rotated key file is used by the next run),
 * `thm api` and `thm config check --online` (config/secret-source.ts).
 */
export class ApiKey extends SecretSource {
  static fromEnv(field: string, variable: string, env: NodeJS.ProcessEnv, reload = false): ApiKey {
    return new ApiKey(field, SecretSource.variableOf(variable, env, reload));
  }

  static fromFile(field: string, file: string): ApiKey {
    return new ApiKey(field, { file });
  }

  /**
   * The key, read now; a ConfigError naming the field otherwise, or, with `where` (a job's
   * `network acme`), that and the option (`network acme: apiKeyFile`).
   */
  override read(where?: string): Secret {
    if (where === undefined) return super.read();
    return super.read(`${where}: ${this.file === undefined ? 'apiKeyEnv' : 'apiKeyFile'}`);
  }
}
