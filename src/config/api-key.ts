import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { ConfigError } from '../errors.js';
import { Secret } from './secret.js';

const REDACTED = '[redacted]';

/**
 * A network's API key as the config names it (`apiKeyEnv` or `apiKeyFile`), read only where a
 * command calls the API: the worker (at start and on a reload, to refuse a config whose keys do
 * not resolve, and again for every job, so that a rotated key file is used by the next run),
 * `thm api` and `thm config check --online`. The other commands read Redis, never a key: an
 * operator who may not read the service's credentials (a systemd `LoadCredential=`, a Docker
 * secret) still gets `thm status`.
 */
export class ApiKey {
  /** `networks[0].apiKeyEnv` or `networks[0].apiKeyFile`: named by every error. */
  readonly field: string;
  /** The key file, absolute; undefined when the key comes from a variable. */
  readonly file: string | undefined;
  /** The variable's value as the config was loaded (a process's environment does not change). */
  readonly #fromEnv: { variable: string; value: Secret | undefined; reload: boolean } | undefined;

  private constructor(
    field: string,
    source: { file: string } | { variable: string; value: Secret | undefined; reload: boolean },
  ) {
    this.field = field;
    this.file = 'file' in source ? source.file : undefined;
    this.#fromEnv = 'file' in source ? undefined : source;
  }

  /**
   * `reload`: loaded again by a running worker, whose environment is the one it started with;
   * a variable that is not set says that only a restart brings it.
   */
  static fromEnv(field: string, variable: string, env: NodeJS.ProcessEnv, reload = false): ApiKey {
    const value = env[variable]?.trim();
    return new ApiKey(field, {
      variable,
      value: value ? new Secret(value) : undefined,
      reload,
    });
  }

  static fromFile(field: string, file: string): ApiKey {
    return new ApiKey(field, { file });
  }

  /**
   * The key, read now (a file again at every call); a ConfigError naming the field otherwise,
   * or, with `where` (a job's `network acme`), that and the option (`network acme: apiKeyFile`).
   */
  read(where?: string): Secret {
    const env = this.#fromEnv;
    const field =
      where === undefined ? this.field : `${where}: ${env ? 'apiKeyEnv' : 'apiKeyFile'}`;
    if (env === undefined) return readApiKeyFile(this.file ?? '', field);
    if (env.value === undefined) throw unsetVariable(field, env.variable, 'apiKeyFile', env.reload);
    return env.value;
  }

  /** The key, or undefined when it does not resolve (comparing two configs). */
  readIfPossible(): Secret | undefined {
    try {
      return this.read();
    } catch (error) {
      if (error instanceof ConfigError) return undefined;
      throw error;
    }
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/**
 * A variable a secret is read from that is not set. In a reload, the worker's environment is the
 * one it started with: no SIGHUP brings a variable set since, and the error says so, with the
 * file option that is read when needed instead.
 */
export function unsetVariable(
  field: string,
  variable: string,
  fileOption: string,
  reload: boolean,
): ConfigError {
  const why = `${field}: environment variable ${variable} is not set or empty`;
  return new ConfigError(
    reload
      ? `${why} in the worker's environment, which is the one it started with: only a restart brings new environment variables (or use ${fileOption}, read when it is needed)`
      : why,
  );
}

/** A key file's key, read now. `field` names it in the error (`networks[0].apiKeyFile`). */
function readApiKeyFile(file: string, field: string): Secret {
  let value: string;
  try {
    value = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`${field}: cannot read ${file}${unreadableHint(file, code)}`);
  }
  if (!value) throw new ConfigError(`${field}: ${file} is empty`);
  return new Secret(value);
}

/**
 * Docker mounts secrets at /run/secrets, systemd hands credentials over at
 * /run/credentials/<unit>/ while the unit runs, readable by the service alone: say how one gets
 * there, or who may read it.
 */
function unreadableHint(file: string, code: string | undefined): string {
  if (code === 'EACCES' || code === 'EPERM') return ' (permission denied to this user)';
  if (code !== 'ENOENT') return '';
  const credential = /^\/run\/credentials\/([^/]+)\/([^/]+)$/.exec(file);
  if (file.startsWith('/run/secrets/'))
    return ` (no such file: list the secret under the service's \`secrets:\` and create its file, e.g. ./deploy/secrets/${path.basename(file)} with docker-compose.yml)`;
  if (credential)
    return ` (no such file: systemd's ${credential[1]} hands it over while it runs, with LoadCredential=${credential[2]}:<key file> in the unit)`;
  return ' (no such file)';
}
