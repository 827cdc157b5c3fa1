import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/demo.js';
import { silentLogger } from '../../src/log.js';
import { renderAlertEmail } from '../../src/notify/render/alert.js';
import { classificationOf, exampleAlertInput, examplePair } from './example-alert.js';
import { renderInvoiceEmail } from '../../src/notify/render/invoice.js';
import { renderPremiumEmail } from '../../src/notify/render/premium.js';
import { renderProblemEmail } from '../../src/notify/render/problem.js';
import { renderRestoredEmail } from '../../src/notify/render/restored.js';
import {
  chromiumAvailable,
  CHROMIUM_PATH,
  DESKTOP,
  launchChromium,
  PHONE,
  type Browser,
  type Page,
  type Viewport,
} from '../harness/chromium.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

/**
 * The e-mails as a phone and a desktop show them: every e-mail the demo writes, plus one of
 * each other kind and the hard cases (hostile long names, a full 80-pair digest), opened in
 * headless Chromium. Structure, not pixels: no horizontal scrolling at 390 px with and without
 * the <style> block, short hyphenated words and commands never broken inside. Chromium is driven
 * by playwright-core (test/harness/chromium.ts).
 *
 * `THM_SCREENSHOTS=docs npx vitest run test/notify/layout.test.ts` also writes
 * docs/alert-email.png and docs/alert-email-phone.png from the representative alert of
 * test/notify/example-alert.ts.
 */
const available = chromiumAvailable();
// CI installs chromium (.ci/run): there, a missing browser fails instead of skipping.
if (!available && process.env.CI) {
  throw new Error(`CI: no chromium at ${CHROMIUM_PATH} for the e-mail layout tests`);
}
if (!available) {
  console.warn(
    `\n  NOTICE: e-mail layout tests SKIPPED: no chromium at ${CHROMIUM_PATH} (Debian: apt-get install -y chromium; or set THM_CHROMIUM)\n`,
  );
}

/** In the page: words of at most `max` characters that the layout split across lines. */
const BROKEN_WORDS = (max: number) => `(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('[style*="display:none"]')) continue;
    for (const match of node.data.matchAll(/\\S+/g)) {
      if (match[0].length > ${max}) continue;
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
})()`;

/**
 * In the page: visible text whose colour has a WCAG contrast ratio under `min` against the
 * first opaque background behind it.
 */
const LOW_CONTRAST = (min: number) => `(() => {
  const rgb = (value) => (value.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c;
    }
    return [255, 255, 255];
  };
  const low = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.data.trim() || el.closest('[style*="display:none"]')) continue;
    const a = luminance(rgb(getComputedStyle(el).color));
    const b = luminance(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < ${min}) low.push(node.data.trim().slice(0, 40) + ' (' + ratio.toFixed(1) + ')');
  }
  return low;
})()`;

