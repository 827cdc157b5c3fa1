import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * What carries a secret or says where one is: it serialises, stringifies and inspects as
 * `[redacted]`, so a config object, an error or a log line that holds one shows nothing.
 */
export class Redacted {
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
 * A value that must never be printed: API keys, passwords. It serialises, stringifies and
 * inspects as `[redacted]`, so a config object, an error or a log line that carries one by
 * accident still shows nothing. Only `reveal()` returns the value; it is called where a value
 * is used (the API client's header, the SMTP, Redis, heartbeat and channel URLs, the dashboard
 * password), where it is shown redacted (`redactUrl`), and where two configs or endpoints are
 * compared (config reload; the channel sender's bound per endpoint, by a hash of the URL). `grep -rn "reveal()" src` lists them; a new caller must be one of these.
 */
export class Secret extends Redacted {
  readonly #value: string;

  constructor(value: string) {
    super();
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }
}

/** A URL with its password (and user, when there is a password) replaced, for logs and errors. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = 'redacted';
    return url.toString();
  } catch {
    return raw.replace(/\/\/[^@/]*@/, '//redacted@');
  }
}
