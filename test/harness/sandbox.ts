import { parseConfig, type Config, type NetworkConfig } from '../../src/config/load.js';
import type { RawConfig } from '../../src/config/schema.js';
import { Secret } from '../../src/config/secret.js';
import type { Logger } from '../../src/log.js';
import {
  builtinScenario,
  startSandbox,
  type Portal,
  type Sandbox,
  type Scenario,
} from '../../src/sandbox/index.js';

/**
 * The sandbox API for tests: a real HTTP server on loopback with the given scenario (default:
 * the demo story), plus the config pieces that point a network at it.
 *
 *   const sbx = await startTestSandbox();
 *   const config = parseConfig({ networks: [sbx.rawNetwork('acme')] }, { env: sbx.env });
 *   ...
 *   await sbx.close();
 */
export interface TestSandbox {
  sandbox: Sandbox;
  baseUrl: string;
  /** The key of a network for a portal (default the network portal). */
  key(network: string, portal?: Portal): string;
  apiKey(network: string, portal?: Portal): Secret;
  /** Environment variables holding every network key: THM_SANDBOX_KEY_<NETWORK>. */
  env: Record<string, string>;
  /** Name of the variable holding a network's key. */
  keyEnv(network: string): string;
  /** A config-file entry (networks[]) for the network, pointing at the sandbox. */
  rawNetwork(network: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** The resolved NetworkConfig (defaults applied, key as a Secret). */
  network(network: string, extra?: Record<string, unknown>): NetworkConfig;
  /** A whole resolved Config with these networks (and any other sections given). */
  config(networks: string[], rest?: Partial<RawConfig>): Config;
  close(): Promise<void>;
}

/** Short timeouts and backoff for tests (config section `api`). */
export const TEST_HTTP: Config['api'] = {
  connectTimeoutMs: 1_000,
  headersTimeoutMs: 3_000,
  bodyTimeoutMs: 3_000,
  requestTimeoutMs: 30_000,
  maxResponseBytes: 64 * 1024 * 1024,
  attempts: 3,
  retryBudgetMs: 5_000,
};

export async function startTestSandbox(
  scenario: Scenario = builtinScenario('demo'),
  options: { logger?: Logger } = {},
): Promise<TestSandbox> {
  const sandbox = await startSandbox({ scenario, ...options });
  const keyEnv = (network: string) =>
    `THM_SANDBOX_KEY_${network.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  const key = (network: string, portal: Portal = 'network') => {
    const found = sandbox.keys.find((k) => k.network === network && k.portal === portal);
    if (!found) throw new Error(`sandbox has no ${portal} key for network "${network}"`);
    return found.key;
  };
  const env: Record<string, string> = {};
  for (const k of sandbox.keys) if (k.portal === 'network') env[keyEnv(k.network)] = k.key;
  const rawNetwork = (network: string, extra: Record<string, unknown> = {}) => ({
    id: network,
    baseUrl: sandbox.baseUrl,
    apiKeyEnv: keyEnv(network),
    recipients: [`ops@${network}.example`],
    ...extra,
  });
  const config = (networks: string[], rest: Partial<RawConfig> = {}) =>
    parseConfig(
      { ...rest, networks: networks.map((n) => rawNetwork(n)) },
      { env: { ...process.env, ...env } },
    );
  return {
    sandbox,
    baseUrl: sandbox.baseUrl,
    key,
    apiKey: (network, portal) => new Secret(key(network, portal)),
    env,
    keyEnv,
    rawNetwork,
    network: (network, extra) =>
      parseConfig({ networks: [rawNetwork(network, extra)] }, { env: { ...process.env, ...env } })
        .networks[0]!,
    config,
    close: () => sandbox.close(),
  };
}
