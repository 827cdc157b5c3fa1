import { describe, expect, it } from 'vitest';
import type { ClassifiedPair, ListedRun } from '../../src/monitor/types.js';
import {
  EVIDENCE_LEGEND,
  evidenceOf,
  measureOf,
  runReason,
  strengthOf,
  timesInWords,
} from '../../src/notify/render/evidence.js';
import { significanceOf } from '../../src/monitor/significance.js';
import { figuresFrom } from './example-alert.js';

const run = (days: number, perDay = { clicks: 700, d7: 1000 }): ListedRun => ({
  since: '2026-03-01',
  last: '2026-03-06',
  days,
  clicks: perDay.clicks * days,
  d7: perDay.d7 * days,
  d14: perDay.d7 * days,
});

/** A pair with yesterday's and 7-days-back clicks (14 and 30 back as 7). */
const pair = (
  yesterday: number,
  d7: number,
  more: Partial<ClassifiedPair> = {},
): Pick<
  ClassifiedPair,
  'significance' | 'dropPercent' | 'run' | 'steady' | 'entry' | 'figures' | 'commonShare'
> => ({
  significance: 5,
  dropPercent: (1 - yesterday / d7) * 100,
  figures: figuresFrom([yesterday, d7, d7, d7], [0, 0, 0, 0], [0, 0, 0, 0]),
  ...more,
});

/** extra 0.01: a day's sd 10%, two days' sqrt(0.02) = 0.141, a typical move of 13%. */
const learned = { extra: 0.01, days: 40 };

describe('evidence in words', () => {
  it.each([
    [12, 'far beyond normal variation'],
    [10, 'far beyond normal variation'],
    [6.2, 'well beyond normal variation'],
    [3.5, 'beyond normal variation'],
    [2.4, 'at the edge of normal variation'],
    [1, 'within normal variation'],
    [-3, 'within normal variation'],
  ])('z %d: %s', (z, words) => {
    expect(strengthOf(z)).toBe(words);
  });

  it.each([
    [0.3, 'less than that'],
    [0.75, 'about that much'],
    [1.24, 'about that much'],
    [1.5, 'about one and a half times that'],
    [1.75, 'about twice that'],
    [2.49, 'about twice that'],
    [2.5, 'three times that'],
    [6.2, 'six times that'],
    [10.49, 'ten times that'],
    [10.5, 'more than ten times that'],
    [47, 'more than ten times that'],
  ])('%d typical moves: %s', (times, words) => {
    expect(timesInWords(times)).toBe(words);
  });

  it.each([
    [undefined, 31, undefined],
    [run(1), 31, undefined],
    [run(2), 12.4, 'down 2 days running, -12% in total'],
    [run(6), 31, 'down 6 days running, -31% in total'],
    [run(7), 35, 'down 7 days running, -35% in total'],
    // Longer: the comparison day 7 back lies inside the run, so no "in total".
    [run(9), 35, 'down 9 days running'],
  ])('why: run %o, drop %d -> %s', (r, dropPercent, reason) => {
    expect(runReason({ run: r, dropPercent })).toBe(reason);
  });
});

