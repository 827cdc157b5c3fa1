import { describe, expect, it } from 'vitest';
import { datesOf, replayRange } from '../../src/replay/range.js';
import { replayVariants } from '../../src/replay/settings.js';
import { SETTINGS } from '../monitor/fixtures.js';

const DAY_MS = 86_400_000;

describe('replay --set', () => {
  it('without --compare: every --set changes the one replay', () => {
    expect(replayVariants(SETTINGS, [], false)).toEqual([
      { label: 'as configured', alerts: SETTINGS },
    ]);
    expect(
      replayVariants(
        SETTINGS,
        ['alerts.minDropPercent=30', 'alerts.notifyCleared=false,alerts.clearAfterRuns=3'],
        false,
      ),
    ).toEqual([
      {
        label: 'minDropPercent=30,notifyCleared=false,clearAfterRuns=3',
        alerts: { ...SETTINGS, minDropPercent: 30, notifyCleared: false, clearAfterRuns: 3 },
      },
    ]);
  });

  it('with --compare: the configured settings, then one replay per --set', () => {
    expect(
      replayVariants(
        SETTINGS,
        ['alerts.minSignificance=5', 'alerts.minDropPercent=30 , alerts.renotifyAfterDays=0'],
        true,
      ),
    ).toEqual([
      { label: 'as configured', alerts: SETTINGS },
      { label: 'minSignificance=5', alerts: { ...SETTINGS, minSignificance: 5 } },
      {
        label: 'minDropPercent=30,renotifyAfterDays=0',
        alerts: { ...SETTINGS, minDropPercent: 30, renotifyAfterDays: 0 },
      },
    ]);
    expect(() => replayVariants(SETTINGS, [], true)).toThrow(
      /^--compare: give the settings to compare, one --set each$/,
    );
  });

  const refused: Array<[string, RegExp]> = [
    [
      'alerts.minDropPercnt=30',
      /^--set alerts.minDropPercnt=30: unknown setting "alerts.minDropPercnt" \(did you mean "alerts.minDropPercent"\?\)$/,
    ],
    [
      'alerts.minDropPercent=abc',
      /^--set alerts.minDropPercent=abc: alerts.minDropPercent: expected a number, got text$/,
    ],
    ['alerts.minDropPercent=', /: alerts.minDropPercent: expected a number, got text$/],
    ['alerts.notifyCleared=yes', /: alerts.notifyCleared: expected true or false, got text$/],
    ['alerts.notifyCleared=1', /: alerts.notifyCleared: expected true or false, got a number$/],
    [
      'alerts.minBaselineClicks=2.5',
      /^--set alerts.minBaselineClicks=2.5: alerts.minBaselineClicks: /,
    ],
    ['alerts.minDropPercent=0', /^--set alerts.minDropPercent=0: alerts.minDropPercent: /],
    [
      'alerts.criticalDropPercent=10',
      /^--set alerts.criticalDropPercent=10: alerts.criticalDropPercent: must be at least alerts.minDropPercent \(20\)$/,
    ],
    ['minDropPercent=30', /^--set minDropPercent=30: expected alerts.KEY=VALUE/],
    ['alerts.minDropPercent', /^--set alerts.minDropPercent: expected alerts.KEY=VALUE/],
    ['redis.url=redis://x', /^--set redis.url=redis:\/\/x: expected alerts.KEY=VALUE/],
  ];

  it.each(refused)('%s: a usage error naming it', (set, message) => {
    for (const compare of [false, true]) {
      let error: { code?: string; message?: string } | undefined;
      try {
        replayVariants(SETTINGS, [set], compare);
      } catch (e) {
        error = e as typeof error;
      }
      expect(error?.code).toBe('THM_USAGE');
      expect(error?.message).toMatch(message);
    }
  });

  it('a value the configured settings make wrong names the --set that made it so', () => {
    expect(() => replayVariants(SETTINGS, ['alerts.minDropPercent=60'], false)).toThrow(
      /^--set alerts.minDropPercent=60: alerts.criticalDropPercent: must be at least alerts.minDropPercent \(60\)$/,
    );
    expect(
      replayVariants(SETTINGS, ['alerts.minDropPercent=60,alerts.criticalDropPercent=70'], false)[0]
        ?.alerts,
    ).toMatchObject({ minDropPercent: 60, criticalDropPercent: 70 });
  });
});

describe('replay range', () => {
  const today = '2026-11-27';
  const cases: Array<[string, Parameters<typeof replayRange>[0], { from: string; to: string }]> = [
    ['neither: the days kept', {}, { from: '2026-08-30', to: today }],
    [
      '--since 30d: 30 as-of dates up to today',
      { sinceMs: 30 * DAY_MS },
      { from: '2026-10-29', to: today },
    ],
    ['--since 1d: today', { sinceMs: DAY_MS }, { from: today, to: today }],
    ['--since 2w', { sinceMs: 14 * DAY_MS }, { from: '2026-11-14', to: today }],
    ['--from alone: to today', { from: '2026-11-01' }, { from: '2026-11-01', to: today }],
    [
      '--from and --to',
      { from: '2026-10-01', to: '2026-10-20' },
      { from: '2026-10-01', to: '2026-10-20' },
    ],
    [
      '--to alone: the days kept up to it',
      { to: '2026-10-20' },
      { from: '2026-07-23', to: '2026-10-20' },
    ],
  ];
  it.each(cases)('%s', (_name, options, range) => {
    expect(replayRange(options, today, 90)).toEqual(range);
  });

  const refused: Array<[string, Parameters<typeof replayRange>[0], RegExp]> = [
    [
      '--since with --from',
      { sinceMs: DAY_MS, from: '2026-11-01' },
      /^--since: give either --since or --from\/--to, not both$/,
    ],
    ['--since in hours', { sinceMs: 36 * 3_600_000 }, /^--since: whole days or weeks/],
    ['--since over the limit', { sinceMs: 401 * DAY_MS }, /^--since: at most 400 days$/],
    ['a bad --from', { from: '2026-13-01' }, /^--from: "2026-13-01" is not a date YYYY-MM-DD$/],
    ['a bad --to', { to: 'yesterday' }, /^--to: "yesterday" is not a date YYYY-MM-DD$/],
    [
      '--from after --to',
      { from: '2026-11-02', to: '2026-11-01' },
      /^--from: 2026-11-02 is after --to \(2026-11-01\)$/,
    ],
    [
      'a range over the limit',
      { from: '2025-01-01', to: '2026-11-01' },
      /^--from: at most 400 days from --to$/,
    ],
  ];
  it.each(refused)('%s: a usage error', (_name, options, message) => {
    expect(() => replayRange(options, today, 90)).toThrow(message);
  });

  it('its dates, oldest first, both ends included', () => {
    expect(datesOf({ from: '2026-02-27', to: '2026-03-02' })).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
  });
});
