import type { IspTrend } from '../../src/monitor/types.js';
import { Random } from './random.js';

/**
 * The simulated world of `npm run quality`: networks of tracking domains x ISPs whose daily
 * clicks are Poisson around a mean that is a log-normal volume with weekly seasonality, a slow
 * growth or decline, and (at every level but `poisson`) daily log-normal factors of the pair,
 * its domain and the whole network; holidays that lower the whole network for a day; incidents
 * of several shapes laid over them; and the partner API's listing rule on top (a pair is listed
 * only when yesterday's clicks are below each of the days 7, 14 and 30 back).
 * docs/alert-quality.md explains the choices.
 */

export const DOMAINS_PER_NETWORK = 3;
export const ISPS_PER_DOMAIN = 30;
/** As-of days simulated per network (day 1 is the first run). */
export const SIM_DAYS = 60;
/** Days of clicks before the first run: the first run compares with 30 days back. */
const HISTORY_DAYS = 31;

/** The pair's typical clicks on a weekday: median and spread of the log-normal. */
const ISP_VOLUME = { median: 110, sigma: 1.3 } as const;
const DOMAIN_SCALE_SIGMA = 0.5;
/** Weekend traffic relative to weekdays, per domain; weekdays vary a little around 1. */
const WEEKEND_FACTOR = { min: 0.55, max: 0.85 } as const;
const WEEKDAY_JITTER = 0.06;
/** Each pair grows or declines steadily, by up to this share a week (either way). */
const MAX_WEEKLY_TREND = 0.01;
/** Holidays per network in its 60 days, each lowering every pair by 25-40% for one day. */
const HOLIDAYS = { count: 2, min: 0.25, max: 0.4 } as const;

/**
 * How much more than chance a day's clicks vary: the standard deviations (on the log scale) of
 * independent daily factors on each day's mean, one per pair, one per domain (shared by its
 * ISPs), one for the whole network. `poisson` has none: clicks are Poisson around the mean.
 */
export const VARIATION_LEVELS = {
  poisson: { pair: 0, domain: 0, network: 0 },
  mild: { pair: 0.05, domain: 0.03, network: 0.02 },
  moderate: { pair: 0.1, domain: 0.07, network: 0.04 },
  heavy: { pair: 0.15, domain: 0.08, network: 0.05 },
} as const;
export type VariationLevel = keyof typeof VARIATION_LEVELS;
export const LEVELS = Object.keys(VARIATION_LEVELS) as VariationLevel[];

export type IncidentShape =
  | 'isp-filter'
  | 'domain-down'
  | 'permanent-block'
  | 'small-block'
  | 'slide'
  | 'slide-smaller'
  | 'low-volume'
  | 'weekend-dip'
  | 'escalation'
  | 'campaign-end'
  | 'holiday';

export const INCIDENT_SHAPES: readonly IncidentShape[] = [
  'isp-filter',
  'domain-down',
  'permanent-block',
  'small-block',
  'slide',
  'slide-smaller',
  'low-volume',
  'weekend-dip',
  'escalation',
  'campaign-end',
  'holiday',
];

export interface Incident {
  shape: IncidentShape;
  /** The pairs it affects (pair keys). */
  pairs: string[];
  /** The first simulated day whose clicks it lowers. */
  start: number;
  /** The last day it lowers (Infinity: for good). */
  end: number;
  /** Clicks multiplier on `day` (1 = untouched); only called for days >= start. */
  factor: (day: number) => number;
  /** Weekday clicks of its smallest pair (what the shape promises: >= 200, < 200, ...). */
  minVolume: number;
  /** Shape-specific figure: the drop (0..1) of a step, the daily decline of a slide. */
  depth: number;
  /** escalation: the first day of its deeper drop (the day it should be e-mailed as worse). */
  escalatesOn?: number;
}

export interface SimPair {
  key: string;
  domainId: number;
  isp: string;
  url: string;
  /** Mean clicks on a weekday. */
  volume: number;
  /** Multiplier per weekday, 0 = Sunday. */
  weekly: number[];
  /** Growth (or, negative, decline) of its mean per week. */
  weeklyTrend: number;
}

