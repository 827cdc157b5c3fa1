import type { Answer } from './answers.js';
import type { SandboxNetwork } from './scenario.js';
import type { SandboxState } from './state.js';
import {
  decliningEntriesTemplate,
  explicitEntries,
  realisticEntries,
  withNetworkId,
} from './trends.js';

/** Generated isptrends bodies kept, by total size. */
const BODY_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * The isptrends bodies of the sandbox's day: a network's explicit entries for the day, or those
 * its generator makes, made once a network and day and kept while they fit.
 */
export class TrendsBodies {
  readonly #bodies = new ByteBoundedCache();
  readonly #templates = new Map<string, Buffer[]>();
  /** Template bodies sent once as parts. */
  readonly #servedOnce = new Set<string>();

  constructor(private readonly state: SandboxState) {}

  body(network: SandboxNetwork, networkId: number): Answer['body'] {
    const { day, scenario } = this.state;
    const generator = network.generator;
    const cacheKey = `${network.id}|${day}`;
    const cached = this.#bodies.get(cacheKey);
    if (cached) return cached;
    if (generator?.type === 'declining' && !network.days[day]?.entries) {
      // One template per size and day serves every network of that size: its parts are sent
      // with this network's id between them, not joined, so serving a fleet's bodies once each
      // costs the sandbox little (the benchmark shares its cores with the worker). A body asked
      // for again is joined and kept, as the others are: sending it whole is cheaper still.
      const templateKey = `${generator.pairs}|${generator.ispsPerDomain}|${day}`;
      let parts = this.#templates.get(templateKey);
      if (!parts) {
        parts = decliningEntriesTemplate(generator.pairs, generator.ispsPerDomain, day).map(
          (part) => Buffer.from(part),
        );
        if (this.#templates.size >= 4) this.#templates.delete(this.#templates.keys().next().value!);
        this.#templates.set(templateKey, parts);
      }
      const body = withNetworkId(parts, networkId);
      if (!this.#servedOnce.delete(cacheKey)) {
        this.#servedOnce.add(cacheKey);
        return body;
      }
      const joined = Buffer.concat(body);
      this.#bodies.set(cacheKey, joined);
      return joined;
    }
    let text: string;
    const explicit = network.days[day]?.entries;
    if (explicit) {
      text = JSON.stringify({ entries: explicitEntries(networkId, explicit) });
    } else if (generator?.type === 'realistic') {
      text = JSON.stringify({
        entries: realisticEntries(scenario.seed, networkId, generator, day),
      });
    } else {
      text = '{"entries":[]}';
    }
    const body = Buffer.from(text);
    this.#bodies.set(cacheKey, body);
    return body;
  }
}

/** A map of Buffers that drops its oldest entries when over a total size. */
class ByteBoundedCache {
  #map = new Map<string, Buffer>();
  #bytes = 0;

  get(key: string): Buffer | undefined {
    return this.#map.get(key);
  }

  set(key: string, value: Buffer): void {
    this.#map.set(key, value);
    this.#bytes += value.length;
    for (const [oldKey, old] of this.#map) {
      if (this.#bytes <= BODY_CACHE_BYTES || oldKey === key) break;
      this.#map.delete(oldKey);
      this.#bytes -= old.length;
    }
  }
}
