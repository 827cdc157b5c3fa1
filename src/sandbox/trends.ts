import { COMPARISONS, PERIODS } from '../api/schemas.js';
import { addDays, daysBetween, weekday } from '../dates.js';
import { binomial, hash32, poisson, rngFor } from './random.js';
import { isShorthandEntry, type DayEntry, type RealisticGenerator } from './scenario.js';

/**
 * The ISP trend entries a network's isptrends answers with on an as-of date, computed the way
 * the API does: a pair's four days are yesterday (as-of - 1) and 7, 14 and 30 days before
 * yesterday; the pair is listed only when yesterday is below each of them; every delta and trend
 * is derived from the day figures, so the body is consistent field by field.
 */

/** [yesterday, 7 days ago, 14 days ago, 30 days ago] */
export type FourDays = [number, number, number, number];

export interface PairDays {
  domainId: number;
  url: string;
  isp: string;
  clicks: FourDays;
  conversions: FourDays;
  revenue: FourDays;
}

/** Offsets of the four reported days from the as-of date. */
export const DAY_OFFSETS: FourDays = [-1, -8, -15, -31];

const round2 = (n: number) => Math.round(n * 100) / 100;
/** Percent change from `from` to `to`; null when the comparison day had nothing. */
const trend = (to: number, from: number) =>
  from === 0 ? null : round2(((to - from) / from) * 100);

export function isListed(clicks: FourDays): boolean {
  return clicks[0] < clicks[1] && clicks[0] < clicks[2] && clicks[0] < clicks[3];
}

/** One API entry, every field derived from the four-day figures. */
export function buildEntry(networkId: number, pair: PairDays): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    network_id: networkId,
    network_tracking_domain_id: pair.domainId,
    isp: pair.isp,
  };
  const metrics = [
    ['total_clicks', pair.clicks, false],
    ['conversions', pair.conversions, false],
    ['revenue', pair.revenue, true],
  ] as const;
  for (const [metric, values, money] of metrics) {
    PERIODS.forEach((period, i) => {
      entry[`${period}_${metric}`] = money ? round2(values[i]!) : values[i];
    });
    COMPARISONS.forEach((token, i) => {
      const from = values[i + 1]!;
      const delta = values[0] - from;
      entry[`yesterday_${token}_days_ago_${metric}_delta`] = money ? round2(delta) : delta;
      entry[`yesterday_${token}_days_ago_${metric}_trend`] = trend(values[0], from);
    });
  }
  entry.relationship = { url: pair.url };
  return entry;
}

export function defaultDomainUrl(domainId: number): string {
  return `https://trk${domainId}.example.com`;
}

/** An explicit day's entries: shorthand expanded, full entries as written. */
export function explicitEntries(networkId: number, entries: DayEntry[]): Record<string, unknown>[] {
  return entries.map((entry) => {
    if (!isShorthandEntry(entry)) return entry;
    const clicks = entry.clicks;
    const conversions = entry.conversions ?? (clicks.map((c) => Math.round(c * 0.025)) as FourDays);
    const revenue = entry.revenue ?? (conversions.map((c) => c * 4.5) as FourDays);
    return buildEntry(networkId, {
      domainId: entry.domain,
      url: entry.url ?? defaultDomainUrl(entry.domain),
      isp: entry.isp,
      clicks,
      conversions,
      revenue,
    });
  });
}

/**
 * Realistic traffic: each (domain, ISP) pair has a mean daily volume (domain volume x ISP share
 * x a fixed per-pair factor), shaped by weekday and by any decline covering it, and the day's
 * clicks are a Poisson draw seeded by (seed, pair, day): the same day always has the same
 * clicks, whichever as-of date asks. Conversions are binomial on the clicks, revenue a payout
 * per conversion with some spread.
 */