export interface SimNetwork {
  name: string;
  level: VariationLevel;
  pairs: SimPair[];
  incidents: Incident[];
  /** Day number (days since 1970-01-01) of simulated day 0. */
  day0: number;
  /** clicks[pairIndex][day + HISTORY_DAYS] */
  clicks: number[][];
}

/**
 * Slide: 6% fewer clicks every day for this many days, then it stays at that level; on a pair
 * of at least minVolume clicks a day ('slide'), and on one of 200 up to that ('slide-smaller').
 */
export const SLIDE = { perDay: 0.06, days: 12, minVolume: 500 } as const;
/** Step drops ("one ISP filtering one domain") on pairs of at least this many clicks a day. */
export const STEP_MIN_VOLUME = 200;
/** A block for good of 60-90% on a smaller pair: minVolume up to STEP_MIN_VOLUME clicks a day. */
export const SMALL_BLOCK = { minVolume: 50, min: 0.6, max: 0.9 } as const;
/** A campaign that ends: every ISP of one domain this much lower, for good. */
export const CAMPAIGN_END_DROP = 0.4;
/**
 * Escalation: a pair of at least minVolume clicks a day down `first` for 3-5 days (a warning),
 * then down 60-90% for 3-5 days (critical: the day it should be e-mailed as worse), then back.
 */
export const ESCALATION = { minVolume: 500, first: 0.3, second: { min: 0.6, max: 0.9 } } as const;

/**
 * One network: its pairs, incidents and holidays drawn from `rng`, and each other random part
 * (the extra-Poisson factors, the Poisson counts, the escalation and its thinning) from a source
 * of its own split from it. Every network of every seed so has its own: networks that shared a
 * source would share their bad days, and seeds would not be independent samples of the world.
 */
export function buildNetwork(
  rng: Random,
  name: string,
  withIncidents: boolean,
  level: VariationLevel,
): SimNetwork {
  const pairs: SimPair[] = [];
  for (let d = 0; d < DOMAINS_PER_NETWORK; d++) {
    const domainId = 100 + d;
    const scale = Math.exp(DOMAIN_SCALE_SIGMA * rng.normal());
    const weekend = WEEKEND_FACTOR.min + rng.next() * (WEEKEND_FACTOR.max - WEEKEND_FACTOR.min);
    for (let i = 0; i < ISPS_PER_DOMAIN; i++) {
      const weekly = [0, 1, 2, 3, 4, 5, 6].map((wd) => {
        const base = wd === 0 || wd === 6 ? weekend : 1;
        return base * (1 + WEEKDAY_JITTER * (rng.next() * 2 - 1));
      });
      const isp = `ISP ${String(i + 1).padStart(2, '0')}`;
      pairs.push({
        key: `${domainId}:${isp}`,
        domainId,
        isp,
        url: `https://track${d + 1}.${name}.example`,
        volume: rng.logNormal(ISP_VOLUME.median, ISP_VOLUME.sigma) * scale,
        weekly,
        weeklyTrend: MAX_WEEKLY_TREND * (rng.next() * 2 - 1),
      });
    }
  }
  // Monday, so "day 0" is not always the same weekday across seeds: shift by 0..6.
  const day0 = Date.UTC(2026, 0, 5) / 86_400_000 + rng.int(0, 6);
  const incidents = withIncidents ? planIncidents(rng, pairs, day0) : [];
  const holidays = planHolidays(rng);
  // The world's random parts each from a source of their own, drawn the same way at every
  // level: a seed's networks, incidents and holidays are the same at every level, and its
  // extra-Poisson factors differ only in scale.
  const [factors, counts, escalations, thinning] = [
    rng.split(),
    rng.split(),
    rng.split(),
    rng.split(),
  ];
  const noise = dailyFactors(factors, pairs, level);
  const clicks = pairs.map((pair, index) => {
    const series: number[] = [];
    for (let day = -HISTORY_DAYS; day < SIM_DAYS; day++) {
      let mean =
        pair.volume *
        (pair.weekly[weekdayOf(day0 + day)] as number) *
        (1 + pair.weeklyTrend) ** (day / 7) *
        (noise[index]?.[day + HISTORY_DAYS] as number);
      for (const incident of incidents) {
        if (day >= incident.start && day <= incident.end && incident.pairs.includes(pair.key)) {
          mean *= incident.factor(day);
        }
      }
      for (const holiday of holidays) if (day === holiday.start) mean *= holiday.factor(day);
      series.push(counts.poisson(mean));
    }
    return series;
  });
  if (withIncidents) {
    // Laid over the clicks with its own random source, so that adding it left every other
    // incident and click of the simulation as it was.
    const escalation = planEscalation(escalations, pairs, incidents);
    const index = pairs.findIndex((p) => p.key === escalation.pairs[0]);
    thin(thinning, clicks[index] as number[], escalation);
    incidents.push(escalation);
  }
  // Holidays last: a pair event of an incident's pair is the incident's, not the holiday's.
  for (const holiday of holidays) incidents.push({ ...holiday, pairs: pairs.map((p) => p.key) });
  return { name, level, pairs, incidents, day0, clicks };
}

