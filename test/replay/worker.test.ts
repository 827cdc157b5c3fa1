import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates.js';
import { dropEvent } from '../../src/monitor/common-drops.js';
import { pairEvent } from '../../src/monitor/pair-key.js';
import type { Scenario } from '../../src/sandbox/index.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { runThmAsync, type CliResult } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { completed, startJobStack, type JobStack } from '../jobs/stack.js';
import { dump } from '../store/fixtures.js';

const FIRST = '2026-10-01';
const DAYS = Array.from({ length: 20 }, (_, i) => addDays(FIRST, i));
const LAST = DAYS[DAYS.length - 1]!;
const ISPS = ['Comcast', 'AT&T', 'Verizon', 'Charter', 'Cox', 'T-Mobile'].map((name, i) => ({
  name,
  share: [0.3, 0.2, 0.18, 0.14, 0.1, 0.08][i]!,
}));

/**
 * Twenty as-of dates of one network with premium: an ISP filtering a domain more every day for
 * 11 days (new, a reminder after 7, cleared), a decline that turns critical (new, worse,
 * cleared), a whole domain blocked (a headline, then out of the list a week later), noise; and
 * one without premium.
 */
const scenario: Scenario = {
  name: 'replay',
  seed: 11,
  startDay: FIRST,
  networks: [
    {
      id: 'acme',
      networkId: 1001,
      name: 'Acme Network',
      premium: true,
      generator: {
        type: 'realistic',
        domains: [
          { id: 11, url: 'https://trk.acme-offers.com', clicks: 20_000 },
          { id: 12, url: 'https://go.acmeclicks.net', clicks: 15_000 },
          { id: 13, url: 'https://links.acme-deals.io', clicks: 12_000 },
        ],
        isps: ISPS,
        declines: [
          {
            domain: 11,
            isps: ['Comcast'],
            start: '2026-10-01',
            // Deeper every day, so that a week on it is still a fifth below the day 7 back
            // (a reminder), and never half (no worse).
            profile: [...Array.from({ length: 14 }, (_, i) => 30 + 2.5 * i), 0],
          },
          { domain: 12, isps: ['Verizon'], start: '2026-10-03', profile: [30, 32, 31, 65, 66, 0] },
          { domain: 13, start: '2026-10-10', profile: [85] },
        ],
      },
    },
    {
      id: 'globex',
      networkId: 1002,
      name: 'Globex Partners',
      premium: false,
      generator: {
        type: 'realistic',
        domains: [{ id: 21, url: 'https://trk.globex.example', clicks: 5_000 }],
        isps: ISPS,
        declines: [],
      },
    },
  ],
};

type Pairs = Record<'new' | 'worse' | 'reminder' | 'cleared', number>;

interface ReplayDoc {
  days: Array<{
    asOf: string;
    email: null | {
      subject: string;
      counts: Record<string, number>;
      drops: Array<{
        class: 'new' | 'worse' | 'reminder';
        scope: 'domain' | 'network';
        domainId: number;
        dropPercent: number;
      }>;
      pairs: Array<{
        class: string;
        domainId: number;
        isp: string;
        dropPercent: number;
        steady?: true;
      }>;
    };
    sent: null | { subject: string };
  }>;
  summary: {
    days: number;
    emails: number;
    pairs: Pairs;
    sent: { emails: number; pairs: Pairs } | null;
    settings: Record<string, unknown>;
  };
}

