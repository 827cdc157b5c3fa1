import { createHash } from 'node:crypto';
import { PORTALS, type ParsedScenario, type Portal } from './scenario.js';

/**
 * The sandbox's API keys: one per network and portal, fixed by the scenario or derived from
 * its seed (`sbx_<network>_<portal>_<12 hex>`), so a scenario always has the same keys and a
 * test can predict them. The URL prefix of a request selects its portal (seed: Authentication).
 */
export interface SandboxKey {
  network: string;
  portal: Portal;
  /** The network's premium flag when the sandbox started (see Sandbox.setPremium). */
  premium: boolean;
  key: string;
}

export const PORTAL_OF_PREFIX: Record<string, Portal> = {
  networks: 'network',
  affiliates: 'affiliate',
  advertisers: 'advertiser',
  partners: 'marketplace',
};

export function deriveKey(seed: number, network: string, portal: Portal): string {
  const digest = createHash('sha256').update(`${seed}:${network}:${portal}`).digest('hex');
  return `sbx_${network}_${portal}_${digest.slice(0, 12)}`;
}

export function scenarioKeys(scenario: ParsedScenario): SandboxKey[] {
  const keys: SandboxKey[] = [];
  for (const network of scenario.networks) {
    for (const portal of PORTALS) {
      if (!network.portals.includes(portal)) continue;
      keys.push({
        network: network.id,
        portal,
        premium: network.premium,
        key: network.keys[portal] ?? deriveKey(scenario.seed, network.id, portal),
      });
    }
  }
  return keys;
}