/**
 * The multiplier of each pair's mean on each day (pair x day, history included): the product
 * of a log-normal factor of its own, one of its domain and one of the network, each drawn
 * independently every day with median 1. At `poisson` all are 1.
 */
function dailyFactors(rng: Random, pairs: readonly SimPair[], level: VariationLevel): number[][] {
  const sd = VARIATION_LEVELS[level];
  const days = HISTORY_DAYS + SIM_DAYS;
  const network = Array.from({ length: days }, () => rng.normal());
  const domains = new Map<number, number[]>();
  for (const pair of pairs) {
    if (!domains.has(pair.domainId)) {
      domains.set(
        pair.domainId,
        Array.from({ length: days }, () => rng.normal()),
      );
    }
  }
  return pairs.map((pair) => {
    const domain = domains.get(pair.domainId) as number[];
    return Array.from({ length: days }, (_, t) =>
      Math.exp(
        sd.pair * rng.normal() +
          sd.domain * (domain[t] as number) +
          sd.network * (network[t] as number),
      ),
    );
  });
}

/**
 * Two holidays on distinct days: every pair of the network 25-40% down for that day. Each is
 * seen on the run after it and leaves at least 4 more runs inside the 60 days.
 */
function planHolidays(rng: Random): Incident[] {
  const days = new Set<number>();
  while (days.size < HOLIDAYS.count) days.add(rng.int(2, SIM_DAYS - 6));
  return [...days]
    .sort((a, b) => a - b)
    .map((day) => {
      const drop = HOLIDAYS.min + rng.next() * (HOLIDAYS.max - HOLIDAYS.min);
      return {
        shape: 'holiday' as const,
        pairs: [],
        start: day,
        end: day,
        factor: () => 1 - drop,
        minVolume: 0,
        depth: drop,
      };
    });
}

function planEscalation(rng: Random, pairs: SimPair[], incidents: Incident[]): Incident {
  const taken = new Set(incidents.flatMap((i) => i.pairs));
  const free = pairs.filter((p) => !taken.has(p.key));
  const large = free.filter((p) => p.volume >= ESCALATION.minVolume);
  const pair = large.length > 0 ? rng.pick(large) : free.sort((a, b) => b.volume - a.volume)[0];
  if (pair === undefined) throw new RangeError('no pair left for the escalation');
  const start = rng.int(6, 40);
  const escalatesOn = start + rng.int(3, 5);
  const second =
    ESCALATION.second.min + rng.next() * (ESCALATION.second.max - ESCALATION.second.min);
  return {
    shape: 'escalation',
    pairs: [pair.key],
    start,
    end: escalatesOn + rng.int(3, 5) - 1,
    factor: (day) => (day < escalatesOn ? 1 - ESCALATION.first : 1 - second),
    minVolume: pair.volume,
    depth: second,
    escalatesOn,
  };
}

/**
 * Lowers a pair's clicks by an incident's factor after they were drawn: each click survives
 * with that probability (a Poisson count thinned so is Poisson with the lowered mean).
 */
function thin(rng: Random, series: number[], incident: Incident): void {
  for (let day = incident.start; day <= incident.end && day < SIM_DAYS; day++) {
    const at = day + HISTORY_DAYS;
    const keep = incident.factor(day);
    let kept = 0;
    for (let c = series[at] as number; c > 0; c--) if (rng.next() < keep) kept++;
    series[at] = kept;
  }
}

