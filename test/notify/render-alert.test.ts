import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ClassifiedDrop, ClassifiedPair, PairClass } from '../../src/monitor/types.js';
import { EVIDENCE_LEGEND } from '../../src/notify/render/evidence.js';
import {
  renderAlertEmail,
  renderAlertSubject,
  type AlertEmailInput,
} from '../../src/notify/render/alert.js';
import { classificationOf, exampleAlertInput, examplePair } from './example-alert.js';
import { escapeHtml, shellQuote } from '../../src/notify/render/format.js';

const ASOF = '2026-11-21';
const NETWORK = { id: 'acme', name: 'Acme Network' };

function pair(
  domainId: number,
  isp: string,
  cls: PairClass,
  extra: Partial<Parameters<typeof examplePair>[0]> = {},
): ClassifiedPair {
  return examplePair({
    domainId,
    domainUrl: `https://d${domainId}.example.com`,
    isp,
    class: cls,
    firstSeen: ASOF,
    clicks: [100, 500, 480, 470],
    ...extra,
  });
}

function input(
  pairs: ClassifiedPair[],
  extra: Partial<AlertEmailInput> = {},
  headline: number[] = [],
): AlertEmailInput {
  return {
    network: NETWORK,
    asOf: ASOF,
    classification: classificationOf(ASOF, pairs, headline),
    notifyCleared: true,
    ...extra,
  };
}

function render(
  pairs: ClassifiedPair[],
  extra: Partial<AlertEmailInput> = {},
  headline: number[] = [],
) {
  const email = renderAlertEmail(input(pairs, extra, headline));
  if (!email) throw new Error('expected an e-mail');
  return email;
}

function many(cls: PairClass, count: number, domainId = 1): ClassifiedPair[] {
  return Array.from({ length: count }, (_, i) => pair(domainId, `ISP ${cls} ${i}`, cls));
}

describe('renderAlertEmail: when there is nothing to e-mail', () => {
  it.each([
    ['no pairs at all', [], true],
    ['only ongoing and silenced', [...many('ongoing', 3), ...many('silenced', 2)], true],
    ['only cleared, notifyCleared off', many('cleared', 2), false],
  ] as const)('%s: undefined', (_name, pairs, notifyCleared) => {
    expect(renderAlertEmail(input([...pairs], { notifyCleared }))).toBeUndefined();
  });

  it('only cleared with notifyCleared on: an e-mail', () => {
    expect(render(many('cleared', 2)).subject).toBe(
      '[Traffic Health] Acme Network: 2 cleared (2026-11-21)',
    );
  });
});

describe('renderAlertEmail: subject', () => {
  it.each([
    [{ new: 3, worse: 1, cleared: 2 }, true, '3 new, 1 worse, 2 cleared'],
    [{ new: 1 }, true, '1 new'],
    [{ reminder: 1 }, true, '1 reminder'],
    [{ reminder: 2, worse: 1 }, true, '1 worse, 2 reminders'],
    [{ new: 1, cleared: 4 }, false, '1 new'],
    [{ new: 2, ongoing: 5, silenced: 3 }, true, '2 new'],
    [{ new: 1200 }, true, '1,200 new'],
  ] as Array<[Partial<Record<PairClass, number>>, boolean, string]>)(
    '%j (notifyCleared %s): "%s"',
    (counts, notifyCleared, expected) => {
      const pairs = Object.entries(counts).flatMap(([cls, n]) => many(cls as PairClass, n));
      expect(render(pairs, { notifyCleared }).subject).toBe(
        `[Traffic Health] Acme Network: ${expected} (2026-11-21)`,
      );
    },
  );

  it('a hostile network name stays one line and is cut', () => {
    const email = render(many('new', 1), {
      network: { id: 'acme', name: `Acme\r\nBcc: victim@evil.example\r\n${'x'.repeat(500)}` },
    });
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.subject.length).toBeLessThanOrEqual(200);
    expect(email.subject).toMatch(
      /^\[Traffic Health\] Acme Bcc: victim@evil\.example x+…: 1 new \(2026-11-21\)$/,
    );
  });
});

