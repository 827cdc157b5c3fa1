import { describe, expect, it } from 'vitest';
import { depressedAfterClear } from '../../src/monitor/classify.js';
import { addDays } from '../../src/dates.js';

describe('depressedAfterClear', () => {
  const first = '2026-01-28';
  // Spans cross a month end on purpose: days are counted between calendar dates.
  const table: { span: number; dropPercent: number; expected: boolean }[] = [
    { span: 4, dropPercent: 90, expected: false },
    { span: 5, dropPercent: 90, expected: true },
    { span: 6, dropPercent: 90, expected: true },
    { span: 8, dropPercent: 90, expected: true },
    { span: 9, dropPercent: 90, expected: false },
    { span: 6, dropPercent: 50, expected: true },
    { span: 6, dropPercent: 49.99, expected: false },
    { span: 0, dropPercent: 100, expected: false },
  ];
  it.each(table)('span $span days, last drop $dropPercent% -> $expected', (row) => {
    const pair = {
      firstSeen: first,
      lastSeen: addDays(first, row.span),
      dropPercent: row.dropPercent,
    };
    expect(depressedAfterClear(pair)).toBe(row.expected);
  });
});
