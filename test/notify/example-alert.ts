import { significanceOf } from '../../src/monitor/significance.js';
import type {
  ClassifiedPair,
  Classification,
  DomainRollup,
  PairClass,
  PairFigures,
  Severity,
  Variation,
} from '../../src/monitor/types.js';
import type { AlertEmailInput } from '../../src/notify/render/alert.js';
import { emptyClassCounts } from '../../src/monitor/classify.js';

/**
 * A realistic alert e-mail's input: one blocked domain (many ISPs together), one domain with a
 * single ISP filtering, one with two ISPs, cleared pairs (one that may still be depressed),
 * ongoing and silenced pairs, and an invoice summary. Used by the renderer, layout, delivery
 * and channel message tests.
 */

type Four = [yesterday: number, d7: number, d14: number, d30: number];

function trend(before: number, after: number): number | null {
  return before === 0 ? null : Math.round(((after - before) / before) * 1000) / 10;
}

/** PairFigures from the four days' clicks, conversions and revenue, trends computed. */
export function figuresFrom(clicks: Four, conversions: Four, revenue: Four): PairFigures {
  const days = ([y, d7, d14, d30]: Four) => ({ yesterday: y, d7, d14, d30 });
  const trends = ([y, d7, d14, d30]: Four) => ({
    d7: trend(d7, y),
    d14: trend(d14, y),
    d30: trend(d30, y),
  });
  return {
    clicks: days(clicks),
    clickTrend: trends(clicks),
    conversions: days(conversions),
    conversionTrend: trends(conversions),
    revenue: days(revenue),
    revenueTrend: trends(revenue),
  };
}

export interface ExamplePairSpec {
  domainId: number;
  domainUrl: string;
  isp: string;
  class: PairClass;
  severity?: Severity;
  firstSeen: string;
  clicks?: Four;
  conversions?: Four;
  revenue?: Four;
  dropPercent?: number;
  mayStillBeDepressed?: boolean;
  /** The network's learned variation the pair is judged by (Variation.extra); absent: chance alone. */
  extra?: number;
}

export function examplePair(spec: ExamplePairSpec): ClassifiedPair {
  const figures = spec.clicks
    ? figuresFrom(spec.clicks, spec.conversions ?? [0, 0, 0, 0], spec.revenue ?? [0, 0, 0, 0])
    : undefined;
  const drop =
    spec.dropPercent ??
    (spec.clicks ? Math.round((1 - spec.clicks[0] / Math.max(1, spec.clicks[1])) * 1000) / 10 : 0);
  const baseline = spec.clicks?.[1] ?? 0;
  const pair: ClassifiedPair = {
    domainId: spec.domainId,
    isp: spec.isp,
    domainUrl: spec.domainUrl,
    class: spec.class,
    alertable: spec.class !== 'cleared' && spec.class !== 'ongoing',
    severity: spec.severity ?? (drop >= 50 ? 'critical' : 'warning'),
    dropPercent: drop,
    significance: significanceOf(
      {
        yesterday: spec.clicks?.[0] ?? 0,
        d7: baseline,
        d14: spec.clicks?.[2] ?? baseline,
      },
      { extra: spec.extra ?? 0, share7: 1, share14: 1 },
    ),
    firstSeen: spec.firstSeen,
    quietRuns: spec.class === 'cleared' ? 2 : 0,
  };
  if (figures) pair.figures = figures;
  if (spec.mayStillBeDepressed !== undefined) pair.mayStillBeDepressed = spec.mayStillBeDepressed;
  return pair;
}

/** Counts and rollups derived from the pairs the way the classifier defines them. */
export function classificationOf(
  asOf: string,
  pairs: ClassifiedPair[],
  headlineDomains: number[] = [],
): Classification {
  const counts = emptyClassCounts();
  const rollups = new Map<number, DomainRollup>();
  for (const pair of pairs) {
    counts[pair.class] += 1;
    if (pair.class === 'cleared') continue;
    const rollup = rollups.get(pair.domainId) ?? {
      domainId: pair.domainId,
      domainUrl: pair.domainUrl,
      ispsAffected: 0,
      clicksLost: 0,
      baselineClicks: 0,
      headline: headlineDomains.includes(pair.domainId),
    };
    rollup.ispsAffected += 1;
    if (pair.figures) {
      rollup.clicksLost += Math.max(0, pair.figures.clicks.d7 - pair.figures.clicks.yesterday);
      rollup.baselineClicks += pair.figures.clicks.d7;
    }
    rollups.set(pair.domainId, rollup);
  }
  return {
    asOf,
    pairs,
    counts,
    domains: [...rollups.values()],
    changes: { upsert: [], remove: [] },
  };
}

/**
 * The example network's learned variation: clicks vary about 11% from day to day (two days'
 * sd sqrt(2 x 0.0068) = 0.117), learned over 40 days.
 */
