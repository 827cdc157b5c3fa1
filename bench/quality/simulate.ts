import type { AlertSettings } from '../../src/monitor/alert-settings.js';
import { alertsSchema } from '../../src/config/schema.js';
import { isoDateOfDay } from '../../src/dates.js';
import { classifyPairs, isEmailedClass, pairKey } from '../../src/monitor/classify.js';
import { historyAfter, runsAfter } from '../../src/monitor/history-change.js';
import type { SignificanceRule } from '../../src/monitor/significance.js';
import { EMAILED_DROP_CLASSES } from '../../src/monitor/common-drops.js';
import type { LearnedState } from '../../src/monitor/types.js';
import type { ActivePair, PairClass, WatchedRun } from '../../src/monitor/types.js';
import {
  buildNetwork,
  INCIDENT_SHAPES,
  listedEntries,
  SIM_DAYS,
  type Incident,
  type IncidentShape,
  type SimNetwork,
  type VariationLevel,
} from './model.js';
import { Random } from './random.js';

/**
 * Runs the monitor's real classification and lifecycle (`classifyPairs`, the same pure function
 * the traffic-check job calls) over simulated networks day by day, and scores the e-mails it
 * would send against the incidents that were injected. One e-mail per network per run, sent
 * when an e-mailed class is non-empty: the rule the alert renderer applies.
 */

export interface QualityOptions {
  /** How much more than chance clicks vary (model.ts, VARIATION_LEVELS). @defaultValue poisson */
  level?: VariationLevel;
  seeds: number[];
  /** Networks with incidents per seed. */
  incidentNetworks: number;
  /** Networks without any incident per seed (every day of them is a quiet day). */
  quietNetworks: number;
  settings?: Partial<AlertSettings>;
  rule?: SignificanceRule;
  /** false: the monitor forgets its listed runs between days (to measure what they add). */
  memory?: boolean;
}

export const DEFAULT_OPTIONS: QualityOptions = {
  seeds: [1, 2, 3, 4, 5, 6, 7, 8],
  incidentNetworks: 2,
  quietNetworks: 1,
};

export interface IncidentResult {
  seed: number;
  network: string;
  shape: IncidentShape;
  pairs: number;
  /** Weekday clicks of its smallest pair. */
  minVolume: number;
  start: number;
  /** Days of the incident the monitor had seen when it first e-mailed it (1 = its first day). */
  delay: number | null;
  emails: number;
  /** E-mails carrying a new or worse event of its pairs. */
  startEmails: number;
  reminders: number;
  clears: number;
  /** E-mails beyond start + one reminder per renotifyAfterDays + clear. */
  excess: number;
  /**
   * Runs from the last run that can see the incident (the day after it ended; a block for
   * good: 7 days after it began) to the e-mail that clears it; clearAfterRuns when nothing
   * holds it longer. null: a slide (never ends), or not cleared inside the 60 days.
   */
  clearLag: number | null;
  /**
   * escalation only: days of its deeper drop the monitor had seen when it first e-mailed the
   * pair as worse (or new) after it began (1 = its first day); null: never, or another shape.
   */
  escalationDelay: number | null;
  /** holiday only: pair cards (declining pair events) in its e-mails. */
  pairsListed: number;
  /** holiday only: whether an e-mail of it said that the whole network dipped. */
  networkHeadline: boolean;
  /** holiday only: noise e-mails in the HOLIDAY_AFTER_RUNS runs after the one that sees it. */
  noiseAfter: number;
}

/** Runs after a holiday's own in which it must leave no noise e-mail. */
export const HOLIDAY_AFTER_RUNS = 4;

export interface SeedResult {
  seed: number;
  networks: number;
  days: number;
  emails: number;
  noiseEmails: number;
  quietDays: number;
  quietDayEmails: number;
  /** Pair events (new, worse, reminder, cleared) of pairs in no incident. */
  noisePairEvents: number;
  /** Where the noise e-mails fell: network and as-of day. */
  noise: Array<{ network: string; asOf: number }>;
  incidents: IncidentResult[];
}

interface EmailRecord {
  asOf: number;
  events: Array<{ key: string; pairClass: PairClass }>;
  /** Whether it said that the whole network dipped. */
  networkHeadline: boolean;
}

