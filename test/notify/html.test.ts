import { describe, expect, it } from 'vitest';
import { barChart, keepWords, stackingGrid } from '../../src/notify/render/html.js';

/** What Outlook sees of a stacking grid: the markup inside its conditional comments. */
function outlookMarkup(html: string): string {
  return [...html.matchAll(/<!--\[if mso\]>([\s\S]*?)<!\[endif\]-->/g)]
    .map((m) => m[1])
    .join('')
    .replace(/ [a-z]+="[^"]*"/g, '');
}

describe('stackingGrid', () => {
  it.each([
    [1, '<table><tr><td></td></tr></table>'],
    [2, '<table><tr><td></td><td></td></tr></table>'],
    [3, '<table><tr><td></td><td></td></tr><tr><td></td></tr></table>'],
    [4, '<table><tr><td></td><td></td></tr><tr><td></td><td></td></tr></table>'],
  ])('%i blocks, two per row: Outlook gets a balanced table', (count, expected) => {
    const blocks = Array.from({ length: count }, (_, i) => `<p>${i}</p>`);
    const html = stackingGrid(blocks, 358, 2, 16);
    expect(outlookMarkup(html)).toBe(expected);
    // Every other client: one inline-block per block, in order, no white space between.
    expect(
      html.match(/<div style="display:inline-block;[^"]*max-width:358px;[^"]*">/g),
    ).toHaveLength(count);
    expect(html).not.toMatch(/>\s+</);
  });
});

describe('barChart', () => {
  const bar = (value: number) => ({
    label: 'x',
    value,
    color: '#000000',
    valueHtml: String(value),
  });
  const widths = (html: string) => [...html.matchAll(/<table width="(\d+)%"/g)].map((m) => m[1]);

  it.each([
    [
      [50, 100, 25],
      ['50', '100', '25'],
    ],
    [[0, 10], ['100']], // a zero gets no bar
    [[0, 0], []],
    [
      [1, 1_000_000],
      ['1', '100'],
    ], // a tiny value still shows
    [[Number.NaN, 5], ['100']],
  ])('%j -> bar widths %j', (values, expected) => {
    expect(widths(barChart(values.map(bar)))).toEqual(expected);
  });

  it('one row per bar, label escaped', () => {
    const html = barChart([{ label: '<b>', value: 1, color: '#000000', valueHtml: '1' }]);
    expect(html.match(/<tr><td>/g)).toHaveLength(1);
    expect(html).toContain('<td>&lt;b&gt;</td>');
  });
});

describe('keepWords', () => {
  it.each([
    ['T-Mobile', '<span style="white-space:nowrap;">T-Mobile</span>'],
    ['thm run --wait', 'thm run <span style="white-space:nowrap;">--wait</span>'],
    ['Comcast Cable', 'Comcast Cable'],
    ['AT&T-Net <x>', '<span style="white-space:nowrap;">AT&amp;T-Net</span> &lt;x&gt;'],
    // Longer than a phone line may need: left breakable.
    ['a-very-long-hyphenated-name-of-an-isp', 'a-very-long-hyphenated-name-of-an-isp'],
  ])('%j', (text, expected) => {
    expect(keepWords(text)).toBe(expected);
  });
});
