import type { Config } from '../config/load.js';
import { HEARTBEAT_TIMEOUT_MS } from './heartbeat.js';

/**
 * How long a graceful stop can take: the worker stops taking jobs and waits for the active ones
 * (docs/operations.md; docker-compose.yml's stop_grace_period and the systemd unit's
 * TimeoutStopSec must be at least this, or the supervisor kills a job half-way and it is run
 * again after the lock expires).
 *
 * - a check job: its API calls under one deadline (`api.requestTimeoutMs`), its /start and
 *   success-or-fail heartbeat pings (each bounded), one atomic Redis commit;
 * - a mail job at the same time: one SMTP exchange, each step bounded by `mail.timeoutMs`
 *   (DNS, connect, greeting, the message);
 * - then closing the connections. The slack covers the commit and the close.
 */
export const STOP_SLACK_MS = 20_000;

export function longestStopMs(config: Pick<Config, 'api' | 'mail'>): number {
  const check = config.api.requestTimeoutMs + 2 * HEARTBEAT_TIMEOUT_MS;
  const mail = 4 * config.mail.timeoutMs;
  return Math.max(check, mail) + STOP_SLACK_MS;
}