describe('renderAlertSubject: the subject alone, as `thm replay` shows it', () => {
  const networkDrop: ClassifiedDrop = {
    class: 'new',
    scope: 'network',
    domainId: 0,
    domainUrl: '',
    firstSeen: ASOF,
    dropPercent: 35,
    dropPercent14: 33,
    significance: 9,
    ispsDown: 60,
    ispsKnown: 90,
    clicksLost: 4000,
    baselineClicks: 10000,
    domainsDown: 3,
    domainsKnown: 3,
  };
  it.each([
    ['nothing to e-mail', input([...many('ongoing', 3), ...many('silenced', 2)])],
    ['cleared only, notifyCleared off', input(many('cleared', 2), { notifyCleared: false })],
    ['cleared only, notifyCleared on', input(many('cleared', 2))],
    ['every class', input([...many('new', 3), ...many('worse', 1), ...many('reminder', 2)])],
    ['a name that shows nothing', input(many('new', 1), { network: { id: 'acme', name: ' ' } })],
    [
      'a network drop alone',
      { ...input([]), classification: { ...classificationOf(ASOF, []), drops: [networkDrop] } },
    ],
  ] as Array<[string, AlertEmailInput]>)("%s: the e-mail's subject, or none", (_what, alert) => {
    expect(renderAlertSubject(alert)).toBe(renderAlertEmail(alert)?.subject);
  });
});

describe('renderAlertEmail: grouping, order and the domain reading', () => {
  const pairs = [
    // domain 2: one ISP, losing 900 clicks
    pair(2, 'Lonely ISP', 'new', { clicks: [100, 1000, 990, 980] }),
    // domain 1: three ISPs, headline, losing 3 x 400
    pair(1, 'Alpha', 'new', { clicks: [100, 500, 480, 470] }),
    pair(1, 'Beta', 'worse', { clicks: [20, 450, 480, 470] }),
    pair(1, 'Gamma', 'ongoing', { clicks: [100, 500, 480, 470] }),
    // domain 3: two ISPs, losing 2 x 50
    pair(3, 'Small A', 'reminder', { clicks: [200, 250, 260, 255] }),
    pair(3, 'Small B', 'new', { clicks: [200, 250, 260, 255] }),
  ];
  const email = render(pairs, {}, [1]);

  it('domains worst first by clicks lost', () => {
    const order = [...email.text.matchAll(/^== (\S+) \(domain (\d+)\) ==$/gm)].map((m) =>
      Number(m[2]),
    );
    expect(order).toEqual([1, 2, 3]);
  });

  it('pairs of a domain: critical first, then by clicks lost', () => {
    const section = email.text.split('== https://d1.example.com')[1] ?? '';
    expect(section.indexOf('Beta')).toBeLessThan(section.indexOf('Alpha'));
    expect(section).not.toContain('- Gamma'); // ongoing: counted, not listed
    expect(section).toContain(
      '1 more ISP of this domain is declining too, already reported (ongoing) or silenced.',
    );
  });

  it('the headline domain is called blocked, the single ISP called filtering', () => {
    expect(email.text).toContain('!! 1 domain looks blocked: https://d1.example.com.');
    expect(email.text).toMatch(
      /LOOKS BLOCKED\. This domain looks blocked: 3 ISPs are declining on it together/,
    );
    expect(email.text).toContain(
      'Only one ISP (Lonely ISP) is declining on this domain: that looks like that ISP filtering',
    );
    expect(email.text).toContain(
      '2 ISPs are declining on this domain, not enough together to call the domain blocked',
    );
    expect(email.html).toContain('Looks blocked: 3 ISPs together');
  });

  it('per pair: severity, class, the four days with percent change, conversions, revenue, first seen', () => {
    expect(email.text).toContain('  - Beta [CRITICAL, worse] first seen 2026-11-21');
    expect(email.text).toContain(
      'clicks yesterday 20 | 7d back 450 (-96%) | 14d back 480 (-96%) | 30d back 470 (-96%)',
    );
    expect(email.text).toMatch(/conversions 0 vs 0 \(n\/a\) \| revenue 0\.00 vs 0\.00 \(n\/a\)/);
  });

  it('per pair: how strong the drop is, in words and z, and the legend once', () => {
    // No learned variation: chance alone. Beta: 20 clicks against 450 and 480: the weaker is
    // (450 - 20 - 1) / sqrt(470) = 19.8; sd sqrt(2 / 450.5) = 0.067 (6%).
    expect(email.text).toContain(
      '  - Beta [CRITICAL, worse] first seen 2026-11-21\n      At 450 clicks a day, chance moves this pair about 6% from day to day; this drop is more than ten times that. Far beyond normal variation (z 19.8).',
    );
    // Small B: 200 against 250 and 260: (250 - 200 - 1) / sqrt(450) = 2.3; sd sqrt(2 / 250.5)
    // = 0.089 (9%), ln(250.5 / 200.5) = 0.22 is 2.49 of it.
    expect(email.text).toContain(
      'At 250 clicks a day, chance moves this pair about 9% from day to day; this drop is about twice that. At the edge of normal variation (z 2.3).',
    );
    expect(email.html).toContain(
      'this drop is more than ten times that. Far beyond normal variation (z 19.8).',
    );
    expect(email.text.split(EVIDENCE_LEGEND)).toHaveLength(2);
    expect(email.html.split(escapeHtml(EVIDENCE_LEGEND))).toHaveLength(2);
  });

  it('the silence line: whole domain for a blocked one, the top ISP otherwise', () => {
    expect(email.text).toContain('thm silence add --network acme --domain 1 --for 7d');
    expect(email.text).toContain(
      "thm silence add --network acme --domain 2 --isp 'Lonely ISP' --for 7d",
    );
  });

  it('counts of ongoing and silenced pairs', () => {
    const withSilenced = render(
      [...pairs, ...many('silenced', 4, 9), ...many('ongoing', 2, 8)],
      {},
      [1],
    );
    expect(withSilenced.text).toContain('Ongoing: 3 pairs still active and already reported');
    expect(withSilenced.text).toContain('Silenced: 4 pairs matching a silence');
    expect(withSilenced.text).toContain('Not repeated here: 3 ongoing, 4 silenced.');
  });

  it("a run's ongoing pairs are counted, not listed: the count is the classification's", () => {
    const classification = classificationOf(ASOF, [...pairs, ...many('ongoing', 3, 8)], [1]);
    // What a run hands over: the ongoing pairs left out of `pairs`, their count kept.
    classification.pairs = classification.pairs.filter((p) => p.class !== 'ongoing');
    const email = renderAlertEmail({ ...input([]), classification })!;
    expect(email.text).toContain(`Ongoing: ${classification.counts.ongoing} pairs still active`);
    expect(email.text).toContain(`Not repeated here: ${classification.counts.ongoing} ongoing.`);
  });
});

