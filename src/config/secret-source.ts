import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { Redacted, Secret } from './secret.js';

/** What the config says of one secret: a variable (`...Env`), a file (`...File`), or the value. */
export type SecretOrigin =
  | { file: string }
  | { variable: string; value: Secret | undefined; reload: boolean }
  | { value: Secret };

/**
 * A secret as the config names it, read only where it is used: a network's API key (ApiKey,
 * config/api-key.ts) where the API is called, a channel's URL or signing key where a delivery is
 * posted (notify/channels/target.ts). The worker reads every one at start and on a reload, to
 * refuse a config it could not work with; the other commands never read them, so an operator who
 * may not read the service's credentials (a systemd `LoadCredential=`, a Docker secret, a
 * variable of the service's environment) still gets `thm status`. A file is read again at every
 * `read()`: a rotated file is used by the next use, without a reload.
 */
export class SecretSource extends Redacted {
  /** `networks[0].apiKeyFile`, `channels[0].urlEnv`: named by every error. */
  readonly field: string;
  /** The file, absolute; undefined when the secret comes from a variable or the config. */
  readonly file: string | undefined;
  /** A variable's value as the config was loaded (a process's environment does not change). */
  readonly #inMemory: Exclude<SecretOrigin, { file: string }> | undefined;
  /** A problem with the value read (a URL that must be https://), said without the value. */
  readonly #check: ((value: string) => string | undefined) | undefined;

  constructor(field: string, origin: SecretOrigin, check?: (value: string) => string | undefined) {
    super();
    this.field = field;
    this.file = 'file' in origin ? origin.file : undefined;
    this.#inMemory = 'file' in origin ? undefined : origin;
    this.#check = check;
  }

  /**
   * `reload`: loaded again by a running worker, whose environment is the one it started with;
   * a variable that is not set says that only a restart brings it.
   */
  static variableOf(variable: string, env: NodeJS.ProcessEnv, reload = false): SecretOrigin {
    const value = env[variable]?.trim();
    return { variable, value: value ? new Secret(value) : undefined, reload };
  }

  /**
   * The secret, read now (a file again at every call); a ConfigError naming `field` (by default
   * the config's) otherwise, never the value.
   */
  read(field = this.field): Secret {
    const origin = this.#inMemory;
    let secret: Secret;
    if (origin === undefined) secret = readSecretFile(this.file ?? '', field);
    else if ('variable' in origin && origin.value === undefined)
      throw unsetVariable(field, origin.variable, fileOptionOf(this.field), origin.reload);
    else secret = origin.value!;
    const problem = this.#check?.(secret.reveal());
    if (problem !== undefined) throw new ConfigError(`${field}: ${problem}`);
    return secret;
  }

  /** The secret, or undefined when it does not resolve (comparing two configs). */
  readIfPossible(): Secret | undefined {
    try {
      return this.read();
    } catch (error) {
      if (error instanceof ConfigError) return undefined;
      throw error;
    }
  }
}

/**
 * A secret this process may not read (a file it cannot open, a variable its environment lacks),
 * as against one read and found wrong (an empty file, a URL that is not https://): where the
 * worker would read it, it may well be there.
 */
export class UnreadableSecretError extends ConfigError {}

/** Every one of these secrets read now: the error of each one that does not resolve. */
export function secretErrors(sources: readonly SecretSource[]): ConfigError[] {
  const errors: ConfigError[] = [];
  for (const source of sources) {
    try {
      source.read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      errors.push(error);
    }
  }
  return errors;
}

/** `channels[0].urlEnv` -> `urlFile`: the option read when it is needed instead. */
function fileOptionOf(field: string): string {
  return `${/(\w+)Env$/.exec(field)?.[1] ?? ''}File`;
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
): UnreadableSecretError {
  const why = `${field}: environment variable ${variable} is not set or empty`;
  return new UnreadableSecretError(
    reload
      ? `${why} in the worker's environment, which is the one it started with: only a restart brings new environment variables (or use ${fileOption}, read when it is needed)`
      : why,
  );
}

/** A secret file's content, read now. `field` names it in the error (`networks[0].apiKeyFile`). */
function readSecretFile(file: string, field: string): Secret {
  let value: string;
  try {
    value = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UnreadableSecretError(`${field}: cannot read ${file}${unreadableHint(file, code)}`);
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
