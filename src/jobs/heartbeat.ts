import { request } from 'undici';
import type { Secret } from '../config/secret.js';
import type { Logger } from '../log.js';

/**
 * The monitor of the monitor: every finished run pings `heartbeat.url` (success) or
 * `heartbeat.url + "/fail"`, so an outside dead man's switch notices a worker that stopped
 * altogether. A ping never fails a run; its URL (which is a secret: anyone holding it can
 * ping) is never logged.
 */
export async function pingHeartbeat(
  url: Secret | undefined,
  ok: boolean,
  logger: Logger,
): Promise<void> {
  if (!url) return;
  const target = `${url.reveal().replace(/\/+$/, '')}${ok ? '' : '/fail'}`;
  try {
    const response = await request(target, {
      method: 'GET',
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
      signal: AbortSignal.timeout(10_000),
    });
    await response.body.dump();
    if (response.statusCode >= 400)
      logger.warn({ status: response.statusCode, ok }, 'heartbeat ping refused');
  } catch (error) {
    logger.warn(
      { err: { message: error instanceof Error ? error.name : 'error' }, ok },
      'heartbeat ping failed',
    );
  }
}
