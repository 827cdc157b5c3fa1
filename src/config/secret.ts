import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A value that must never be printed: API keys, passwords. It serialises, stringifies and
 * inspects as `[redacted]`, so a config object, an error or a log line that carries one by
 * accident still shows nothing. Only `reveal()` returns the value, and only the HTTP client
 * and the mail transport call it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
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
