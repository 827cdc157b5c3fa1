import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * HTTP basic auth for the dashboard (`monitoring.dashboardAuth`, "user:password").
 *
 * Both sides are hashed before the compare, so `timingSafeEqual` gets equal lengths and the
 * time taken tells nothing about the expected user, password or their lengths.
 */
export const BASIC_REALM = 'Basic realm="thm monitoring", charset="UTF-8"';

export function credentialsMatch(header: string | undefined, expected: string): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  const given = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  // Evaluated in full whatever the header: no early exit for a missing one.
  const same = timingSafeEqual(digest(given), digest(expected));
  return match !== null && same;
}

export function isAuthorized(request: IncomingMessage, expected: string): boolean {
  return credentialsMatch(request.headers.authorization, expected);
}