describe.skipIf(!available)('e-mail layout in headless Chromium', () => {
  let redis: TestRedis;
  let dir: string;
  let browser: Browser;
  let page: Page;
  let demoFiles: string[] = [];
  let allFiles: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'thm-layout-'));
    redis = await startRedis();
    await runDemo({
      env: { REDIS_URL: redis.url },
      logger: silentLogger,
      out: () => undefined,
      outboxDir: path.join(dir, 'outbox'),
    });
    demoFiles = readdirSync(path.join(dir, 'outbox'))
      .filter((f) => f.endsWith('.html'))
      .sort()
      .map((f) => path.join(dir, 'outbox', f));
    const others = path.join(dir, 'others');
    mkdirSync(others);
    for (const [name, html] of Object.entries(otherEmails())) {
      writeFileSync(path.join(others, `${name}.html`), html);
    }
    allFiles = [
      ...demoFiles,
      ...readdirSync(others)
        .sort()
        .map((f) => path.join(others, f)),
    ];
    browser = await launchChromium();
    page = await browser.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await redis?.shutdown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function measure(files: string[], viewport: Viewport, script: string) {
    const results: Record<string, unknown> = {};
    for (const file of files) {
      await page.open(file, viewport);
      results[path.basename(file)] = await page.evaluate(script);
    }
    return results;
  }

  function overflowing(results: Record<string, unknown>, max: number) {
    return Object.fromEntries(Object.entries(results).filter(([, width]) => Number(width) > max));
  }

  it('the demo wrote its six e-mails, and the others are there too', () => {
    expect(demoFiles).toHaveLength(6);
    expect(allFiles.length).toBeGreaterThan(demoFiles.length);
  });

  it('at 390 px no horizontal scrolling, for every e-mail', async () => {
    const widths = await measure(allFiles, PHONE, 'document.documentElement.scrollWidth');
    expect(overflowing(widths, 400)).toEqual({});
  });

  it('at 390 px without the <style> block (clients that drop it): still no horizontal scrolling', async () => {
    const stripped = path.join(dir, 'stripped');
    mkdirSync(stripped, { recursive: true });
    const files = allFiles.map((file) => {
      const html = readFileSync(file, 'utf8');
      const without = html.replace(/<style[^>]*>[\s\S]*?<\/style>/g, '');
      expect(without).not.toContain('<style');
      const target = path.join(stripped, path.basename(file));
      writeFileSync(target, without);
      return target;
    });
    const widths = await measure(files, PHONE, 'document.documentElement.scrollWidth');
    expect(overflowing(widths, 400)).toEqual({});
  });

  it('at 1200 px: no horizontal scrolling either', async () => {
    const widths = await measure(allFiles, DESKTOP, 'document.documentElement.scrollWidth');
    expect(overflowing(widths, 1200)).toEqual({});
  });

  it.each([
    ['390 px', PHONE],
    ['1200 px', DESKTOP],
  ])(
    'at %s: no word of up to 24 characters is broken inside (T-Mobile, --wait)',
    async (_name, viewport) => {
      const broken = await measure(allFiles, viewport, BROKEN_WORDS(24));
      expect(
        Object.fromEntries(
          Object.entries(broken).filter(([, words]) => (words as string[]).length > 0),
        ),
      ).toEqual({});
    },
  );

  it('pair cards: two to a row at 1200 px, one under the other at 390 px, ISP and severity on one line', async () => {
    // Many ISPs of a domain, each a card (the demo's blocked domain is one headline instead).
    const blocked = allFiles.find((f) => path.basename(f) === 'alert-big.html')!;
    const CARDS = `[...document.querySelectorAll('div[style*="display:inline-block"]')].slice(0, 2).map((card) => {
      const box = card.getBoundingClientRect();
      const isp = card.querySelector('strong').getBoundingClientRect();
      const severity = card.querySelector('b').getBoundingClientRect();
      return { top: box.top, bottom: box.bottom, left: box.left, sameLine: Math.abs(isp.top - severity.top) < 4, severity: card.querySelector('b').textContent };
    })`;
    type Card = { top: number; bottom: number; left: number; sameLine: boolean; severity: string };
    await page.open(blocked, DESKTOP);
    const [a, b] = await page.evaluate<Card[]>(CARDS);
    expect(b!.top).toBe(a!.top);
    expect(b!.left).toBeGreaterThan(a!.left + 300);
    await page.open(blocked, PHONE);
    const [c, d] = await page.evaluate<Card[]>(CARDS);
    expect(d!.top).toBeGreaterThanOrEqual(c!.bottom);
    expect(d!.left).toBe(c!.left);
    for (const card of [a, b, c, d])
      expect(card).toMatchObject({ sameLine: true, severity: 'CRITICAL' });
  });

  it("the demo's blocked domain: one headline, no card per ISP", async () => {
    const blocked = demoFiles.find((f) => path.basename(f).startsWith('2026-11-17-acme-alert'))!;
    await page.open(blocked, PHONE);
    const cards = await page.evaluate<number>(
      `document.querySelectorAll('div[style*="display:inline-block"]').length`,
    );
    expect(cards).toBe(0);
  });

  it.each([
    ['light', PHONE],
    ['dark', { ...PHONE, colorScheme: 'dark' as const }],
  ])(
    '%s colour scheme: every text legible against its background (contrast 4.5 or more)',
    async (_name, viewport) => {
      const low = await measure(allFiles, viewport, LOW_CONTRAST(4.5));
      expect(
        Object.fromEntries(
          Object.entries(low).filter(([, texts]) => (texts as string[]).length > 0),
        ),
      ).toEqual({});
    },
  );

  it('dark colour scheme: the dark palette is applied (not white cards on a dark page)', async () => {
    const blocked = allFiles.find((f) => path.basename(f) === 'alert-big.html')!;
    await page.open(blocked, { ...PHONE, colorScheme: 'dark' });
    const card = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('table[bgcolor] table[bgcolor]')).backgroundColor`,
    );
    expect(card).toBe('rgb(26, 31, 36)');
  });

  it.runIf(Boolean(process.env.THM_SCREENSHOTS))('writes the docs screenshots', async () => {
    const out = path.resolve(process.env.THM_SCREENSHOTS ?? 'docs');
    const example = allFiles.find((f) => path.basename(f) === 'alert-example.html');
    expect(example).toBeDefined();
    await page.open(example!, { width: 900, height: 1000, mobile: false });
    writeFileSync(path.join(out, 'alert-email.png'), await page.screenshot());
    // The phone's first two screens: the whole e-mail is a very long picture at 390 px.
    await page.open(example!, { ...PHONE, deviceScaleFactor: 2 });
    const band = { y: 0, height: 2 * PHONE.height };
    writeFileSync(path.join(out, 'alert-email-phone.png'), await page.screenshot(band));
  });
});

/** One of each other kind, and alerts with the hard cases. */
function otherEmails(): Record<string, string> {
  const network = { id: 'acme', name: 'Acme Network' };
  const asOf = '2026-11-21';
  const problem = {
    kind: 'traffic-check' as const,
    code: 'THM_API_AUTH' as const,
    message: '401 No Authentication Method Found',
    openedAt: Date.UTC(2026, 10, 21, 7, 0),
  };
  const longIsp = `${'Very Long Regional Broadband Cooperative '.repeat(3)}GmbH & Co. KG`;
  const longUrl = `https://tracking.${'subdomain-'.repeat(8)}example.com/path/${'x'.repeat(60)}?q=1`;
  const hostile = [
    examplePair({
      domainId: 7,
      domainUrl: longUrl,
      isp: longIsp,
      class: 'new',
      firstSeen: asOf,
      clicks: [1, 123_456_789, 123_456_700, 123_400_000],
      conversions: [0, 1_234_567, 1_234_000, 1_230_000],
      revenue: [0, 98_765_432.1, 98_765_000, 98_700_000],
    }),
    examplePair({
      domainId: 8,
      domainUrl: 'https://xn--bcher-kva.example/\u4e2d\u6587',
      isp: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      class: 'worse',
      firstSeen: asOf,
      clicks: [0, 0, 0, 0],
    }),
    examplePair({
      domainId: 9,
      domainUrl: longUrl,
      isp: longIsp,
      class: 'cleared',
      firstSeen: asOf,
      dropPercent: 80,
      mayStillBeDepressed: true,
    }),
  ];
  const big: ReturnType<typeof examplePair>[] = [];
  for (let d = 0; d < 10; d++) {
    for (let i = 0; i < 12; i++) {
      big.push(
        examplePair({
          domainId: d,
          domainUrl: `https://d${d}.example.com`,
          isp: `ISP number ${i}`,
          class: 'new',
          firstSeen: asOf,
          clicks: [100 + i, 500, 480, 470],
        }),
      );
    }
  }
  const alert = (pairs: ReturnType<typeof examplePair>[], headline: number[] = []) => {
    const email = renderAlertEmail({
      network,
      asOf,
      classification: classificationOf(asOf, pairs, headline),
      notifyCleared: true,
    });
    if (!email) throw new Error('no e-mail');
    return email.html;
  };
  return {
    // The representative alert: every section, the learned variation in each pair's line.
    'alert-example': renderAlertEmail(exampleAlertInput())!.html,
    'alert-hostile': alert(hostile, [7]),
    'alert-big': alert(big, [0]),
    problem: renderProblemEmail({ network, asOf, problem }).html,
    restored: renderRestoredEmail({
      network,
      asOf,
      problem,
      restoredAt: problem.openedAt + 3_600_000,
    }).html,
    'premium-regained': renderPremiumEmail({ network, asOf, lost: false }).html,
    invoice: renderInvoiceEmail({
      network,
      asOf,
      snapshot: {
        time: Date.UTC(2026, 10, 21, 7) / 1000,
        status: 'unpaid',
        total_count: 14,
        balance: 18_240.5,
        billed: 25_310,
        paid: 7_069.5,
      },
      change: { total_count: 2, balance: 1_530.25, billed: 1_530.25, paid: 0 },
    }).html,
  };
}
