import type { IspTrend } from '../../src/monitor/types.js';
import { Random } from './random.js';

/**
 * The simulated world of `npm run quality`: networks of tracking domains x ISPs whose daily
 * clicks are Poisson around a log-normal volume with weekly seasonality, incidents of several
 * shapes laid over them, and the partner API's listing rule on top (a pair is listed only when
 * yesterday's clicks are below each of the days 7, 14 and 30 back). docs/alert-quality.md
 * explains the choices.
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

export type IncidentShape =
  | 'isp-filter'
  | 'domain-down'
  | 'permanent-block'
  | 'slide'
  | 'slide-smaller'
  | 'low-volume'
  | 'weekend-dip'
  | 'escalation';

export const INCIDENT_SHAPES: readonly IncidentShape[] = [
  'isp-filter',
  'domain-down',
  'permanent-block',
  'slide',
  'slide-smaller',
  'low-volume',
  'weekend-dip',
  'escalation',
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
}

export interface SimNetwork {
  name: string;
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
/**
 * Escalation: a pair of at least minVolume clicks a day down `first` for 3-5 days (a warning),
 * then down 60-90% for 3-5 days (critical: the day it should be e-mailed as worse), then back.
 */
export const ESCALATION = { minVolume: 500, first: 0.3, second: { min: 0.6, max: 0.9 } } as const;

export function buildNetwork(rng: Random, name: string, withIncidents: boolean): SimNetwork {
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
      });
    }
  }
  // Monday, so "day 0" is not always the same weekday across seeds: shift by 0..6.
  const day0 = Date.UTC(2026, 0, 5) / 86_400_000 + rng.int(0, 6);
  const incidents = withIncidents ? planIncidents(rng, pairs, day0) : [];
  const clicks = pairs.map((pair) => {
    const series: number[] = [];
    for (let day = -HISTORY_DAYS; day < SIM_DAYS; day++) {
      let mean = pair.volume * (pair.weekly[weekdayOf(day0 + day)] as number);
      for (const incident of incidents) {
        if (day >= incident.start && day <= incident.end && incident.pairs.includes(pair.key)) {
          mean *= incident.factor(day);
        }
      }
      series.push(rng.poisson(mean));
    }
    return series;
  });
  if (withIncidents) {
    // Laid over the clicks with its own random source, so that adding it left every other
    // incident and click of the simulation as it was.
    const escalation = planEscalation(new Random(day0 * 131 + name.length), pairs, incidents);
    const index = pairs.findIndex((p) => p.key === escalation.pairs[0]);
    thin(new Random(day0 * 137 + 1), clicks[index] as number[], escalation);
    incidents.push(escalation);
  }
  return { name, pairs, incidents, day0, clicks };
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
    yesterday_seven_days_ago_total_clicks_delta: y - d7,
    yesterday_fourteen_days_ago_total_clicks_delta: y - d14,
    yesterday_thirty_days_ago_total_clicks_delta: y - d30,
    yesterday_seven_days_ago_total_clicks_trend: trend(d7, y),
    yesterday_fourteen_days_ago_total_clicks_trend: trend(d14, y),
    yesterday_thirty_days_ago_total_clicks_trend: trend(d30, y),
    yesterday_conversions: conv(y),
    seven_days_ago_conversions: conv(d7),
    fourteen_days_ago_conversions: conv(d14),
    thirty_days_ago_conversions: conv(d30),
    yesterday_seven_days_ago_conversions_delta: conv(y) - conv(d7),
    yesterday_fourteen_days_ago_conversions_delta: conv(y) - conv(d14),
    yesterday_thirty_days_ago_conversions_delta: conv(y) - conv(d30),
    yesterday_seven_days_ago_conversions_trend: trend(conv(d7), conv(y)),
    yesterday_fourteen_days_ago_conversions_trend: trend(conv(d14), conv(y)),
    yesterday_thirty_days_ago_conversions_trend: trend(conv(d30), conv(y)),
    yesterday_revenue: rev(y),
    seven_days_ago_revenue: rev(d7),
    fourteen_days_ago_revenue: rev(d14),
    thirty_days_ago_revenue: rev(d30),
    yesterday_seven_days_ago_revenue_delta: rev(y) - rev(d7),
    yesterday_fourteen_days_ago_revenue_delta: rev(y) - rev(d14),
    yesterday_thirty_days_ago_revenue_delta: rev(y) - rev(d30),
    yesterday_seven_days_ago_revenue_trend: trend(rev(d7), rev(y)),
    yesterday_fourteen_days_ago_revenue_trend: trend(rev(d14), rev(y)),
    yesterday_thirty_days_ago_revenue_trend: trend(rev(d30), rev(y)),
    relationship: { url: pair.url },
  };
}
