import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_HREF_CHARS,
  displayText,
  escapeHtml,
  headerValue,
  oneLine,
  safeHref,
  shellQuote,
} from '../../src/notify/render/format.js';
import { HAS_INVISIBLE_CHARS } from '../../src/unicode.js';
import { startJobStack, type JobStack, completed } from '../jobs/stack.js';

/**
 * Text from the API that survives escaping yet misleads: bidi overrides (U+202E shows
 * "moc.emca" as "acme.com", or a shell line in another order than it runs), zero-width
 * characters, a 100 KB URL, a look-alike host (Cyrillic а in "аcme.com").
 */

const RLO = '\u202e';
const ZWSP = '\u200b';
/** Runs a shell word through real bash and returns what the shell made of it. */
function throughBash(word: string): string {
  const r = spawnSync('bash', ['-c', `printf %s ${word}`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
  });
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('the shared text layer', () => {
  it.each([
    ['bidi override', `Comcast${RLO}moc.emca`, 'Comcast<U+202E>moc.emca'],
    ['isolates', 'a\u2066b\u2069c', 'a<U+2066>b<U+2069>c'],
    ['zero-width space and joiner', `Ver${ZWSP}izon\u200d`, 'Ver<U+200B>izon<U+200D>'],
    ['byte order mark, word joiner', '\ufeffAT&T\u2060', '<U+FEFF>AT&T<U+2060>'],
    ['tag characters', 'x\u{e0041}y', 'x<U+E0041>y'],
    ['plain text', 'Comcast Cable', 'Comcast Cable'],
  ])('oneLine reveals %s', (_, input, shown) => {
    expect(oneLine(input)).toBe(shown);
    expect(headerValue(input)).toBe(shown);
    expect(HAS_INVISIBLE_CHARS.test(escapeHtml(input))).toBe(false);
    expect(escapeHtml(input)).toBe(
      shown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
    );
  });

  it.each([
    ['https://\u0430cme.com/track?x=1', 'https://xn--cme-5cd.com/track?x=1'],
    ['https://bücher.example/päth', 'https://xn--bcher-kva.example/päth'],
    ['https://user@\u0430cme.com:8443/', 'https://user@xn--cme-5cd.com:8443/'],
    ['https://acme.com/päth', 'https://acme.com/päth'],
    ['Bücher ISP', 'Bücher ISP'],
  ])('displayText shows %s as %s', (input, shown) => {
    expect(displayText(input, 200)).toBe(shown);
  });

  it('a URL longer than MAX_HREF_CHARS is shown cut and not linked', () => {
    const long = `https://trk.example.com/${'a'.repeat(100_000)}`;
    expect(safeHref(long)).toBeUndefined();
    expect(safeHref(long.slice(0, MAX_HREF_CHARS))).toBe(long.slice(0, MAX_HREF_CHARS));
    expect(displayText(long, 120)).toHaveLength(120);
  });

  it.each([
    ['plain', 'Comcast Cable'],
    ['quote', "O'Brien ISP"],
    ['bidi', `Comcast${RLO}moc.emca`],
    ['zero width', `Ver${ZWSP}izon`],
    ['tag character', 'x\u{e0041}y'],
    ['newline and bidi', `a\nb${RLO}c\\d`],
  ])(
    'shellQuote (%s): the word shows no invisible character and bash reads it back exactly',
    (_, isp) => {
      const word = shellQuote(isp);
      expect(HAS_INVISIBLE_CHARS.test(word)).toBe(false);
      expect(throughBash(word)).toBe(isp);
    },
  );
});

describe('an alert e-mail built from hostile API text (sandbox -> worker -> SMTP)', () => {
  const lookAlike = 'https://\u0430cme.com/track';
  const hugeUrl = `https://trk.example.com/${'a'.repeat(100_000)}`;
  const bidiIsp = `Comcast${RLO}${ZWSP}noziréV`;
  let stack: JobStack;

  beforeAll(async () => {
    stack = await startJobStack(
      ['evil'],
      {},
      {
        scenario: {
          networks: [
            {
              id: 'evil',
              premium: true,
              days: {
                '2026-11-20': {
                  entries: [
                    { domain: 7, url: lookAlike, isp: bidiIsp, clicks: [10, 900, 900, 900] },
                    {
                      domain: 8,
                      url: hugeUrl,
                      isp: `Zero${ZWSP}Width`,
                      clicks: [5, 800, 800, 800],
                    },
                  ],
                },
              },
            },
          ],
        },
      },
    );
    await stack.startWorker();
  });
  afterAll(() => stack.close());

  it('shows no invisible character, no 100 KB link, the look-alike host in punycode, an exact silence line', async () => {
    stack.sbx.sandbox.setDay('2026-11-20');
    const outcome = completed(await stack.run('traffic-check', 'evil', '2026-11-20'));
    expect(outcome.counts?.new).toBe(2);
    const [mail] = await stack.smtp.waitForMessages(1);
    const subject = mail?.parsed.subject ?? '';
    const text = mail?.parsed.text ?? '';
    const html = typeof mail?.parsed.html === 'string' ? mail.parsed.html : '';
    expect(html.length).toBeGreaterThan(0);
    for (const part of [subject, text, html]) {
      expect(HAS_INVISIBLE_CHARS.test(part)).toBe(false);
      expect(part).not.toContain('\u0430cme');
      expect(part).not.toContain('a'.repeat(200));
    }
    expect(text).toContain('https://xn--cme-5cd.com/track');
    expect(html).toContain('https://xn--cme-5cd.com/track');
    expect(text).toContain('Comcast<U+202E><U+200B>noziréV');
    expect(html).toContain('Comcast&lt;U+202E&gt;&lt;U+200B&gt;noziréV');
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href.length).toBeLessThanOrEqual(MAX_HREF_CHARS);

    // The suggested command is the one that runs: bash reads the ISP back exactly.
    const line = text.split('\n').find((l) => l.includes('--domain 7 --isp'));
    const word = /--isp (\$'(?:[^'\\]|\\.)*') --for/.exec(line ?? '')?.[1];
    expect(word).toBeDefined();
    expect(throughBash(word!)).toBe(bidiIsp);
  });
});