describe('thm replay of what the worker saw (real Redis, sandbox, SMTP)', () => {
  let stack: JobStack;
  let redis: Redis;
  let thm: (...args: string[]) => Promise<CliResult>;
  /** Per as-of date, the alert the worker decided (its subject), or null. */
  const decided = new Map<string, string | null>();

  beforeAll(async () => {
    stack = await startJobStack(['acme', 'globex'], {}, { scenario });
    redis = stack.redis.client();
    await stack.startWorker();
    for (const day of DAYS) {
      stack.sbx.sandbox.setDay(day);
      const outcome = completed(await stack.run('traffic-check', 'acme', day));
      const alert = outcome.notifications.find((n) => n.kind === 'alert');
      decided.set(day, alert?.subject ?? null);
    }
    for (const day of DAYS.slice(0, 2)) {
      stack.sbx.sandbox.setDay(day);
      completed(await stack.run('traffic-check', 'globex', day));
    }
    // Every e-mail delivered (the alerts and globex's premium notice), so that the store holds
    // still while the replays read it.
    const alerts = [...decided.values()].filter((s) => s !== null).length;
    await stack.smtp.waitForMessages(alerts + 1);
    const pending = `${stack.config.redis.prefix}:store:outbox:pending`;
    await waitFor(async () => ((await redis.zcard(pending)) === 0 ? true : undefined), {
      timeoutMs: 10_000,
      what: 'an empty outbox',
    });
    await Promise.all(stack.workers.map((w) => w.close()));
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-replay-')), 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: stack.redis.url, prefix: stack.config.redis.prefix },
        networks: ['acme', 'globex'].map((id) =>
          stack.sbx.rawNetwork(id, { name: scenario.networks.find((n) => n.id === id)!.name }),
        ),
      }),
    );
    const env = { ...stack.sbx.env, THM_CONFIG: file };
    thm = (...args) => runThmAsync(args, { env });
  }, 120_000);
  afterAll(() => stack.close());

  const replayJson = async (...args: string[]): Promise<ReplayDoc> => {
    const r = await thm(
      'replay',
      '--network',
      'acme',
      '--from',
      FIRST,
      '--to',
      LAST,
      '--json',
      ...args,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as ReplayDoc;
  };

  it('the story sends what it should: new, a reminder, worse, cleared, a headline domain', () => {
    const subjects = [...decided.values()].filter((s): s is string => s !== null).join('\n');
    for (const word of ['new', 'worse', 'reminder', 'cleared'])
      expect(subjects).toMatch(new RegExp(`\\d+ ${word}`));
  });

  it('replays every stored day to the alerts the worker decided, pair by pair, and reads only', async () => {
    const prefix = stack.config.redis.prefix;
    const before = await dump(redis, `${prefix}:store`);
    const doc = await replayJson();
    expect(await dump(redis, `${prefix}:store`)).toEqual(before);

    expect(doc.days.map((d) => d.asOf)).toEqual(DAYS);
    const store = new RedisStore(redis, prefix);
    for (const day of doc.days) {
      const worker = decided.get(day.asOf) ?? null;
      expect({ asOf: day.asOf, subject: day.email?.subject ?? null }).toEqual({
        asOf: day.asOf,
        subject: worker,
      });
      expect(day.sent).toEqual(worker === null ? null : { subject: worker });
      // The pair events the worker e-mailed that day, as its store keeps them.
      const state = await store.loadNetworkState('acme', {
        asOf: day.asOf,
        kind: 'traffic-check',
        now: Date.now(),
      });
      const replayed = [
        ...(day.email?.pairs ?? []).map((p) => pairEvent(p.class as 'new', p.domainId, p.isp)),
        ...(day.email?.drops ?? []).map((d) => dropEvent(d.class, d.scope, d.domainId)),
      ];
      expect(replayed.sort()).toEqual([...state.sentEvents].sort());
    }
    expect(doc.summary.emails).toBe([...decided.values()].filter((s) => s !== null).length);
    expect(doc.summary.sent).toEqual({ emails: doc.summary.emails, pairs: doc.summary.pairs });
  });

  it('what was sent is what the SMTP server received', () => {
    const sent = [...decided.values()].filter((s): s is string => s !== null);
    const received = stack.smtp.messages
      .map((m) => m.parsed.subject ?? '')
      .filter((s) => s.includes('Acme Network'));
    expect(received.sort()).toEqual(sent.sort());
  });

  it('--json is one document: {"days": [{asOf, email, sent}], "summary": {...}}', async () => {
    const doc = await replayJson();
    expect(Object.keys(doc)).toEqual(['days', 'summary']);
    for (const day of doc.days) expect(Object.keys(day)).toEqual(['asOf', 'email', 'sent']);
    const withEmail = doc.days.find((d) => d.email)!;
    expect(Object.keys(withEmail.email!)).toEqual(['subject', 'counts', 'drops', 'pairs']);
    expect(doc.summary).toMatchObject({
      network: 'acme',
      from: FIRST,
      to: LAST,
      source: 'store',
      days: DAYS.length,
      label: 'as configured',
    });
    expect(doc.summary.settings).toEqual(stack.config.networks[0]!.alerts);
  });

  it('--set changes the outcome as the rule says', async () => {
    const configured = await replayJson();
    const deep = await replayJson('--set', 'alerts.minDropPercent=50');
    // A domain whose ISPs went down together is one new drop of the domain's.
    const news = (d: ReplayDoc) =>
      d.days.flatMap((day) => [
        ...(day.email?.pairs ?? [])
          .filter((p) => p.class === 'new')
          .map((p) => ({ asOf: day.asOf, ...p })),
        ...(day.email?.drops ?? [])
          .filter((p) => p.class === 'new')
          .map((p) => ({ asOf: day.asOf, ...p, steady: undefined })),
      ]);
    // Only a drop of 50% or more starts an alert (3/4 of it for a steady decline): what the
    // configured 20% started with less is not new that day, what it started with more still is.
    for (const pair of news(deep))
      expect(pair.dropPercent).toBeGreaterThanOrEqual(pair.steady ? 37.5 : 50);
    const [shallow, steep] = [
      news(configured).filter((p) => p.dropPercent < 37.5),
      news(configured).filter((p) => p.dropPercent >= 50 && !p.steady),
    ];
    expect(shallow.length).toBeGreaterThan(0);
    expect(steep.length).toBeGreaterThan(0);
    for (const pair of shallow) expect(news(deep)).not.toContainEqual(pair);
    for (const pair of steep) expect(news(deep)).toContainEqual(pair);

    // Cleared pairs are not e-mailed, and nothing else changes: a day whose alert had only
    // cleared pairs sends nothing.
    const quietClears = await replayJson('--set', 'alerts.notifyCleared=false');
    configured.days.forEach((day, i) => {
      const kept = (day.email?.pairs ?? []).filter((p) => p.class !== 'cleared');
      expect(quietClears.days[i]!.email?.pairs ?? []).toEqual(kept);
      expect(quietClears.days[i]!.email?.drops ?? []).toEqual(day.email?.drops ?? []);
      const drops = day.email?.drops.length ?? 0;
      expect(quietClears.days[i]!.email === null).toBe(kept.length + drops === 0);
    });
    expect(quietClears.summary.pairs).toEqual(configured.summary.pairs);
    expect(configured.summary.pairs.cleared).toBeGreaterThan(0);

    const daily = await replayJson('--set', 'alerts.renotifyAfterDays=1');
    expect(daily.summary.pairs.reminder).toBeGreaterThan(configured.summary.pairs.reminder);
    // What was sent does not depend on the settings replayed.
    expect(daily.summary.sent).toEqual(configured.summary.sent);
  });

  it('--compare prints each setting beside the configured one and what was sent', async () => {
    const r = await thm(
      'replay',
      '--network',
      'acme',
      '--from',
      FIRST,
      '--to',
      LAST,
      '--compare',
      '--set',
      'alerts.minDropPercent=50',
      '--set',
      'alerts.renotifyAfterDays=1,alerts.notifyCleared=false',
    );
    expect(r.code, r.stderr).toBe(0);
    const table = r.stdout.slice(r.stdout.lastIndexOf('listed days replayed:'));
    expect(table).toMatch(
      /as configured +minDropPercent=50 +renotifyAfterDays=1,notifyCleared=false +sent/,
    );
    expect(table).toMatch(/^e-mails +\d+ +\d+ +\d+ +\d+$/m);
  });

  it('the text report: per day the subject and pairs beside what was sent, then the summary', async () => {
    const r = await thm('replay', '--network', 'acme', '--from', FIRST, '--to', LAST);
    expect(r.code, r.stderr).toBe(0);
    const firstAlert = [...decided.entries()].find(([, s]) => s !== null)!;
    expect(r.stdout).toContain(`${firstAlert[0]}  would send: ${firstAlert[1]}`);
    expect(r.stdout).toContain(`sent:       ${firstAlert[1]}`);
    expect(r.stdout).toMatch(/new \(\d+\): https:\/\/\S+ \S+ -\d+%/);
    expect(r.stdout).toMatch(/^e-mails +(\d+) +\1$/m);
  });

  it('a run without premium keeps no listing; a listing is kept history.keepListingsDays', async () => {
    const keys = new RedisStore(redis, stack.config.redis.prefix).keys;
    expect(await redis.exists(keys.listing('globex', FIRST))).toBe(0);
    const ttl = await redis.pttl(keys.listing('acme', FIRST));
    expect(ttl).toBeGreaterThan(89 * 86_400_000);
    expect(ttl).toBeLessThanOrEqual(90 * 86_400_000);
    const r = await thm('replay', '--network', 'globex', '--from', FIRST, '--to', LAST);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/0 listed days replayed/);
    expect(r.stderr).toMatch(/^thm: note: no listing of globex from 2026-10-01 to 2026-10-20/);
  });

  it('a bad --set is a usage error naming it, exit 2, with --json a failure document', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        'alerts.minDropPercnt=30',
        /unknown setting "alerts.minDropPercnt" \(did you mean "alerts.minDropPercent"\?\)/,
      ],
      [
        'alerts.minDropPercent=lots',
        /--set alerts.minDropPercent=lots: alerts.minDropPercent: expected a number, got text/,
      ],
      ['alerts.clearAfterRuns=0', /--set alerts.clearAfterRuns=0: alerts.clearAfterRuns: .*>=1/],
      [
        'alerts.criticalDropPercent=10',
        /alerts.criticalDropPercent: must be at least alerts.minDropPercent \(20\)/,
      ],
      ['minDropPercent=30', /--set minDropPercent=30: expected alerts.KEY=VALUE/],
    ];
    for (const [set, message] of cases) {
      const r = await thm('replay', '--network', 'acme', '--set', set);
      expect(r.code, set).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    const json = await thm('replay', '--network', 'acme', '--set', 'alerts.nope=1', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'THM_USAGE' } });
  });
});

describe('history.keepListingsDays: 0', () => {
  it('keeps no listing', async () => {
    const stack = await startJobStack(['acme'], { history: { keepListingsDays: 0 } }, { scenario });
    try {
      await stack.startWorker();
      stack.sbx.sandbox.setDay(FIRST);
      completed(await stack.run('traffic-check', 'acme', FIRST));
      const redis = stack.redis.client();
      const keys = new RedisStore(redis, stack.config.redis.prefix).keys;
      expect(await redis.exists(keys.listing('acme', FIRST))).toBe(0);
      expect(await redis.exists(keys.network('acme'))).toBe(1);
    } finally {
      await stack.close();
    }
  });
});