describe('renderAlertEmail: the learned variation and common drops', () => {
  const variation = { extra: 0.01, common: 0.0025, network: 0.001, days: 40 };
  const big = pair(1, 'Big', 'new', { clicks: [330, 1000, 1000, 1000], severity: 'critical' });
  const small = pair(2, 'Small', 'new', { clicks: [12, 60, 60, 60], severity: 'critical' });

  it('each pair says its normal variation and how many times that the drop is', () => {
    const email = render([big, small], {
      classification: { ...classificationOf(ASOF, [big, small]), variation },
    });
    // 1,000 -> 330: chance (2 / 1,000.5) is a tenth of the network's 2 x 0.01, so the
    // network's figure alone is named: sd 0.141, a move of 13% (what `thm status` says);
    // ln(1,000.5 / 330.5) = 1.11 is 7.8 of it (0.868^7.8 = 0.33: 1,000 -> 330).
    expect(email.text).toContain(
      "This network's clicks vary about 13% from day to day (learned over 40 days); this drop is eight times that.",
    );
    // 60 -> 12: chance (2 / 60.5 = 0.033) outweighs the network's 0.02: sd 0.23, a move of
    // 21%; ln(60.5 / 12.5) = 1.58 is 6.8 of it.
    expect(email.text).toContain(
      "At 60 clicks a day, chance moves this pair more than this network's own variation does (13%, learned over 40 days): together about 21% from day to day; this drop is seven times that.",
    );
    expect(email.html).toContain(
      'this drop is eight times that. Far beyond normal variation (z 18.3).',
    );
  });

  it('without a learned variation the line names chance alone', () => {
    const email = render([big]);
    expect(email.text).toContain(
      'At 1,000 clicks a day, chance moves this pair about 4% from day to day; this drop is more than ten times that.',
    );
    expect(email.text).not.toContain("This network's clicks vary");
  });

  const drop = (d: Partial<ClassifiedDrop>): ClassifiedDrop => ({
    scope: 'domain',
    domainId: 3,
    domainUrl: 'https://d3.example.com',
    class: 'new',
    firstSeen: ASOF,
    dropPercent: 40,
    dropPercent14: 41,
    significance: 9,
    ispsDown: 27,
    ispsKnown: 30,
    clicksLost: 4000,
    baselineClicks: 10000,
    ...d,
  });

  it('a network drop alone is an e-mail: one headline, no card, said in the subject', () => {
    const network = drop({
      scope: 'network',
      domainId: 0,
      domainUrl: '',
      dropPercent: 35,
      domainsDown: 3,
      domainsKnown: 3,
    });
    const email = renderAlertEmail({
      ...input([]),
      classification: { ...classificationOf(ASOF, []), drops: [network] },
    });
    expect(email?.subject).toBe('[Traffic Health] Acme Network: network down 35% (2026-11-21)');
    expect(email?.text).toContain(
      '!! The whole network is down about 35% against the same weekday a week ago, on 3 of 3 domains and nearly every ISP together: a network-wide dip (a holiday, a tracking outage, a large partner pausing), not ISP filtering.',
    );
    expect(email?.text).not.toContain('DOMAINS, WORST FIRST');
  });

  it('a domain drop names the domain, how many of its ISPs, and what it likely is', () => {
    const email = render([big], {
      classification: { ...classificationOf(ASOF, [big]), drops: [drop({})] },
    });
    expect(email.subject).toBe(
      '[Traffic Health] Acme Network: 1 domain down 40%, 1 new (2026-11-21)',
    );
    expect(email.text).toContain(
      '!! https://d3.example.com is down about 40% against the same weekday a week ago, on 27 of the 30 ISPs it has shown, together: the domain itself (a campaign that ended, a blocklist, its DNS or certificate), not one ISP filtering it.',
    );
  });

  it("a drop alone: the silencing section holds the drop's own silence line", () => {
    const only = (d: ClassifiedDrop) =>
      renderAlertEmail({
        ...input([]),
        classification: { ...classificationOf(ASOF, []), drops: [d] },
      })!;
    const domain = only(drop({}));
    expect(domain.text).toContain(
      'SILENCING\nSilence the drop of https://d3.example.com (the whole domain):\n  thm silence add --network acme --domain 3 --for 7d\n',
    );
    expect(domain.html).toContain('Silence the drop of https://d3.example.com (the whole domain):');
    const network = only(
      drop({ scope: 'network', domainId: 0, domainUrl: '', domainsDown: 3, domainsKnown: 3 }),
    );
    expect(network.text).toContain(
      "SILENCING\nSilence the network-wide drop for a day (this silences every pair of the network too):\n  thm silence add --network acme --isp '*' --for 1d\n",
    );
    // Never a heading with nothing under it.
    for (const email of [domain, network, render(many('new', 2))]) {
      expect(email.text).not.toMatch(/SILENCING\n(--|$)/);
    }
  });

  it('a drop beside pairs: both the pointer to the per-domain lines and the drop line', () => {
    const email = render([big], {
      classification: { ...classificationOf(ASOF, [big]), drops: [drop({})] },
    });
    expect(email.text).toContain('run the "Silence" line under its domain above.');
    expect(email.text).toContain('thm silence add --network acme --domain 3 --for 7d');
  });

  it('an ongoing drop is not news; a worse one is', () => {
    const ongoing = renderAlertEmail({
      ...input([]),
      classification: { ...classificationOf(ASOF, []), drops: [drop({ class: 'ongoing' })] },
    });
    expect(ongoing).toBeUndefined();
    const worse = render([], {
      classification: {
        ...classificationOf(ASOF, []),
        drops: [drop({ class: 'worse', dropPercent: 98 })],
      },
    });
    expect(worse.text).toContain('It has dropped further since the last e-mail.');
  });
});

