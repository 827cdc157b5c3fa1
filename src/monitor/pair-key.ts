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

/**
 * A pair event, the unit of "never e-mailed twice": `class|pairKey` (for one as-of date), for
 * the pair (domainId, isp).
 */
export function pairEvent(pairClass: string, domainId: number, isp: string): string {
  // Joined, not concatenated: a concatenation is a string over its parts, and sorting the
  // events (notificationId) made a flat copy of each; with the pair's key kept for it, that was
  // ~3 MiB of garbage more than one flat string each at 50,000 pairs (target P6,
  // docs/performance.md). The text is pairKey's, after the class.
  EVENT_PARTS[0] = pairClass;
  EVENT_PARTS[2] = domainId;
  EVENT_PARTS[4] = isp;
  return EVENT_PARTS.join('');
}

/** pairEvent's parts, refilled per call (it is synchronous). */
const EVENT_PARTS: Array<string | number> = ['', '|', 0, ':', ''];
