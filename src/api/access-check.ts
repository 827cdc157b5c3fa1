import type { Config, NetworkConfig } from '../config/load.js';
import { ThmError } from '../errors.js';
import { createNetworkApiClient } from './client.js';

/**
 * `thm config check --online`: each network's `GET /networks/traffic/access` with its own key,
 * the call every traffic-check starts with. Per network: whether the API answered at all, the
 * realm the key belongs to (the network portal's, or another portal's: 403 Out of realm; or a
 * key refused: 401), and whether the premium tier is active. Premium off is reported, not a
 * failure: the monitor records it and says so by e-mail; the rest are (the check exits 1).
 */
export interface AccessCheck {
  network: string;
  /** The API answered (any HTTP status). */
  reachable: boolean;
  /** `network`, `other portal`, `key refused`, or `unknown` when that could not be learnt. */
  realm: 'network' | 'other portal' | 'key refused' | 'unknown';
  /** undefined when the access object could not be read. */
  premium?: boolean;
  ok: boolean;
  /** What went wrong, one line (the API's own message where there was one). */
  error?: string;
}

/** The checks run side by side, each bounded by `api.requestTimeoutMs`, tried once. */
export async function checkAccess(config: Config): Promise<AccessCheck[]> {
  return Promise.all(config.networks.map((network) => checkNetwork(config, network)));
}

async function checkNetwork(config: Config, network: NetworkConfig): Promise<AccessCheck> {
  // One attempt: a person waits for the answer, and a flaky API shows as it is.
  const client = createNetworkApiClient(
    { ...network, apiKey: network.apiKey.read() },
    { ...config.api, attempts: 1 },
  );
  try {
    const access = await client.getTrafficAccess();
    return {
      network: network.id,
      reachable: true,
      realm: 'network',
      premium: access.has_premium,
      ok: true,
    };
  } catch (error) {
    const code = error instanceof ThmError ? error.code : 'THM_INTERNAL';
    const status = error instanceof ThmError ? error.status : undefined;
    const realm =
      code === 'THM_API_REALM'
        ? 'other portal'
        : code === 'THM_API_AUTH'
          ? 'key refused'
          : 'unknown';
    return {
      network: network.id,
      reachable: status !== undefined || code === 'THM_API_INVALID_RESPONSE',
      realm,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await client.close();
  }
}
