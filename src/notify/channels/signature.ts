import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * X-Thm-Signature: `sha256=` and the hex HMAC-SHA256 of the exact request body, keyed with the
 * channel's secret. A receiver recomputes it over the raw bytes it got (before parsing them) and
 * compares in constant time; docs/configuration.md shows it in a few lines of Node.
 */
export const SIGNATURE_HEADER = 'x-thm-signature';
export const NOTIFICATION_ID_HEADER = 'x-thm-notification-id';

export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does: true when `header` is the signature of `body` under `secret`. */
export function verifySignature(secret: string, body: string | Buffer, header: string): boolean {
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
