import type { AlertSettings } from '../../src/monitor/alert-settings.js';
import { dayNumber } from '../../src/dates.js';
import { ispHash } from '../../src/monitor/known-isps.js';
import type { ActiveDrop, IspTrend, KnownDomain, LearnedState } from '../../src/monitor/types.js';

/** The config's default alert settings (src/config/schema.ts). */
export const SETTINGS: AlertSettings = {
  minBaselineClicks: 50,
  minDropPercent: 20,
  minSignificance: 3,
  criticalDropPercent: 50,
  renotifyAfterDays: 7,
  clearAfterRuns: 2,
  notifyCleared: true,
};

export interface EntryOptions {
  yesterday: number;
  baseline: number;
  /** The API's 7-day click trend; omitted: consistent with the totals; 'absent': no field. */
  trend?: number | null | 'absent';
  url?: string;
}

function pct(from: number, to: number): number | null {
  return from > 0 ? ((to - from) / from) * 100 : null;
}

/** A complete, schema-valid ISP trend entry. */
export function entry(domainId: number, isp: string, options: EntryOptions): IspTrend {
  const { yesterday, baseline } = options;
  const d14 = baseline;
  const d30 = baseline;
  const result: Record<string, unknown> = {
    network_id: 1,
    network_tracking_domain_id: domainId,
    isp,
    yesterday_total_clicks: yesterday,
    seven_days_ago_total_clicks: baseline,
    fourteen_days_ago_total_clicks: d14,
    thirty_days_ago_total_clicks: d30,
    yesterday_seven_days_ago_total_clicks_delta: yesterday - baseline,
    yesterday_fourteen_days_ago_total_clicks_delta: yesterday - d14,
    yesterday_thirty_days_ago_total_clicks_delta: yesterday - d30,
    yesterday_seven_days_ago_total_clicks_trend:
      options.trend === undefined ? pct(baseline, yesterday) : options.trend,
    yesterday_fourteen_days_ago_total_clicks_trend: pct(d14, yesterday),
    yesterday_thirty_days_ago_total_clicks_trend: pct(d30, yesterday),
    yesterday_conversions: 1,
    seven_days_ago_conversions: 2,
    fourteen_days_ago_conversions: 2,
    thirty_days_ago_conversions: 2,
    yesterday_seven_days_ago_conversions_delta: -1,
    yesterday_fourteen_days_ago_conversions_delta: -1,
    yesterday_thirty_days_ago_conversions_delta: -1,
    yesterday_seven_days_ago_conversions_trend: -50,
    yesterday_fourteen_days_ago_conversions_trend: -50,
    yesterday_thirty_days_ago_conversions_trend: -50,
    yesterday_revenue: 1.5,
    seven_days_ago_revenue: 3,
    fourteen_days_ago_revenue: 3,
    thirty_days_ago_revenue: 3,
    yesterday_seven_days_ago_revenue_delta: -1.5,
    yesterday_fourteen_days_ago_revenue_delta: -1.5,
    yesterday_thirty_days_ago_revenue_delta: -1.5,
    yesterday_seven_days_ago_revenue_trend: -50,
    yesterday_fourteen_days_ago_revenue_trend: -50,
    yesterday_thirty_days_ago_revenue_trend: -50,
    relationship: { url: options.url ?? `https://d${domainId}.example` },
  };
  if (options.trend === 'absent') delete result.yesterday_seven_days_ago_total_clicks_trend;
  return result as unknown as IspTrend;
}

/** Baseline 1000: a warning (-30%), a critical (-80%), a listed pair under the thresholds. */
export const WARN = { baseline: 1000, yesterday: 700 };
export const CRIT = { baseline: 1000, yesterday: 200 };
export const BELOW = { baseline: 1000, yesterday: 950 };

/** `count` entries over domains of `perDomain` ISPs, all alertable (warning). */
export function manyEntries(count: number, perDomain = 20, seed = 0): IspTrend[] {
  const out: IspTrend[] = [];
  for (let i = 0; i < count; i++) {
    const domainId = 1000 + Math.floor(i / perDomain);
    out.push(
      entry(domainId, `ISP ${seed} number ${i} Communications`, {
        baseline: 1000 + (i % 50),
        yesterday: 500 + (i % 100),
        url: `https://track-${domainId}.example.com`,
      }),
    );
  }
  return out;
}

/**
 * What a network whose days vary as chance does has learned: no variation of its own, on a
 * great many comparisons, and no ISPs known yet (so no domain moves as a whole). The tests of
 * the lifecycle run on it; with nothing learned, a new network's first runs are judged against
 * the prior (monitor/variation.ts), which a 30% drop does not clear.
 */
export const CHANCE: LearnedState = {
  variation: {
    asOf: '2026-01-01',
    // A little under nothing, so that the prior's pull leaves exactly none.
    spread: [-1, -1, -1, -1, -1, -1],
    spreadWeight: [1e9, 1e9, 1e9, 1e9, 1e9, 1e9],
    shared: [0, 0, 0, 0, 0, 0],
    sharedWeight: [1e9, 1e9, 1e9, 1e9, 1e9, 1e9],
    network: [0, 0, 0, 0, 0, 0],
    networkWeight: [1e9, 1e9, 1e9, 1e9, 1e9, 1e9],
    days: 60,
  },
  known: [],
  drops: [],
};

/**
 * A domain's drop told on `day` at `dropPercent` against both weeks (domain 1 of
 * https://one.example unless `overrides` say otherwise), as the stored state keeps it.
 */
export function toldDomainDrop(
  day: string,
  dropPercent: number,
  overrides: Partial<ActiveDrop> = {},
): ActiveDrop {
  return {
    scope: 'domain',
    domainId: 1,
    domainUrl: 'https://one.example',
    firstSeen: day,
    lastSeen: day,
    lastNotified: day,
    dropPercent,
    dropPercent14: dropPercent,
    notifiedDropPercent: dropPercent,
    quietRuns: 0,
    ...overrides,
  };
}

/**
 * A domain whose ISPs `isps` have been known for a month before `asOf`, each last listed
 * `lastListedDaysBack` days before it.
 */
export function knownForMonth(
  domainId: number,
  isps: readonly string[],
  asOf: string,
  lastListedDaysBack = 1,
): KnownDomain {
  const hashes = [...new Set(isps.map(ispHash))].sort((a, b) => a - b);
  return {
    domainId,
    since: dayNumber(asOf) - 30,
    level: 0,
    hashes,
    lastListed: hashes.map(() => dayNumber(asOf) - lastListedDaysBack),
  };
}
