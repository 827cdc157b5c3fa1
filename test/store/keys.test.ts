import { describe, expect, it } from 'vitest';
import { indexLine, parseIndexLine, runField, sentField } from '../../src/store/keys.js';
import { DAY } from './fixtures.js';

/** The index line's reading by split, as it was written first: the reference. */
function bySplit(line: string): ReturnType<typeof parseIndexLine> {
  const space = line.indexOf(' ');
  const field = line.slice(space + 1);
  const [, finished, outcome] = line.slice(0, Math.max(space, 0)).split('|');
  const finishedAt = Number(finished);
  if (
    !field.startsWith('run:') ||
    !finished ||
    outcome === undefined ||
    !Number.isFinite(finishedAt)
  ) {
    return { field };
  }
  return { field, run: { kind: field.split(':')[1], outcome, finishedAt } };
}

describe('index lines', () => {
  it('reads back what indexLine writes', () => {
    const run = {
      kind: 'traffic-check' as const,
      outcome: 'ok' as const,
      finishedAt: 1_790_000_000_123,
    };
    expect(parseIndexLine(indexLine('2026-11-24', 'run:traffic-check:2026-11-24', run))).toEqual({
      field: 'run:traffic-check:2026-11-24',
      run: { kind: 'traffic-check', outcome: 'ok', finishedAt: 1_790_000_000_123 },
    });
    expect(parseIndexLine(indexLine('2026-11-24', 'sent:2026-11-24'))).toEqual({
      field: 'sent:2026-11-24',
    });
  });

  it('reads any line as the reading by split did, damaged and odd ones too', () => {
    let state = 17;
    const pick = <T>(items: readonly T[]): T => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return items[state % items.length]!;
    };
    const parts = [
      '2026-11-24',
      '',
      '17',
      '1790000000123',
      'x',
      'NaN',
      'Infinity',
      ' 5',
      '1e3',
      'ok',
      'failed',
      'a b',
    ];
    const fields = [
      'run:traffic-check:2026-11-24',
      'run:',
      'run:a',
      'run:x y',
      'sent:x',
      'runx',
      'run:a:b:c',
      '',
    ];
    const lines = [
      '',
      ' ',
      'run:x',
      '|1|ok run:x',
      '2026|1|ok run:',
      'a||ok run:x',
      'a|1| run:x',
      'a|1|ok|more run:x y',
    ];
    for (let i = 0; i < 5_000; i++) {
      const prefix = Array.from({ length: pick([1, 2, 3, 3, 3, 4]) }, () => pick(parts)).join('|');
      lines.push(`${prefix}${pick([' ', ' ', ' ', '', '  '])}${pick(fields)}`);
    }
    // Lines with a record's reading among them, not only lines without one.
    expect(lines.filter((line) => bySplit(line).run).length).toBeGreaterThan(100);
    for (const line of lines)
      expect(parseIndexLine(line), JSON.stringify(line)).toEqual(bySplit(line));
  });
});

describe('fields', () => {
  it('run and sent fields are dated per as-of date', () => {
    expect(runField('traffic-check', DAY)).toBe('run:traffic-check:2026-03-01');
    expect(sentField(DAY)).toBe('sent:2026-03-01');
  });
});