export function realisticEntries(
  seed: number,
  networkId: number,
  generator: RealisticGenerator,
  asOf: string,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const days = DAY_OFFSETS.map((offset) => addDays(asOf, offset));
  for (const domain of generator.domains) {
    for (const isp of generator.isps) {
      const pairFactor = 0.7 + 0.6 * rngFor(seed, 'pair', domain.id, isp.name)();
      const mean = domain.clicks * isp.share * pairFactor;
      const clicks = days.map((day) => {
        const dayMean =
          mean *
          generator.weekly[weekday(day)]! *
          (1 - dropFraction(generator, domain.id, isp.name, day));
        return poisson(dayMean, rngFor(seed, 'clicks', domain.id, isp.name, day));
      }) as FourDays;
      if (!isListed(clicks)) continue;
      const conversions = clicks.map((c, i) =>
        binomial(c, generator.conversionRate, rngFor(seed, 'conv', domain.id, isp.name, days[i]!)),
      ) as FourDays;
      const revenue = conversions.map((c, i) => {
        const spread = 0.8 + 0.4 * rngFor(seed, 'rev', domain.id, isp.name, days[i]!)();
        return c * generator.payout * spread;
      }) as FourDays;
      out.push(
        buildEntry(networkId, {
          domainId: domain.id,
          url: domain.url,
          isp: isp.name,
          clicks,
          conversions,
          revenue,
        }),
      );
    }
  }
  return out;
}

/** Share of a pair's clicks lost on a traffic day (several declines compound). */
export function dropFraction(
  generator: RealisticGenerator,
  domainId: number,
  isp: string,
  day: string,
): number {
  let kept = 1;
  for (const decline of generator.declines) {
    if (decline.domain !== domainId) continue;
    if (decline.isps && !decline.isps.includes(isp)) continue;
    const k = daysBetween(decline.start, day);
    if (k < 0) continue;
    const percent = decline.profile[Math.min(k, decline.profile.length - 1)]!;
    kept *= 1 - percent / 100;
  }
  return 1 - kept;
}

/**
 * The benchmark's pairs: `pairs` entries, all declining and alertable with the default
 * thresholds (baseline >= 200 >= 50; drop 25% to 84% >= 20%; significance >= 0.25 * sqrt(200)
 * = 3.5 >= 3), spread over domains of `ispsPerDomain` ISPs. Serialised straight to JSON text
 * (no objects) because 50,000 entries are built per day; `networkId` is left out, and
 * `withNetworkId` puts it between the parts, so one template serves every network of the size.
 */
export const NETWORK_ID_PLACEHOLDER = '"network_id":0,';

export function decliningEntriesTemplate(
  pairs: number,
  ispsPerDomain: number,
  asOf: string,
): string[] {
  const dayHash = hash32(asOf);
  const parts: string[] = [];
  let text = '{"entries":[';
  for (let i = 0; i < pairs; i += 1) {
    const domainId = 1 + Math.floor(i / ispsPerDomain);
    const baseline = 200 + ((i * 7919) % 800);
    const dropPercent = 25 + ((i * 37) % 60);
    const yesterday = Math.floor(baseline * (1 - dropPercent / 100)) - ((dayHash + i) % 3);
    const clicks: FourDays = [yesterday, baseline, baseline + (i % 11), baseline + (i % 17)];
    const conversions = clicks.map((c) => Math.round(c * 0.03)) as FourDays;
    const revenue = conversions.map((c) => c * 2.5) as FourDays;
    const entry = buildEntry(0, {
      domainId,
      url: `https://trk${domainId}.bench.example`,
      isp: `ISP ${i % ispsPerDomain}`,
      clicks,
      conversions,
      revenue,
    });
    const json = JSON.stringify(entry);
    // buildEntry puts network_id first: split there so the id can be filled per network.
    parts.push(text + (i > 0 ? ',' : '') + '{');
    text = json.slice(1 + NETWORK_ID_PLACEHOLDER.length);
  }
  parts.push(`${text}]}`);
  return parts;
}

/** A network's body from a template's parts (as Buffers): the parts with its id between them. */
export function withNetworkId(parts: readonly Buffer[], networkId: number): Buffer[] {
  const id = Buffer.from(`"network_id":${networkId},`);
  const body: Buffer[] = new Array<Buffer>(parts.length * 2 - 1);
  for (let i = 0; i < parts.length; i++) {
    body[2 * i] = parts[i]!;
    if (i > 0) body[2 * i - 1] = id;
  }
  return body;
}
