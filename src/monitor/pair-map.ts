/**
 * A map from pairs (domain id, ISP exactly as sent) to values: a Map of domains to Maps of ISPs.
 * Looking a pair up makes no key of its own (a `pairKey` string a pair was 150,000 strings a
 * classification of 50,000 pairs, most of its garbage).
 */
export class PairMap<V> {
  private readonly domains = new Map<number, Map<string, V>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(domainId: number, isp: string): V | undefined {
    return this.domains.get(domainId)?.get(isp);
  }

  has(domainId: number, isp: string): boolean {
    return this.domains.get(domainId)?.has(isp) ?? false;
  }

  set(domainId: number, isp: string, value: V): void {
    let isps = this.domains.get(domainId);
    if (isps === undefined) {
      isps = new Map();
      this.domains.set(domainId, isps);
    }
    if (!isps.has(isp)) this.count++;
    isps.set(isp, value);
  }
}
