/**
 * A pair's id within a network: `${domainId}:${isp}`. Domain ids are integers, so the FIRST
 * colon always ends the domain id and everything after it is the ISP exactly as the API sent
 * it (colons, spaces and all). Unambiguous without escaping.
 */
export function pairKey(domainId: number, isp: string): string {
  return `${domainId}:${isp}`;
}

export function parsePairKey(key: string): { domainId: number; isp: string } {
  const colon = key.indexOf(':');
  const domainId = colon > 0 ? Number(key.slice(0, colon)) : Number.NaN;
  if (!Number.isInteger(domainId)) throw new RangeError(`not a pair key: ${JSON.stringify(key)}`);
  return { domainId, isp: key.slice(colon + 1) };
}

/** A pair event, the unit of "never e-mailed twice": `class|pairKey` (for one as-of date). */
export function pairEvent(pairClass: string, key: string): string {
  return `${pairClass}|${key}`;
}