function weekdayOf(dayNumber: number): number {
  // 1970-01-01 was a Thursday (4).
  return (((dayNumber + 4) % 7) + 7) % 7;
}

/**
 * One incident of every shape, on distinct pairs, starting between day 6 and day 44 so that
 * each is seen and can clear inside the 60 days. The downed domain is left to its own
 * incident: the others use the two remaining domains.
 */
function planIncidents(rng: Random, pairs: SimPair[], day0: number): Incident[] {
  const used = new Set<string>();
  const downDomain = 100 + rng.int(0, DOMAINS_PER_NETWORK - 1);
  const choose = (min: number, max: number): SimPair => {
    const candidates = pairs.filter(
      (p) => p.domainId !== downDomain && !used.has(p.key) && p.volume >= min && p.volume < max,
    );
    // Every network has such pairs at these volumes; fall back to the nearest if not.
    const pool =
      candidates.length > 0
        ? candidates
        : pairs
            .filter((p) => p.domainId !== downDomain && !used.has(p.key))
            .sort((a, b) => Math.abs(a.volume - min) - Math.abs(b.volume - min))
            .slice(0, 1);
    const pair = rng.pick(pool);
    used.add(pair.key);
    return pair;
  };
  const startDay = (): number => rng.int(6, 44);
  const incidents: Incident[] = [];

  {
    const pair = choose(STEP_MIN_VOLUME, Infinity);
    const drop = 0.6 + rng.next() * 0.3;
    const start = startDay();
    incidents.push({
      shape: 'isp-filter',
      pairs: [pair.key],
      start,
      end: start + rng.int(3, 6) - 1,
      factor: () => 1 - drop,
      minVolume: pair.volume,
      depth: drop,
    });
  }
  {
    const domainPairs = pairs.filter((p) => p.domainId === downDomain);
    const start = startDay();
    incidents.push({
      shape: 'domain-down',
      pairs: domainPairs.map((p) => p.key),
      start,
      end: start + rng.int(1, 2) - 1,
      factor: () => 0.02,
      minVolume: Math.min(...domainPairs.map((p) => p.volume)),
      depth: 0.98,
    });
  }
  {
    const pair = choose(STEP_MIN_VOLUME, Infinity);
    incidents.push({
      shape: 'permanent-block',
      pairs: [pair.key],
      start: startDay(),
      end: Infinity,
      factor: () => 0,
      minVolume: pair.volume,
      depth: 1,
    });
  }
  {
    const pair = choose(SMALL_BLOCK.minVolume, STEP_MIN_VOLUME);
    const drop = SMALL_BLOCK.min + rng.next() * (SMALL_BLOCK.max - SMALL_BLOCK.min);
    incidents.push({
      shape: 'small-block',
      pairs: [pair.key],
      start: startDay(),
      end: Infinity,
      factor: () => 1 - drop,
      minVolume: pair.volume,
      depth: drop,
    });
  }
  {
    // The downed domain's campaign ends before or after its outage, far enough from it that
    // their windows do not meet.
    const domainPairs = pairs.filter((p) => p.domainId === downDomain);
    const down = incidents.find((i) => i.shape === 'domain-down') as Incident;
    let start = rng.int(6, 44);
    while (start + 10 >= down.start && start <= down.end + 5) start = rng.int(6, 44);
    incidents.push({
      shape: 'campaign-end',
      pairs: domainPairs.map((p) => p.key),
      start,
      end: Infinity,
      factor: () => 1 - CAMPAIGN_END_DROP,
      minVolume: Math.min(...domainPairs.map((p) => p.volume)),
      depth: CAMPAIGN_END_DROP,
    });
  }
  for (const [shape, min, max] of [
    ['slide', SLIDE.minVolume, Infinity],
    ['slide-smaller', STEP_MIN_VOLUME, SLIDE.minVolume],
  ] as const) {
    const pair = choose(min, max);
    const start = startDay();
    incidents.push({
      shape,
      pairs: [pair.key],
      start,
      end: Infinity,
      factor: (day) => (1 - SLIDE.perDay) ** Math.min(day - start + 1, SLIDE.days),
      minVolume: pair.volume,
      depth: SLIDE.perDay,
    });
  }
  {
    const pair = choose(50, STEP_MIN_VOLUME);
    const drop = 0.6 + rng.next() * 0.2;
    const start = startDay();
    incidents.push({
      shape: 'low-volume',
      pairs: [pair.key],
      start,
      end: start + rng.int(5, 8) - 1,
      factor: () => 1 - drop,
      minVolume: pair.volume,
      depth: drop,
    });
  }
  {
    const pair = choose(STEP_MIN_VOLUME, Infinity);
    // The first Saturday on or after a random day; three weekends at half the traffic.
    let start = startDay();
    while (weekdayOf(day0 + start) !== 6) start++;
    incidents.push({
      shape: 'weekend-dip',
      pairs: [pair.key],
      start,
      end: start + 15,
      factor: (day) => {
        const wd = weekdayOf(day0 + day);
        return wd === 0 || wd === 6 ? 0.5 : 1;
      },
      minVolume: pair.volume,
      depth: 0.5,
    });
  }
  return incidents;
}