describe('renderAlertEmail: cleared pairs', () => {
  it('says "may still be depressed" for the flagged ones, and never "recovered" as a claim', () => {
    const email = render([
      pair(1, 'Healed', 'cleared', { mayStillBeDepressed: false }),
      pair(1, 'StillLow', 'cleared', { mayStillBeDepressed: true }),
    ]);
    expect(email.text).toContain('1 pair may still be depressed, not healed');
    expect(email.text).toMatch(/StillLow: cleared, .*MAY STILL BE DEPRESSED/);
    expect(email.text).toMatch(/Healed: cleared, first seen 2026-11-21, last drop -80%\.$/m);
    // Flagged ones first.
    expect(email.text.indexOf('StillLow')).toBeLessThan(email.text.indexOf('Healed'));
    expect(email.text.replace('"Cleared" does not mean "recovered"', '')).not.toMatch(/recovered/i);
    expect(email.html).toContain('MAY STILL BE DEPRESSED');
  });

  it('no caveat when none is flagged', () => {
    const email = render([pair(1, 'Healed', 'cleared', { mayStillBeDepressed: false })]);
    expect(email.text).not.toContain('may still be depressed');
  });
});

describe('renderAlertEmail: hostile and unusual API strings', () => {
  const hostile = [
    pair(1, '<script>alert(1)</script>', 'new'),
    pair(2, 'Evil\r\nBcc: victim@evil.example', 'new', {}),
    pair(3, 'Telefónica', 'new'),
    pair(4, '中国电信', 'new'),
    pair(5, 'Z'.repeat(5000), 'new'),
    pair(6, `O'Reilly "Net" & Co`, 'new'),
  ];
  hostile.push(
    examplePair({
      domainId: 7,
      domainUrl: 'javascript:alert(document.cookie)',
      isp: 'X',
      class: 'new',
      firstSeen: ASOF,
      clicks: [1, 100, 100, 100],
    }),
    examplePair({
      domainId: 8,
      domainUrl: 'https://ok.example.com/"><img src=x onerror=alert(1)>',
      isp: 'Y',
      class: 'new',
      firstSeen: ASOF,
      clicks: [1, 100, 100, 100],
    }),
  );
  const email = render(hostile);

  it('escapes everything in the HTML', () => {
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).not.toMatch(/<img/i);
    expect(email.html).toContain('O&#39;Reilly &quot;Net&quot; &amp; Co');
  });

  it('links only http(s) URLs', () => {
    expect(email.html).not.toMatch(/href="javascript/i);
    expect(email.html).toContain('javascript:alert(document.cookie)'); // shown as text
    expect(email.html).toContain('href="https://d1.example.com/"');
    // The quote-breaking URL is linked (it is http) but percent-encoded and escaped.
    expect(email.html).not.toContain('"><img');
  });

  it('keeps names on one line and cuts very long ones', () => {
    expect(email.text).toContain('  - Evil Bcc: victim@evil.example [CRITICAL, new]');
    expect(email.text).not.toMatch(/^Bcc:/m);
    expect(email.text).toContain(`${'Z'.repeat(79)}…`);
    expect(email.text).not.toContain('Z'.repeat(121));
    // The silence line for a very long ISP uses a prefix glob that still matches it.
    expect(email.text).toContain(`--isp '${'Z'.repeat(100)}*'`);
    expect(email.html).not.toContain('Z'.repeat(121));
  });

  it('renders non-ASCII names as they are', () => {
    for (const part of [email.text, email.html]) {
      expect(part).toContain('Telefónica');
      expect(part).toContain('中国电信');
    }
  });
});

