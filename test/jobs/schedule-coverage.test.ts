import { describe, expect, it } from 'vitest';
import {
  configDifferences,
  configDriftIsProblem,
  scheduleCoverage,
} from '../../src/jobs/schedule-coverage.js';
import type { WorkerAdvert } from '../../src/store/worker-adverts.js';

const advert = (
  instance: string,
  schedulers: Record<string, string>,
  settings: Partial<WorkerAdvert['settings']> = {},
): WorkerAdvert => ({
  instance,
  version: '0.1.0',
  storageFormat: 2,
  startedAt: 0,
  configAt: 0,
  liveUntil: 1,
  sweepIntervalMs: 60_000,
  schedulers,
  settings: {
    global: 'g',
    networks: Object.fromEntries(Object.keys(schedulers).map((id) => [id.split(':')[1]!, 'n'])),
    ...settings,
  },
});
const daily = '0 7 * * * UTC';
const full = {
  'traffic-check:acme': daily,
  'traffic-check:globex': daily,
  'traffic-check:initech': daily,
};

describe('scheduleCoverage', () => {
  it.each([
    [
      'no workers: nothing held, everything unheld',
      [],
      ['traffic-check:acme'],
      { missing: [], unheld: ['traffic-check:acme'], variants: 0 },
    ],
    [
      'one worker, all present',
      [advert('a-1', full)],
      Object.keys(full),
      { missing: [], unheld: [], variants: 1 },
    ],
    [
      'one worker after a FLUSHALL: all missing, held by it',
      [advert('a-1', full)],
      [],
      {
        missing: Object.keys(full).map((id) => ({ id, heldBy: ['a-1'] })),
        unheld: [],
        variants: 1,
      },
    ],
    [
      'a scheduler only a gone worker held',
      [advert('a-1', { 'traffic-check:acme': daily })],
      ['traffic-check:acme', 'traffic-check:old'],
      { missing: [], unheld: ['traffic-check:old'], variants: 1 },
    ],
    [
      'two workers, one lacking two networks: held by the other, nothing missing',
      [advert('b-2', { 'traffic-check:acme': daily }), advert('a-1', full)],
      Object.keys(full),
      { missing: [], unheld: [], variants: 2 },
    ],
  ])('%s', (_, adverts, existing, expected) => {
    expect(scheduleCoverage(adverts, existing)).toMatchObject(expected);
  });
});

describe('configDifferences: how the live workers configs differ, one line per kind', () => {
  it.each([
    ['one worker', [advert('a-1', full)], []],
    ['the same config twice', [advert('a-1', full), advert('b-2', full)], []],
    [
      'a replica lacking networks: one line for all it lacks',
      [advert('a-1', full), advert('b-2', { 'traffic-check:acme': daily })],
      ['traffic-check:globex, traffic-check:initech: held by a-1, not by b-2'],
    ],
    [
      'a cron changed on one',
      [
        advert('a-1', { 'traffic-check:acme': daily }),
        advert('b-2', { 'traffic-check:acme': '0 6 * * * Europe/Berlin' }),
      ],
      ['traffic-check:acme: 0 7 * * * UTC on a-1; 0 6 * * * Europe/Berlin on b-2'],
    ],
    [
      "a network's recipients changed on one, and the global settings",
      [
        advert('a-1', full),
        advert('b-2', full, {
          global: 'other',
          networks: { acme: 'n', globex: 'changed', initech: 'changed' },
        }),
      ],
      [
        'settings of globex, initech differ (recipients, alerts ...): a-1 | b-2',
        'global settings differ (api, mail, worker ...): a-1 | b-2',
      ],
    ],
    [
      'three workers, two alike',
      [advert('a-1', full), advert('b-2', full), advert('c-3', { 'traffic-check:acme': daily })],
      ['traffic-check:globex, traffic-check:initech: held by a-1, b-2, not by c-3'],
    ],
  ])('%s', (_, adverts, expected) => {
    expect(configDifferences(adverts)).toEqual(expected);
  });
});

describe('config drift: since when the configs differ, and when that is a problem', () => {
  const at = (a: WorkerAdvert, configAt: number): WorkerAdvert => ({ ...a, configAt });
  const older = { 'traffic-check:acme': daily };
  it.each([
    ['one worker', [at(advert('a-1', full), 100)], undefined],
    ['two alike', [at(advert('a-1', full), 100), at(advert('b-2', full), 500)], undefined],
    [
      'a rolling deploy: since the first replica took up the new config',
      [at(advert('a-1', full), 900), at(advert('b-2', older), 100), at(advert('c-3', full), 1_200)],
      900,
    ],
    [
      'a replica left behind restarts: since it took up its config again',
      [at(advert('a-1', full), 100), at(advert('b-2', older), 5_000)],
      5_000,
    ],
    [
      'three configs: since the second appeared',
      [
        at(advert('a-1', full), 100),
        at(advert('b-2', older), 300),
        at(advert('c-3', { 'traffic-check:globex': daily }), 200),
      ],
      200,
    ],
  ])('%s', (_, adverts, since) => {
    expect(scheduleCoverage(adverts, Object.keys(full)).differingSince).toBe(since);
  });

  const grace = 30 * 60_000;
  const differing = { differences: ['traffic-check:globex: held by a-1, not by b-2'] };
  it.each([
    ['agreeing', { differences: [] }, 10 * grace, false],
    ['differing for less than the grace', { ...differing, differingSince: 0 }, grace - 1, false],
    ['differing for the grace', { ...differing, differingSince: 0 }, grace, true],
    ['differing for longer', { ...differing, differingSince: 0 }, 3 * grace, true],
  ])('%s', (_, coverage, now, expected) => {
    expect(configDriftIsProblem(coverage, grace, now)).toBe(expected);
  });

  it('no grace: a problem at once', () => {
    expect(configDriftIsProblem({ ...differing, differingSince: 500 }, 0, 500)).toBe(true);
  });
});
