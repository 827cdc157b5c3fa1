import { addDays } from '../dates.js';
import type { Scenario } from './scenario.js';

/**
 * The built-in scenarios.
 *
 * demo: the story `thm demo` steps through, as-of dates 2026-11-14 to 2026-11-21 (traffic days
 * one earlier). "Acme Network" (premium) has realistic traffic on four tracking domains x ten
 * ISPs with weekly seasonality and Poisson noise, and these events (drops are of clicks):
 *   - domain 101 x Comcast: 35% from 11-14 (new, warning, on as-of 11-15), 62% from 11-15
 *     (worse: critical on 11-16), normal from 11-19 (quiet on 11-20 and 11-21: cleared).
 *   - domain 103 x Verizon: about 30% from 11-14 to 11-16 (warning 11-15 to 11-17), normal from
 *     11-17 (quiet 11-18 and 11-19: cleared on 11-19).
 *   - domain 102, every ISP: blocked (82-90%) from 11-16 on (a blocked domain from 11-17).
 *   - domain 104 x T-Mobile: 38-40% from 11-18, 62% from 11-20 (new on 11-19, worse on 11-21).
 *   - everything else: noise, which the API lists now and then but stays under the default
 *     thresholds (the seed is one for which it does; test/sandbox pins the whole story).
 * "Globex Partners" has no premium (isptrends answers the premium error); both have invoice
 * summaries that change every day, and acme has 120 marketplace connections for paging.
 *
 * bench: `networks` networks bench-1..bench-N, each with exactly `pairsPerNetwork` declining,
 * alertable pairs (trends.ts decliningEntriesTemplate), premium, network keys only.
 */

export const DEMO_FIRST_DAY = '2026-11-14';
export const DEMO_DAY_COUNT = 8;

/** The as-of dates of the demo story, in order. */
export function demoDays(): string[] {
  return Array.from({ length: DEMO_DAY_COUNT }, (_, i) => addDays(DEMO_FIRST_DAY, i));
}

const DEMO_ISPS = [
  { name: 'Comcast', share: 0.22 },
  { name: 'AT&T', share: 0.16 },
  { name: 'Verizon', share: 0.14 },
  { name: 'Charter Spectrum', share: 0.12 },
  { name: 'Cox Communications', share: 0.07 },
  { name: 'T-Mobile', share: 0.07 },
  { name: 'CenturyLink', share: 0.05 },
  { name: 'Frontier', share: 0.03 },
  { name: 'Optimum', share: 0.03 },
  { name: 'Windstream', share: 0.02 },
];

export function demoScenario(): Scenario {
  return {
    name: 'demo',
    seed: 7,
    startDay: DEMO_FIRST_DAY,
    networks: [
      {
        id: 'acme',
        networkId: 1001,
        name: 'Acme Network',
        premium: true,
        connections: 120,
        generator: {
          type: 'realistic',
          domains: [
            { id: 101, url: 'https://trk.acme-offers.com', clicks: 27_000 },
            { id: 102, url: 'https://go.acmeclicks.net', clicks: 18_000 },
            { id: 103, url: 'https://links.acme-deals.io', clicks: 21_000 },
            { id: 104, url: 'https://t.acmepromo.com', clicks: 9_000 },
          ],
          isps: DEMO_ISPS,
          declines: [
            {
              domain: 101,
              isps: ['Comcast'],
              start: '2026-11-14',
              profile: [35, 62, 64, 66, 63, 0],
            },
            { domain: 103, isps: ['Verizon'], start: '2026-11-14', profile: [30, 32, 33, 0] },
            { domain: 102, start: '2026-11-16', profile: [82, 88, 90] },
            { domain: 104, isps: ['T-Mobile'], start: '2026-11-18', profile: [38, 40, 62] },
          ],
        },
      },
      {
        id: 'globex',
        networkId: 1002,
        name: 'Globex Partners',
        premium: false,
        generator: {
          type: 'realistic',
          domains: [
            { id: 201, url: 'https://trk.globex-partners.com', clicks: 5_000 },
            { id: 202, url: 'https://go.globexoffers.net', clicks: 3_000 },
          ],
          isps: DEMO_ISPS.slice(0, 6),
          declines: [{ domain: 201, isps: ['AT&T'], start: '2026-11-16', profile: [60] }],
        },
      },
    ],
  };
}

export interface BenchParams {
  /** @defaultValue 1 */
  networks?: number;
  /** @defaultValue 10000 */
  pairsPerNetwork?: number;
  /** @defaultValue 2026-11-21 */
  startDay?: string;
}

export function benchScenario(params: BenchParams = {}): Scenario {
  const networks = params.networks ?? 1;
  const pairs = params.pairsPerNetwork ?? 10_000;
  return {
    name: 'bench',
    seed: 1,
    startDay: params.startDay ?? '2026-11-21',
    networks: Array.from({ length: networks }, (_, i) => ({
      id: `bench-${i + 1}`,
      networkId: 100_001 + i,
      name: `Bench Network ${i + 1}`,
      premium: true,
      portals: ['network' as const],
      generator: { type: 'declining' as const, pairs },
    })),
  };
}

export function builtinScenario(name: 'demo'): Scenario;
export function builtinScenario(name: 'bench', params?: BenchParams): Scenario;
export function builtinScenario(name: 'demo' | 'bench', params?: BenchParams): Scenario;
export function builtinScenario(name: 'demo' | 'bench', params?: BenchParams): Scenario {
  return name === 'demo' ? demoScenario() : benchScenario(params);
}