export function simulateNetwork(
  network: SimNetwork,
  settings: AlertSettings,
  rule: SignificanceRule | undefined,
  memory = true,
): EmailRecord[] {
  let active: ActivePair[] = [];
  let runs: WatchedRun[] = [];
  let learned: LearnedState | undefined;
  const emails: EmailRecord[] = [];
  for (let asOf = 1; asOf <= SIM_DAYS; asOf++) {
    const classification = classifyPairs({
      asOf: isoDateOfDay(network.day0 + asOf),
      entries: listedEntries(network, asOf),
      active,
      settings,
      silences: [],
      runs,
      rule,
      learned,
    });
    if (memory) runs = runsAfter(classification.changes) ?? [];
    active = historyAfter(classification.changes);
    learned = classification.changes.learned;
    const events = classification.pairs
      .filter((p) => isEmailedClass(p.class, settings))
      .map((p) => ({ key: pairKey(p.domainId, p.isp), pairClass: p.class }));
    const drops = (classification.drops ?? []).filter((d) =>
      EMAILED_DROP_CLASSES.includes(d.class),
    );
    for (const drop of drops) {
      if (drop.scope !== 'domain') continue;
      // A domain's drop stands for its pairs: it is that domain's incident's (or noise).
      events.push({
        key: `${drop.domainId}:*`,
        pairClass: drop.class === 'new' || drop.class === 'worse' ? drop.class : 'reminder',
      });
    }
    if (events.length > 0 || drops.length > 0) {
      emails.push({ asOf, events, networkHeadline: drops.some((d) => d.scope === 'network') });
    }
  }
  return emails;
}

/**
 * The as-of days on which an incident may rightly be in an e-mail: from the first run that sees
 * it until its pairs have had time to clear after it ended (a block for good leaves the API's
 * list 7 days after it began: the comparison day is then inside it).
 */
function incidentWindow(incident: Incident, settings: AlertSettings): [number, number] {
  const lastSeen = Number.isFinite(incident.end) ? incident.end + 1 : SIM_DAYS;
  if (incident.shape === 'holiday') return [incident.start + 1, incident.start + 1];
  const last = isForGood(incident)
    ? incident.start + 8 + settings.clearAfterRuns
    : lastSeen + settings.clearAfterRuns + 1;
  return [incident.start + 1, last];
}

/** A step down that never ends (a slide never ends either, but deepens for days first). */
function isForGood(incident: Incident): boolean {
  return (
    incident.shape === 'permanent-block' ||
    incident.shape === 'small-block' ||
    incident.shape === 'campaign-end'
  );
}

/**
 * The last as-of day whose list can show the incident (null: a slide, which never ends). A
 * block for good and a weekend dip leave the list once their comparison days are inside them:
 * 7 days after the block began; after the dip's first weekend.
 */
function lastVisible(incident: Incident): number | null {
  if (isForGood(incident)) return incident.start + 7;
  if (incident.shape === 'weekend-dip') return incident.start + 2;
  return Number.isFinite(incident.end) ? incident.end + 1 : null;
}

