import type { DropScope, Silence } from './types.js';

/**
 * Silence matching. A silence names a tracking domain, an ISP pattern, or both; an absent part
 * matches anything. ISP patterns are exact text, or a glob where `*` is any run of characters
 * and `?` exactly one (a Unicode code point); there is no escape character. They ignore case
 * (`--isp comcast` matches "Comcast"), unless the silence was added with `--case-sensitive`.
 *
 * Globs are matched by a two-pointer scan with one backtrack point, not compiled into a
 * RegExp: linear in practice, O(pattern x text) at worst, so a hostile pattern from the CLI
 * cannot make a run take exponential time (no ReDoS), and nothing is compiled per pair.
 */

export function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/** Whether `text` matches the glob `pattern` (both as code points). */
export function globMatch(pattern: string, text: string): boolean {
  return matchCodePoints(Array.from(pattern), Array.from(text));
}

function matchCodePoints(pattern: readonly string[], text: readonly string[]): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const want = pattern[p];
    if (want !== undefined && want !== '*' && (want === '?' || want === text[t])) {
      p++;
      t++;
    } else if (want === '*') {
      star = p++;
      resume = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * In force at `now` (epoch ms): from `startsAt` (or its creation) until, not including,
 * `expiresAt`.
 */
export function isSilenceActive(
  silence: Pick<Silence, 'expiresAt' | 'startsAt'>,
  now: number,
): boolean {
  return (silence.startsAt ?? 0) <= now && silence.expiresAt > now;
}

export type SilenceMatcher = (domainId: number, isp: string) => Silence | undefined;

/**
 * Prepares the silences of one run (already filtered to the unexpired ones) once; the matcher
 * is then called per pair. The first matching silence in the given order wins.
 */
export function silenceMatcher(silences: readonly Silence[]): SilenceMatcher {
  if (silences.length === 0) return () => undefined;
  const compiled = silences.map((silence) => {
    const fold = silence.caseSensitive
      ? (text: string) => text
      : (text: string) => text.toLowerCase();
    const isp = silence.isp === undefined ? undefined : fold(silence.isp);
    let ispMatches: ((isp: string) => boolean) | undefined;
    if (isp !== undefined) {
      if (isGlob(isp)) {
        const points = Array.from(isp);
        ispMatches = (candidate) => matchCodePoints(points, Array.from(fold(candidate)));
      } else {
        ispMatches = (candidate) => fold(candidate) === isp;
      }
    }
    return { silence, domainId: silence.domainId, ispMatches };
  });
  return (domainId, isp) => {
    for (const c of compiled) {
      if (c.domainId !== undefined && c.domainId !== domainId) continue;
      if (c.ispMatches !== undefined && !c.ispMatches(isp)) continue;
      return c.silence;
    }
    return undefined;
  };
}

/**
 * A domain's common drop is silenced by a silence of the whole domain (no ISP, or `*`); the
 * network's, by one of everything.
 */
export function silencesWhole(
  silences: readonly Silence[],
  scope: DropScope,
  domainId: number,
): boolean {
  return silences.some(
    (s) =>
      (s.isp === undefined || s.isp === '*') &&
      (s.domainId === undefined || (scope === 'domain' && s.domainId === domainId)),
  );
}