describe('renderAlertEmail: a bounded e-mail for huge runs', () => {
  it('lists at most maxPairsListed declining pairs and summarises the rest', () => {
    const pairs: ClassifiedPair[] = [];
    for (let d = 0; d < 100; d++) pairs.push(...many('new', 100, d)); // 10,000 pairs
    pairs.push(...many('cleared', 500, 999));
    const email = render(pairs, {
      maxPairsListed: 200,
      maxPairsPerDomain: 25,
      maxDomainsInOverview: 30,
    });
    expect(email.subject).toBe(
      '[Traffic Health] Acme Network: 10,000 new, 500 cleared (2026-11-21)',
    );
    expect(email.text.match(/^ {2}- ISP new/gm)?.length).toBe(200);
    expect(email.text.match(/cleared, first seen/g)?.length).toBe(100);
    expect(email.text).toContain('and 75 more ISPs declining on this domain, not listed.');
    expect(email.text).toContain('and 9,200 more declining pairs on 92 more domains, not listed');
    expect(email.text).toContain('and 400 more cleared pairs, not listed.');
    expect(email.text).toContain('and 70 more domains'); // overview capped at 30
    expect(email.html.length).toBeLessThan(400_000); // about 1.5 KB per listed pair
  });

  it("with the defaults, the HTML stays under Gmail's clipping size (~102 KB)", () => {
    const pairs: ClassifiedPair[] = [];
    for (let d = 0; d < 100; d++) pairs.push(...many('new', 100, d));
    pairs.push(...many('cleared', 500, 999));
    const email = render(pairs);
    expect(email.text.match(/^ {2}- ISP new/gm)?.length).toBe(40);
    expect(email.text.match(/cleared, first seen/g)?.length).toBe(20);
    expect(Buffer.byteLength(email.html)).toBeLessThan(95_000);
  });
});