describe('the drop measured by the pair normal variation', () => {
  it("a large pair: the network's variation, as `thm status` says it, and the drop in it", () => {
    // 6,000 -> 2,000: chance (2 / 6,000.5) is under a tenth of the network's 0.02, so the
    // network's figure alone is named: 13%; ln(6,000.5 / 2,000.5) = 1.10 is 7.8 sd of 0.141
    // (0.868^7.8 = 0.33).
    expect(measureOf(pair(2000, 6000), learned)).toBe(
      "this network's clicks vary about 13% from day to day (learned over 40 days); this drop is eight times that",
    );
  });

  it('a small pair on a steady network: chance, said plainly', () => {
    // extra 0.0002 (2% a day): 60 -> 20, chance 2 / 60.5 = 0.033 is over ten times 0.0004: sd
    // 0.182, a move of 17%; ln(60.5 / 20.5) = 1.08 is 5.95 of them.
    expect(measureOf(pair(20, 60), { extra: 0.0002, days: 40 })).toBe(
      'at 60 clicks a day, chance moves this pair about 17% from day to day; this drop is six times that',
    );
  });

  it('without a learned variation the rule is chance alone, and the line says so', () => {
    // 1,000 -> 330: sd sqrt(2 / 1,000.5) = 0.045, a move of 4%; ln(1,000.5 / 330.5) = 1.11.
    expect(measureOf(pair(330, 1000), undefined)).toBe(
      'at 1,000 clicks a day, chance moves this pair about 4% from day to day; this drop is more than ten times that',
    );
  });

  it('a small pair on a varying network: chance outweighs the network, and says so', () => {
    // 60 -> 12: chance 0.033 against the network's 0.02: sd sqrt(0.053) = 0.230, a move of
    // 21%; ln(60.5 / 12.5) = 1.58 is 6.8 of them.
    expect(measureOf(pair(12, 60), learned)).toBe(
      "at 60 clicks a day, chance moves this pair more than this network's own variation does (13%, learned over 40 days): together about 21% from day to day; this drop is seven times that",
    );
  });

  it('a mid-sized pair: both named, the network first', () => {
    // 700 -> 400: chance 2 / 700.5 = 0.0029 against 0.02: sd 0.151, a move of 14%;
    // ln(700.5 / 400.5) = 0.56 is 3.7 of them.
    expect(measureOf(pair(400, 700), learned)).toBe(
      "at 700 clicks a day, this pair's clicks vary about 14% from day to day (this network's 13%, learned over 40 days, and chance); this drop is four times that",
    );
  });

  it("a drop judged against its domain's common drop counts only what lies beyond it", () => {
    // 1,000 with the domain down 40%: 600 expected, 300 seen; chance 1/1,000.5 + 1/600.5:
    // sd 0.151; ln(600.5 / 300.5) = 0.69 is 4.6 of them.
    expect(measureOf(pair(300, 1000, { commonShare: 0.6 }), learned)).toBe(
      "at 1,000 clicks a day, this pair's clicks vary about 14% from day to day (this network's 13%, learned over 40 days, and chance); beyond its domain's common drop of 40%, this drop is five times that",
    );
  });

  it('a steady decline: its days together, whose variation is a quarter over 4 days', () => {
    // 4 days of 760 against 1,000 (24% under); extra 0.004 (a move of 9% a day): per run
    // 0.008 / 4 + 2 / 4,000.5 = 0.0025, sd 0.05 (5%; a day's 0.1: 10%); ln(4,000.5 / 3,040.5)
    // = 0.274 is 5.5 of them. Together z = 5.4 (dropZ over 4 days); yesterday alone 1.4.
    const steady = pair(690, 1000, {
      significance: 1.4,
      dropPercent: 31,
      steady: true,
      run: run(4, { clicks: 760, d7: 1000 }),
    });
    expect(evidenceOf(steady, { extra: 0.004, days: 40 }).line).toBe(
      "Down 4 days running, -31% in total. At 1,000 clicks a day, this pair's clicks vary about 10% from day to day, about 5% over 4 days (this network's 9%, learned over 40 days, and chance); these 4 days are 24% under the same days a week before, five times that. Well beyond normal variation over the 4 days (z 5.4; yesterday alone 1.4).",
    );
  });

  it('a first run says the variation is a first estimate, one day says one day', () => {
    expect(measureOf(pair(2000, 6000), { extra: 0.0225, days: 0 })).toBe(
      "this network's clicks vary about 19% from day to day (a first estimate, nothing learned yet); this drop is five times that",
    );
    expect(measureOf(pair(2000, 6000), { extra: 0.0225, days: 1 })).toContain(
      '(learned over 1 day)',
    );
  });

  it('a network that barely varies at a huge pair: under 1%', () => {
    expect(measureOf(pair(900_000, 1_000_000), { extra: 0.00001, days: 40 })).toBe(
      "this network's clicks vary under 1% from day to day (learned over 40 days); this drop is more than ten times that",
    );
  });

  it('no clicks, no drop, or nothing 7 days back: no measure', () => {
    expect(measureOf({}, learned)).toBeUndefined();
    expect(measureOf(pair(1000, 1000), learned)).toBeUndefined();
    expect(measureOf(pair(1200, 1000), learned)).toBeUndefined();
    expect(measureOf(pair(0, 0), learned)).toBeUndefined();
  });
});

describe('the evidence line', () => {
  it('the run first, then the measure, then strength and z', () => {
    expect(evidenceOf(pair(2000, 6000, { significance: 6.24, run: run(3) }), learned)).toEqual({
      z: 6.2,
      strength: 'well beyond normal variation',
      reason: 'down 3 days running, -67% in total',
      measure:
        "this network's clicks vary about 13% from day to day (learned over 40 days); this drop is eight times that",
      line: "Down 3 days running, -67% in total. This network's clicks vary about 13% from day to day (learned over 40 days); this drop is eight times that. Well beyond normal variation (z 6.2).",
    });
  });

  it('without numbers: strength and z alone', () => {
    expect(evidenceOf({ significance: 40, dropPercent: 100 }).line).toBe(
      'Far beyond normal variation (z 40.0).',
    );
  });

  it('a steady decline without a learned variation: the run and chance', () => {
    // 3 days: 2,100 clicks against 3,000 on both weeks: (900 - 1) / sqrt(5,100) = 12.6.
    const e = evidenceOf({ significance: 2.4, dropPercent: 22, run: run(3), steady: true });
    expect(e.line).toBe(
      'Down 3 days running, -22% in total. At 1,000 clicks a day, chance moves this pair about 4% from day to day, about 3% over 3 days; these 3 days are 30% under the same days a week before, more than ten times that. Far beyond normal variation over the 3 days (z 12.6; yesterday alone 2.4).',
    );
  });

  it('the legend explains "times that" on the ratio scale, z and the setting', () => {
    expect(EVIDENCE_LEGEND).toContain('six moves of 11% (0.89^6 = 0.50), not 6 x 11%');
    expect(EVIDENCE_LEGEND).toMatch(/z: .*7 and 14 days back.*alerts\.minSignificance/);
  });
});

describe("the issue's and the docs' example", () => {
  it('"vary about 11% from day to day; this drop is six times that"', () => {
    // extra 0.0068: two days' sd sqrt(0.0136) = 0.117, a move of 11%; 5,000 -> 2,480:
    // ln(5,000.5 / 2,480.5) = 0.70 is 6.0 of it (0.89^6 = 0.50). z: chance (2,519 / sqrt(7,480)
    // = 29) and the variation (6.0) combined: 5.9.
    const e = evidenceOf(
      pair(2480, 5000, {
        significance: significanceOf(
          { yesterday: 2480, d7: 5000, d14: 5000 },
          { extra: 0.0068, share7: 1, share14: 1 },
        ),
        run: run(3),
      }),
      { extra: 0.0068, days: 40 },
    );
    expect(e.line).toBe(
      "Down 3 days running, -50% in total. This network's clicks vary about 11% from day to day (learned over 40 days); this drop is six times that. Well beyond normal variation (z 5.9).",
    );
  });
});
