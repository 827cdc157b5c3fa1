import { localDate, isIsoDate } from '../dates.js';
import { UsageError } from '../errors.js';
import { AdvertiserUserStore } from './advertiser-users.js';
import { FaultQueue } from './faults.js';
import { scenarioKeys, type SandboxKey } from './keys.js';
import type { ParsedScenario, SandboxNetwork } from './scenario.js';
import { TieredCommissionStore } from './tiered-commissions.js';

/** One request received under /v1, as requestLog() lists it. */
export interface SandboxRequest {
  method: string;
  /** e.g. /networks/tieredcommissions, or /partners/connections/table?page=2 */
  path: string;
  network?: string;
}

/** Requests kept by requestLog(). */
const REQUEST_LOG_MAX = 1_000;

/**
 * What a running sandbox knows and changes: its scenario and keys, "today" of the API, each
 * network's premium, the queued faults, what the write endpoints created, and what it received.
 * The routes read it; the control surface and the Sandbox object change it.
 */
export class SandboxState {
  readonly keys: SandboxKey[];
  readonly networks: Map<string, { network: SandboxNetwork; networkId: number }>;
  readonly faults = new FaultQueue();
  readonly advertiserUsers = new AdvertiserUserStore();
  readonly tieredCommissions = new TieredCommissionStore();
  /** The as-of date: isptrends describes the day before it. */
  day: string;
  requestCount = 0;
  connectionCount = 0;
  readonly #keyIndex: Map<string, SandboxKey>;
  readonly #premium: Map<string, boolean>;
  readonly #requestLog: SandboxRequest[] = [];

  constructor(readonly scenario: ParsedScenario) {
    this.keys = scenarioKeys(scenario);
    this.#keyIndex = new Map(this.keys.map((k) => [k.key, k]));
    this.networks = new Map(
      scenario.networks.map((n, i) => [n.id, { network: n, networkId: n.networkId ?? 1001 + i }]),
    );
    this.#premium = new Map(scenario.networks.map((n) => [n.id, n.premium]));
    this.faults.add(scenario.faults);
    const explicitDays = scenario.networks.flatMap((n) => Object.keys(n.days)).sort();
    this.day = scenario.startDay ?? explicitDays[0] ?? localDate(Date.now(), 'UTC');
  }

  keyOf(header: string | string[] | undefined): SandboxKey | undefined {
    return typeof header === 'string' ? this.#keyIndex.get(header) : undefined;
  }

  hasPremium(networkId: string): boolean {
    return this.#premium.get(networkId) ?? false;
  }

  setDay(date: string): void {
    if (!isIsoDate(date)) throw new UsageError(`sandbox day: "${date}" is not a date YYYY-MM-DD`);
    this.day = date;
  }

  setPremium(networkId: string, on: boolean): void {
    if (!this.networks.has(networkId))
      throw new UsageError(`sandbox: unknown network "${networkId}"`);
    this.#premium.set(networkId, on);
  }

  logRequest(request: SandboxRequest): void {
    this.requestCount += 1;
    this.#requestLog.push(request);
    if (this.#requestLog.length > REQUEST_LOG_MAX) this.#requestLog.shift();
  }

  requestLog(): SandboxRequest[] {
    return [...this.#requestLog];
  }
}