function score(
  seed: number,
  network: SimNetwork,
  emails: EmailRecord[],
  settings: AlertSettings,
): Omit<SeedResult, 'seed' | 'networks' | 'days' | 'noise'> & { noiseOn: number[] } {
  const windows = network.incidents.map((incident) => incidentWindow(incident, settings));
  const owner = (key: string, asOf: number): number =>
    network.incidents.findIndex((incident, i) => {
      const [from, to] = windows[i] as [number, number];
      if (asOf < from || asOf > to) return false;
      // A domain's common drop ("101:*") is a whole-domain incident's, or a holiday's.
      if (key.endsWith(':*')) {
        const domain = key.slice(0, -1);
        return incident.pairs.length > 1 && incident.pairs.some((p) => p.startsWith(domain));
      }
      return incident.pairs.includes(key);
    });
  const quiet = (asOf: number): boolean => windows.every(([from, to]) => asOf < from || asOf > to);

  let noiseEmails = 0;
  let quietDayEmails = 0;
  let noisePairEvents = 0;
  const perIncident = network.incidents.map(() => ({
    first: null as number | null,
    emails: 0,
    startEmails: 0,
    reminders: 0,
    clears: 0,
    lastStart: 0,
    cleared: null as number | null,
    escalated: null as number | null,
    pairsListed: 0,
    networkHeadline: false,
  }));
  const noiseOn = new Set<number>();
  for (const email of emails) {
    const touched = new Map<number, Set<PairClass>>();
    for (const event of email.events) {
      const i = owner(event.key, email.asOf);
      if (i < 0) {
        noisePairEvents++;
        continue;
      }
      let classes = touched.get(i);
      if (!classes) touched.set(i, (classes = new Set()));
      classes.add(event.pairClass);
      const tally = perIncident[i] as (typeof perIncident)[number];
      if (event.pairClass !== 'cleared') tally.pairsListed++;
    }
    if (email.networkHeadline) {
      // The holiday it is about, when one is seen today; else it names no incident.
      const i = network.incidents.findIndex(
        (incident, n) => incident.shape === 'holiday' && (windows[n] as number[])[0] === email.asOf,
      );
      if (i >= 0) {
        (perIncident[i] as (typeof perIncident)[number]).networkHeadline = true;
        if (!touched.has(i)) touched.set(i, new Set());
      }
    }
    if (touched.size === 0) {
      noiseEmails++;
      noiseOn.add(email.asOf);
    }
    if (quiet(email.asOf)) quietDayEmails++;
    for (const [i, classes] of touched) {
      const tally = perIncident[i] as (typeof perIncident)[number];
      tally.emails++;
      tally.first ??= email.asOf;
      if (classes.has('new') || classes.has('worse')) tally.startEmails++;
      else if (classes.has('reminder')) tally.reminders++;
      else if (classes.has('cleared')) tally.clears++;
      if (classes.has('cleared')) tally.cleared = email.asOf;
      const escalatesOn = network.incidents[i]?.escalatesOn;
      if (
        escalatesOn !== undefined &&
        email.asOf > escalatesOn &&
        (classes.has('worse') || classes.has('new'))
      ) {
        tally.escalated ??= email.asOf;
      }
    }
  }
  let quietDays = 0;
  for (let asOf = 1; asOf <= SIM_DAYS; asOf++) if (quiet(asOf)) quietDays++;

  const incidents = network.incidents.map((incident, i): IncidentResult => {
    const tally = perIncident[i] as (typeof perIncident)[number];
    const emailed = emails.filter((e) => e.events.some((ev) => owner(ev.key, e.asOf) === i));
    const span = emailed.length > 0 ? (emailed.at(-1)?.asOf ?? 0) - (emailed[0]?.asOf ?? 0) : 0;
    // An escalation may send one worse e-mail: its second, deeper drop is news.
    const allowed =
      1 +
      (settings.renotifyAfterDays > 0 ? Math.floor(span / settings.renotifyAfterDays) : 0) +
      1 +
      (incident.escalatesOn === undefined ? 0 : 1);
    return {
      seed,
      network: network.name,
      shape: incident.shape,
      pairs: incident.pairs.length,
      minVolume: Math.round(incident.minVolume),
      start: incident.start,
      delay: tally.first === null ? null : tally.first - incident.start,
      emails: tally.emails,
      startEmails: tally.startEmails,
      reminders: tally.reminders,
      clears: tally.clears,
      excess: Math.max(0, tally.emails - allowed),
      clearLag:
        lastVisible(incident) === null || tally.cleared === null
          ? null
          : tally.cleared - (lastVisible(incident) as number),
      escalationDelay:
        incident.escalatesOn === undefined || tally.escalated === null
          ? null
          : tally.escalated - incident.escalatesOn,
      pairsListed: tally.pairsListed,
      networkHeadline: tally.networkHeadline,
      noiseAfter:
        incident.shape === 'holiday'
          ? Array.from({ length: HOLIDAY_AFTER_RUNS }, (_, k) => incident.start + 2 + k).filter(
              (asOf) => noiseOn.has(asOf),
            ).length
          : 0,
    };
  });
  return {
    noiseOn: [...noiseOn],
    emails: emails.length,
    noiseEmails,
    quietDays,
    quietDayEmails,
    noisePairEvents,
    incidents,
  };
}

/** The networks of one seed, as the simulation builds them. */
export function seedNetworks(
  seed: number,
  options: Pick<QualityOptions, 'incidentNetworks' | 'quietNetworks' | 'level'>,
): SimNetwork[] {
  const rng = new Random(seed * 7919 + 17);
  const total = options.incidentNetworks + options.quietNetworks;
  return Array.from({ length: total }, (_, n) =>
    buildNetwork(rng, `net${n + 1}`, n < options.incidentNetworks, options.level ?? 'poisson'),
  );
}

export function simulateSeed(seed: number, options: QualityOptions): SeedResult {
  const settings = alertsSchema.parse(options.settings ?? {});
  const result: SeedResult = {
    seed,
    networks: 0,
    days: 0,
    emails: 0,
    noiseEmails: 0,
    quietDays: 0,
    quietDayEmails: 0,
    noisePairEvents: 0,
    noise: [],
    incidents: [],
  };
  for (const network of seedNetworks(seed, options)) {
    const scored = score(
      seed,
      network,
      simulateNetwork(network, settings, options.rule, options.memory),
      settings,
    );
    result.networks++;
    result.days += SIM_DAYS;
    result.emails += scored.emails;
    result.noiseEmails += scored.noiseEmails;
    result.quietDays += scored.quietDays;
    result.quietDayEmails += scored.quietDayEmails;
    result.noisePairEvents += scored.noisePairEvents;
    for (const asOf of scored.noiseOn) result.noise.push({ network: network.name, asOf });
    result.incidents.push(...scored.incidents);
  }
  return result;
}

