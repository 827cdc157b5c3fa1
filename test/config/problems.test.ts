import { describe, expect, it } from 'vitest';
import { closest, editDistance, objectKeysAt } from '../../src/config/problems.js';
import { configSchema } from '../../src/config/schema.js';
import { configWarnings } from '../../src/config/warnings.js';

describe('did you mean', () => {
  it.each([
    ['prefx', ['url', 'prefix'], 'prefix'],
    ['Prefix', ['url', 'prefix'], 'prefix'],
    ['minDropPrecent', ['minDropPercent', 'minSignificance'], 'minDropPercent'],
    ['recipents', ['recipients', 'timezone'], 'recipients'],
    ['minBaseline', ['minBaselineClicks', 'minDropPercent'], 'minBaselineClicks'],
    ['minbaseline', ['minBaselineClicks', 'minDropPercent'], 'minBaselineClicks'],
    ['min', ['minBaselineClicks', 'minDropPercent'], undefined],
    ['minDrop', ['minDropPercent', 'minSignificance'], 'minDropPercent'],
    ['minDrop', ['minDropPercent', 'minDropPercentSteady'], undefined],
    ['color', ['url', 'prefix'], undefined],
    ['x', ['url'], undefined],
  ])('%s among %j -> %s', (word, candidates, expected) => {
    expect(closest(word, candidates)).toBe(expected);
  });

  it('counts a transposition as one edit', () => {
    expect(editDistance('prefxi', 'prefix')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('finds the options allowed at a path, through defaults and lists', () => {
    expect(objectKeysAt(configSchema, ['redis'])).toEqual(
      expect.arrayContaining(['url', 'prefix']),
    );
    expect(objectKeysAt(configSchema, ['networks', 3, 'alerts'])).toContain('minBaselineClicks');
    expect(objectKeysAt(configSchema, ['networks', 0, 'recipients'])).toEqual([]);
  });
});

describe('start-up warnings', () => {
  const network = (cron: string, timezone = 'UTC') => ({
    id: 'acme',
    timezone,
    trafficCheck: { cron, graceMinutes: 120 },
    invoices: { enabled: false, cron: '0 8 * * *', status: 'unpaid', notify: false, keep: 400 },
  });
  const now = Date.parse('2026-11-23T00:00:00Z');

  it.each([
    ['0 7 * * *', 'UTC', []],
    ['0 * * * *', 'UTC', []],
    ['*/15 * * * *', 'UTC', ['fires every 15 minutes']],
    ['* * * * * *', 'UTC', ['fires every 1 s']],
    [
      '30 2 * * *',
      'Europe/Berlin',
      ['daylight-saving gap of Europe/Berlin (local 2027-03-28 02:30)'],
    ],
    ['30 2 * * *', 'UTC', []],
  ])('%s in %s', (cron, zone, expected) => {
    const messages = configWarnings([network(cron, zone)], now).map((w) => w.message);
    expect(messages).toHaveLength(expected.length);
    expected.forEach((text, i) => expect(messages[i]).toContain(text));
  });
});
