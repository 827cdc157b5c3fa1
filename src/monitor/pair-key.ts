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
  return latin1Event(pairClass, domainId, isp) ?? `${pairClass}|${pairKey(domainId, isp)}`;
}

/**
 * The event as one string of its exact size, made from its Latin-1 bytes; undefined when it has
 * a character above U+00FF, or is too long for the buffer. A concatenation is a string over its
 * parts, and sorting the events (notificationId) made a flat copy of each; `Array.prototype.join`
 * makes a flat one, with a temporary of its own. Made from its bytes, an event takes less than
 * half the memory of either, in about the same time. The id's text is `String`'s, as in pairKey
 * (a domain's comes from V8's
 * cache of number strings after its first pair).
 */
function latin1Event(pairClass: string, domainId: number, isp: string): string | undefined {
  const id = String(domainId);
  const bytes = EVENT_BYTES;
  if (pairClass.length + id.length + isp.length + 2 > bytes.length) return undefined;
  let n = latin1Into(bytes, 0, pairClass);
  if (n < 0) return undefined;
  bytes[n++] = BAR;
  n = latin1Into(bytes, n, id);
  bytes[n++] = COLON;
  n = latin1Into(bytes, n, isp);
  return n < 0 ? undefined : bytes.toString('latin1', 0, n);
}

/** Writes `text` as Latin-1 at `at`; the end, or -1 for a character above U+00FF. */
function latin1Into(bytes: Buffer, at: number, text: string): number {
  let n = at;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) return -1;
    bytes[n++] = code;
  }
  return n;
}

/** latin1Event's bytes, refilled per call (it is synchronous). */
const EVENT_BYTES = Buffer.allocUnsafe(1024);
const BAR = 0x7c;
const COLON = 0x3a;