export const EXAMPLE_VARIATION: Variation = {
  extra: 0.0068,
  common: 0.0025,
  network: 0.001,
  days: 40,
};

export function exampleAlertInput(): AlertEmailInput {
  const blocked = 'https://trk.acme-offers.com';
  const single = 'https://go.acme-deals.net';
  const two = 'http://clk.acme.io';
  const pairs: ClassifiedPair[] = [
    // A blocked domain: six ISPs drop on the same day.
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 101,
      domainUrl: blocked,
      isp: 'Comcast Cable',
      class: 'new',
      firstSeen: '2026-11-21',
      clicks: [412, 2210, 2154, 2080],
      conversions: [4, 31, 29, 27],
      revenue: [38.5, 297.4, 281.1, 266.9],
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 101,
      domainUrl: blocked,
      isp: 'Charter Communications',
      class: 'new',
      firstSeen: '2026-11-21',
      clicks: [301, 1630, 1588, 1502],
      conversions: [2, 19, 22, 18],
      revenue: [21.0, 184.2, 201.7, 170.3],
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 101,
      domainUrl: blocked,
      isp: 'AT&T Internet Services',
      class: 'new',
      firstSeen: '2026-11-21',
      clicks: [288, 1402, 1377, 1290],
      conversions: [3, 17, 15, 16],
      revenue: [27.9, 160.6, 149.9, 151.0],
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 101,
      domainUrl: blocked,
      isp: 'Verizon Fios',
      class: 'new',
      firstSeen: '2026-11-21',
      clicks: [190, 988, 1010, 954],
      conversions: [1, 11, 12, 10],
      revenue: [9.5, 104.5, 114.0, 95.0],
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 101,
      domainUrl: blocked,
      isp: 'Cox Communications',
      class: 'new',
      firstSeen: '2026-11-21',
      clicks: [97, 512, 498, 470],
      conversions: [1, 6, 5, 5],
      revenue: [8.8, 52.8, 44.0, 44.0],
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 101,
      domainUrl: blocked,
      isp: 'Telefónica de España',
      class: 'ongoing',
      firstSeen: '2026-11-20',
      clicks: [40, 260, 251, 244],
      conversions: [0, 3, 3, 2],
      revenue: [0, 27.0, 27.0, 18.0],
    }),
    // One ISP filtering one domain, getting worse.
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 102,
      domainUrl: single,
      isp: 'Comcast Cable',
      class: 'worse',
      firstSeen: '2026-11-17',
      clicks: [160, 890, 905, 870],
      conversions: [2, 12, 13, 11],
      revenue: [19.0, 114.0, 123.5, 104.5],
    }),
    // Two ISPs on a third domain, one a reminder.
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 103,
      domainUrl: two,
      isp: 'Deutsche Telekom AG',
      class: 'reminder',
      firstSeen: '2026-11-14',
      clicks: [344, 520, 540, 515],
      conversions: [5, 8, 8, 7],
      revenue: [41.0, 65.6, 65.6, 57.4],
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 103,
      domainUrl: two,
      isp: '中国电信 China Telecom',
      class: 'new',
      firstSeen: '2026-11-21',
      clicks: [210, 300, 310, 296],
      conversions: [2, 3, 4, 3],
      revenue: [12.0, 18.0, 24.0, 18.0],
    }),
    // Cleared: one that may still be depressed (cleared a week after first seen, still low).
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 104,
      domainUrl: 'https://t.acme-promo.com',
      isp: 'Verizon Wireless',
      class: 'cleared',
      firstSeen: '2026-11-13',
      dropPercent: 71,
      mayStillBeDepressed: true,
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 102,
      domainUrl: single,
      isp: 'Spectrum',
      class: 'cleared',
      firstSeen: '2026-11-18',
      dropPercent: 24,
      mayStillBeDepressed: false,
    }),
    // Counted only.
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 104,
      domainUrl: 'https://t.acme-promo.com',
      isp: 'Frontier',
      class: 'ongoing',
      firstSeen: '2026-11-19',
      clicks: [80, 150, 160, 140],
    }),
    examplePair({
      extra: EXAMPLE_VARIATION.extra,
      domainId: 105,
      domainUrl: 'https://r.acme-mail.com',
      isp: 'Google LLC',
      class: 'silenced',
      firstSeen: '2026-11-10',
      clicks: [20, 400, 390, 410],
    }),
  ];
  return {
    network: { id: 'acme', name: 'Acme Network' },
    asOf: '2026-11-21',
    classification: {
      ...classificationOf('2026-11-21', pairs, [101]),
      variation: EXAMPLE_VARIATION,
    },
    notifyCleared: true,
    latestInvoice: {
      snapshot: {
        time: 1_795_244_400,
        status: 'unpaid',
        total_count: 14,
        balance: 18_240.5,
        billed: 25_310.0,
        paid: 7_069.5,
      },
      change: { total_count: 2, balance: 1_530.25, billed: 1_530.25, paid: 0 },
    },
  };
}