/** Clicks of pair `index` on simulated day `day`. */
export function clicksOn(network: SimNetwork, index: number, day: number): number {
  return (network.clicks[index] as number[])[day + HISTORY_DAYS] as number;
}

/**
 * The API's isptrends entries for the run of as-of day `asOf`: yesterday is `asOf - 1`; a pair
 * is listed only when yesterday is below each of the days 7, 14 and 30 before it.
 */
export function listedEntries(network: SimNetwork, asOf: number): IspTrend[] {
  const entries: IspTrend[] = [];
  const y = asOf - 1;
  network.pairs.forEach((pair, index) => {
    const yesterday = clicksOn(network, index, y);
    const d7 = clicksOn(network, index, y - 7);
    const d14 = clicksOn(network, index, y - 14);
    const d30 = clicksOn(network, index, y - 30);
    if (yesterday < d7 && yesterday < d14 && yesterday < d30) {
      entries.push(apiEntry(pair, yesterday, d7, d14, d30));
    }
  });
  return entries;
}

function trend(from: number, to: number): number | null {
  return from > 0 ? Math.round(((to - from) / from) * 10_000) / 100 : null;
}

/** One entry as the API sends it; conversions and revenue follow clicks at fixed rates. */
function apiEntry(pair: SimPair, y: number, d7: number, d14: number, d30: number): IspTrend {
  const conv = (c: number): number => Math.round(c * 0.02);
  const rev = (c: number): number => Math.round(c * 0.02 * 12.5 * 100) / 100;
  return {
    network_id: 1,
    network_tracking_domain_id: pair.domainId,
    isp: pair.isp,
    yesterday_total_clicks: y,
    seven_days_ago_total_clicks: d7,
    fourteen_days_ago_total_clicks: d14,
    thirty_days_ago_total_clicks: d30,
    yesterday_seven_days_ago_total_clicks_trend: trend(d7, y),
    yesterday_fourteen_days_ago_total_clicks_trend: trend(d14, y),
    yesterday_thirty_days_ago_total_clicks_trend: trend(d30, y),
    yesterday_conversions: conv(y),
    seven_days_ago_conversions: conv(d7),
    fourteen_days_ago_conversions: conv(d14),
    thirty_days_ago_conversions: conv(d30),
    yesterday_seven_days_ago_conversions_trend: trend(conv(d7), conv(y)),
    yesterday_fourteen_days_ago_conversions_trend: trend(conv(d14), conv(y)),
    yesterday_thirty_days_ago_conversions_trend: trend(conv(d30), conv(y)),
    yesterday_revenue: rev(y),
    seven_days_ago_revenue: rev(d7),
    fourteen_days_ago_revenue: rev(d14),
    thirty_days_ago_revenue: rev(d30),
    yesterday_seven_days_ago_revenue_trend: trend(rev(d7), rev(y)),
    yesterday_fourteen_days_ago_revenue_trend: trend(rev(d14), rev(y)),
    yesterday_thirty_days_ago_revenue_trend: trend(rev(d30), rev(y)),
    relationship: { url: pair.url },
  };
}
