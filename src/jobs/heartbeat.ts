import { request } from 'undici';
import type { Config, NetworkConfig } from '../config/load.js';
import type { Secret } from '../config/secret.js';
import type { Logger } from '../log.js';
import type { CheckKind } from './names.js';

/**
 * The monitor of the monitor, after healthchecks.io: a run pings `<url>/start` when it starts,
 * `<url>` when it finishes and `<url>/fail` when it fails for good, so an outside dead man's
 * switch notices a worker that stopped, and measures how long runs take and catches one that
 * never finishes. Each network may have its own URL per job kind (`networks[].heartbeat`), so
 * that one network's failure is never masked by another's success; else the top-level
 * `heartbeat.url`. A ping never fails a run; its URL (a secret: anyone holding it can ping) is
 * never logged.
 */
export type HeartbeatSignal = 'start' | 'success' | 'fail';

/** The longest one ping may take (src/jobs/shutdown.ts counts on it). */
export const HEARTBEAT_TIMEOUT_MS = 10_000;

/** The URL a run of this network and kind pings, if any. */
export function heartbeatUrl(
  config: Pick<Config, 'heartbeat'>,
  network: Pick<NetworkConfig, 'heartbeat'>,
  kind: CheckKind,
): Secret | undefined {
  const own = kind === 'traffic-check' ? network.heartbeat.url : network.heartbeat.invoicesUrl;
  return own ?? config.heartbeat.url;
}

export async function pingHeartbeat(
  url: Secret | undefined,
  signal: HeartbeatSignal,
  logger: Logger,
): Promise<void> {
  if (!url) return;
  const suffix = signal === 'success' ? '' : `/${signal}`;
  const target = `${url.reveal().replace(/\/+$/, '')}${suffix}`;
  try {
    const response = await request(target, {
      method: 'GET',
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
      signal: AbortSignal.timeout(HEARTBEAT_TIMEOUT_MS),
    });
    await response.body.dump();
    if (response.statusCode >= 400)
      logger.warn({ status: response.statusCode, signal }, 'heartbeat ping refused');
  } catch (error) {
    logger.warn(
      { err: { message: error instanceof Error ? error.name : 'error' }, signal },
      'heartbeat ping failed',
    );
  }
}