describe('renderAlertEmail: the example (test/notify/example-alert.ts)', () => {
  const email = renderAlertEmail(exampleAlertInput());

  it('is a full digest: headline, classes, caveat, counts, invoice, silence line', () => {
    expect(email?.subject).toBe(
      '[Traffic Health] Acme Network: 6 new, 1 worse, 1 reminder, 2 cleared (2026-11-21)',
    );
    const text = email?.text ?? '';
    for (const expected of [
      '1 domain looks blocked: https://trk.acme-offers.com',
      'may still be depressed',
      'Ongoing: 2 pairs',
      'Silenced: 1 pair',
      'Invoices: 14 (+2 since the previous snapshot)',
      'Balance: 18,240.50 (+1,530.25 since the previous snapshot)',
      'thm silence add --network acme --domain 101 --for 7d',
      "thm silence add --network acme --domain 102 --isp 'Comcast Cable' --for 7d",
    ]) {
      expect(text).toContain(expected);
    }
    expect(email?.html).toMatch(/^<!DOCTYPE html>/);
    expect(email?.html).not.toMatch(/<link|<script|src="http|url\(/i); // no external assets
  });
});

describe('shellQuote: the silence line pastes into a shell exactly', () => {
  it.each([
    'Comcast',
    "O'Reilly Net",
    'a "b" $HOME `id` \\ !x',
    'Evil\r\nBcc: x',
    'Telefónica 中国电信',
    '*',
  ])('%j round-trips through bash', (value) => {
    const result = spawnSync('bash', ['-c', `printf '%s' ${shellQuote(value)}`], {
      encoding: 'utf8',
    });
    expect(result.stdout).toBe(value);
  });
});

describe('renderAlertEmail: small things that read badly', () => {
  it('each silence command once: the help section points at the per-domain lines', () => {
    const email = renderAlertEmail(exampleAlertInput())!;
    for (const part of [email.text, email.html.replace(/<span[^>]*>|<\/span>/g, '')]) {
      const commands = part.match(/thm silence add [^\n<]*/g) ?? [];
      expect(commands.length).toBe(3); // one per listed domain
      expect(new Set(commands).size).toBe(commands.length);
    }
  });

  it('only cleared pairs: the help section shows an example command', () => {
    const email = renderAlertEmail(input(many('cleared', 2)))!;
    expect(email.text.match(/thm silence add/g)).toHaveLength(1);
  });

  it('the hidden preview text agrees in number: "1 domain looks blocked"', () => {
    const one = renderAlertEmail(exampleAlertInput())!;
    expect(one.html).toMatch(/<div style="display:none[^>]*>[^<]*1 domain looks blocked\./);
    const two = render([...many('new', 3, 1), ...many('new', 3, 2)], {}, [1, 2]);
    expect(two.html).toMatch(/<div style="display:none[^>]*>[^<]*2 domains look blocked\./);
  });

  it('the text part ends with the "-- " signature separator and the footer', () => {
    const email = renderAlertEmail(exampleAlertInput())!;
    expect(email.text).toMatch(/\n-- \nTraffic Health Monitor, network acme, as-of 2026-11-21\./);
  });

  it('an invoice snapshot read days after the as-of date says so; one of that day does not', () => {
    const example = exampleAlertInput();
    expect(renderAlertEmail(example)!.text).toContain('  Taken: 2026-11-21 07:00 UTC\n');
    const past = renderAlertEmail({ ...example, asOf: '2026-11-15' })!;
    expect(past.text).toContain(
      '  Taken: 2026-11-21 07:00 UTC, the totals at that time, not as of 2026-11-15',
    );
    expect(past.html).toContain('not as of 2026-11-15');
  });

  it('no "0 pairs" line for an empty count', () => {
    const email = renderAlertEmail(input([...many('new', 1), ...many('ongoing', 2, 5)]))!;
    expect(email.text).toContain('Ongoing: 2 pairs');
    expect(email.text).not.toContain('Silenced:');
  });

  it('command names in our own sentences are code in the HTML, not literal backticks', () => {
    const email = renderAlertEmail(input([...many('new', 1), ...many('silenced', 1, 5)]))!;
    expect(email.html).toMatch(/<code[^>]*>thm silence list<\/code>/);
    expect(email.html).not.toContain('`');
  });

  it('an ISP name with a backtick stays literal text, never code', () => {
    const email = renderAlertEmail(input([pair(1, 'Evil `rm -rf` Net', 'new')]))!;
    expect(email.html).toContain('Evil `rm -rf` Net');
  });
});

describe('inline code', () => {
  it('wraps at spaces, never inside a word', () => {
    const email = renderAlertEmail(input([...many('new', 1), ...many('silenced', 1, 5)]))!;
    const inline = email.html.match(/<code style="[^"]*">thm silence list<\/code>/)?.[0] ?? '';
    expect(inline).not.toContain('break-all');
  });
});

describe('HTML that every mail client keeps (layout measured in test/notify/layout.test.ts)', () => {
  const email = renderAlertEmail(exampleAlertInput())!;
  const listed = 8; // declining pairs of the example: 5 + 1 + 2

  it('a color-scheme meta; the only media query is the optional dark palette', () => {
    expect(email.html).toContain('<meta name="color-scheme" content="light dark">');
    expect(email.html.match(/@media[^{]*/g)).toEqual(['@media (prefers-color-scheme:dark)']);
  });

  it('tables, no flex or grid, no images or SVG', () => {
    expect(email.html).not.toMatch(/display:\s*(flex|grid)|<img|<svg|background-image/i);
    // Outlook's table for the stacking pair cards, widths in attributes.
    expect(email.html).toContain('<!--[if mso]><table role="presentation"');
    expect(email.html).toMatch(/<!--\[if mso\]><\/td><td width="\d+" valign="top"><!\[endif\]-->/);
  });

  it('severity in words beside its colour, once per listed pair', () => {
    const words = email.html.match(/>(CRITICAL|WARNING)</g) ?? [];
    expect(words).toHaveLength(listed);
  });

  it('a bar chart per pair from table cells: yesterday, 7, 14 and 30 days back', () => {
    expect(email.html.match(/<td height="8" bgcolor="#[0-9a-f]{6}"><\/td>/g)).toHaveLength(
      4 * listed,
    );
    // Comcast Cable: 412 yesterday against 2,210 (the largest, full width) 7 days back.
    const card = email.html.slice(email.html.indexOf('Comcast Cable'));
    const widths = [...card.matchAll(/<table width="(\d+)%"/g)].slice(0, 4).map((m) => m[1]);
    expect(widths).toEqual(['19', '100', '97', '94']);
  });

  it('a pair without figures still gets a card, without a chart', () => {
    const noFigures = examplePair({
      domainId: 1,
      domainUrl: 'https://d1.example.com',
      isp: 'Bare ISP',
      class: 'new',
      firstSeen: ASOF,
      dropPercent: 60,
    });
    const bare = render([noFigures]);
    expect(bare.html).toContain('Last drop -60% vs 7 days back');
    expect(bare.html).not.toContain('height="8"');
  });
});