export interface ShapeSummary {
  shape: IncidentShape;
  incidents: number;
  missed: number;
  medianDelay: number | null;
  maxDelay: number | null;
  firstDayShare: number;
  /** Incidents that sent more than start + reminders + clear. */
  overBudget: number;
  /** Incidents whose start took more than one e-mail (an escalation: more than it and worse). */
  splitStarts: number;
  /** Median and largest clearLag (null: none of them ends). */
  medianClearLag: number | null;
  maxClearLag: number | null;
  /** escalation only: median and largest escalationDelay, and how many never got one. */
  medianEscalationDelay: number | null;
  maxEscalationDelay: number | null;
  escalationsMissed: number;
}

export interface QualityReport {
  level: VariationLevel;
  seeds: number[];
  settings: AlertSettings;
  networks: number;
  days: number;
  emails: number;
  noiseEmails: number;
  noiseEmailsPer60DaysPerNetwork: number;
  quietDays: number;
  quietDayEmails: number;
  noisePairEvents: number;
  shapes: ShapeSummary[];
  /** The slide's median delay per seed, and the median of those. */
  slide: { perSeed: Array<number | null>; median: number | null };
  /**
   * Holidays: how many, how many sent more than one e-mail, the most pair cards one listed,
   * how many e-mails said the whole network dipped, noise e-mails in the runs after them.
   */
  holidays: {
    count: number;
    emailed: number;
    overOneEmail: number;
    maxPairsListed: number;
    networkHeadlines: number;
    noiseAfter: number;
  };
  perSeed: Array<Omit<SeedResult, 'incidents'>>;
  incidents: IncidentResult[];
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function runQuality(options: QualityOptions = DEFAULT_OPTIONS): QualityReport {
  const settings = alertsSchema.parse(options.settings ?? {});
  const seeds = options.seeds.map((seed) => simulateSeed(seed, options));
  const incidents = seeds.flatMap((s) => s.incidents);
  const sum = (f: (s: SeedResult) => number): number => seeds.reduce((a, s) => a + f(s), 0);
  const networks = sum((s) => s.networks);
  const days = sum((s) => s.days);
  const noiseEmails = sum((s) => s.noiseEmails);
  const shapes = INCIDENT_SHAPES.map((shape): ShapeSummary => {
    const of = incidents.filter((i) => i.shape === shape);
    const delays = of.flatMap((i) => (i.delay === null ? [] : [i.delay]));
    const lags = of.flatMap((i) => (i.clearLag === null ? [] : [i.clearLag]));
    const escalations = of.flatMap((i) => (i.escalationDelay === null ? [] : [i.escalationDelay]));
    return {
      shape,
      incidents: of.length,
      missed: of.length - delays.length,
      medianDelay: median(delays),
      maxDelay: delays.length > 0 ? Math.max(...delays) : null,
      firstDayShare: of.length > 0 ? of.filter((i) => i.delay === 1).length / of.length : 0,
      overBudget: of.filter((i) => i.excess > 0).length,
      splitStarts: of.filter((i) => i.startEmails > (i.shape === 'escalation' ? 2 : 1)).length,
      medianClearLag: median(lags),
      maxClearLag: lags.length > 0 ? Math.max(...lags) : null,
      medianEscalationDelay: median(escalations),
      maxEscalationDelay: escalations.length > 0 ? Math.max(...escalations) : null,
      escalationsMissed:
        shape === 'escalation' ? of.filter((i) => i.escalationDelay === null).length : 0,
    };
  });
  const slidePerSeed = seeds.map((s) =>
    median(s.incidents.filter((i) => i.shape === 'slide').map((i) => i.delay ?? SIM_DAYS)),
  );
  const holidays = incidents.filter((i) => i.shape === 'holiday');
  return {
    level: options.level ?? 'poisson',
    seeds: options.seeds,
    settings,
    networks,
    days,
    emails: sum((s) => s.emails),
    noiseEmails,
    noiseEmailsPer60DaysPerNetwork: Math.round(((noiseEmails * 60) / days) * 1000) / 1000,
    quietDays: sum((s) => s.quietDays),
    quietDayEmails: sum((s) => s.quietDayEmails),
    noisePairEvents: sum((s) => s.noisePairEvents),
    shapes,
    slide: {
      perSeed: slidePerSeed,
      median: median(slidePerSeed.flatMap((d) => (d === null ? [] : [d]))),
    },
    holidays: {
      count: holidays.length,
      emailed: holidays.filter((h) => h.emails > 0).length,
      overOneEmail: holidays.filter((h) => h.emails > 1).length,
      maxPairsListed: Math.max(0, ...holidays.map((h) => h.pairsListed)),
      networkHeadlines: holidays.filter((h) => h.networkHeadline).length,
      noiseAfter: holidays.reduce((sum, h) => sum + h.noiseAfter, 0),
    },
    perSeed: seeds.map(({ incidents: _incidents, ...rest }) => rest),
    incidents,
  };
}
