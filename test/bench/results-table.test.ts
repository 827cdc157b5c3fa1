import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PERFORMANCE_DOC,
  RESULTS_FILE,
  renderResultsTable,
  withTable,
  type BenchResults,
} from '../../bench/results-table.js';

const platform = {
  cores: 2,
  node: 'v24.0.0',
  redis: '7.0.15',
  loadAverage: { start: 1.2, end: 2.5 },
};

describe('the performance table', () => {
  it('in docs/performance.md is the one bench/results.json gives (no figure written by hand)', () => {
    const results = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as BenchResults;
    const doc = readFileSync(PERFORMANCE_DOC, 'utf8');
    expect(results.figures.length).toBeGreaterThan(0);
    expect(withTable(doc, renderResultsTable(results))).toBe(doc);
  });

  it('has a row a figure: median, runs and range, budget, and whether it is met', () => {
    const table = renderResultsTable({
      platform,
      figures: [
        {
          id: 'P1',
          figure: 'a | b',
          measured: 1.5,
          unit: 'x',
          target: '<= 3.0',
          met: true,
          runs: 5,
          range: [1.2, 1.9],
        },
        { id: 'P4', figure: 'bytes', measured: 91, unit: 'bytes', target: '<= 80', met: false },
      ],
      details: {},
    });
    expect(table.split('\n')).toEqual([
      'Measured on 2 cores (1-minute load average 1.2 at the start, 2.5 at the end), Node v24.0.0, Redis 7.0.15. A time or a ratio is the median of its runs, with their range.',
      '',
      '| id | figure | measured | runs (range) | budget | met |',
      '|---|---|---|---|---|---|',
      '| P1 | a \\| b | 1.5 x | 5 (1.2 - 1.9) | <= 3.0 | yes |',
      '| P4 | bytes | 91 bytes |  | <= 80 | **no** |',
    ]);
  });

  it('replaces only what is between the markers, and needs them', () => {
    const doc = 'intro\n<!-- bench-results:start -->\nold\n<!-- bench-results:end -->\nafter\n';
    expect(withTable(doc, 'new')).toBe(
      'intro\n<!-- bench-results:start -->\nnew\n<!-- bench-results:end -->\nafter\n',
    );
    expect(() => withTable('no markers', 'new')).toThrow(/bench-results:start/);
  });
});
