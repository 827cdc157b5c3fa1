import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Platform } from './measure.js';

/**
 * The table of measured figures in docs/performance.md, generated from bench/results.json and
 * nowhere written by hand: `npm run bench` writes both, and `npm run bench:table` writes the
 * table again from the file. test/bench/results-table.test.ts checks that they agree.
 */

/** One measured figure beside its budget. */
export interface Figure {
  id: string;
  figure: string;
  measured: number;
  unit: string;
  target: string;
  met: boolean;
  /** Runs the median is of (absent: a single count). */
  runs?: number;
  /** [min, max] over those runs. */
  range?: [number, number];
}

/** bench/results.json */
export interface BenchResults {
  platform: Platform;
  figures: Figure[];
  /** Each step's own results, for whoever wants more than the figures. */
  details: Record<string, unknown>;
}

export const TABLE_START = '<!-- bench-results:start -->';
export const TABLE_END = '<!-- bench-results:end -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The table's Markdown, between (not including) the markers. */
export function renderResultsTable(results: BenchResults): string {
  const { platform, figures } = results;
  const lines = [
    `Measured on ${platform.cores} cores (1-minute load average ${platform.loadAverage.start} at the start, ${platform.loadAverage.end} at the end), Node ${platform.node}, Redis ${platform.redis}. A time or a ratio is the median of its runs, with their range.`,
    '',
    '| id | figure | measured | runs (range) | budget | met |',
    '|---|---|---|---|---|---|',
  ];
  for (const f of figures) {
    const runs =
      f.runs === undefined ? '' : `${f.runs}${f.range ? ` (${f.range[0]} - ${f.range[1]})` : ''}`;
    const measured = `${f.measured.toLocaleString('en-US')} ${f.unit}`.trim();
    lines.push(
      `| ${f.id} | ${cell(f.figure)} | ${cell(measured)} | ${runs} | ${cell(f.target)} | ${f.met ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

/** The repository root: dist/bench/ when compiled, bench/ in the sources. */
function repoRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === 'dist'
    ? path.resolve(here, '../..')
    : path.resolve(here, '..');
}

export const PERFORMANCE_DOC = 'docs/performance.md';
export const RESULTS_FILE = 'bench/results.json';

/** `text` with the part between the markers replaced by `table`. */
export function withTable(text: string, table: string): string {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`${PERFORMANCE_DOC}: no ${TABLE_START} ... ${TABLE_END} to put the table in`);
  }
  return `${text.slice(0, start + TABLE_START.length)}\n${table}\n${text.slice(end)}`;
}

/** Writes the table into docs/performance.md; returns the file's path (relative). */
export function writePerformanceTable(results: BenchResults): string {
  const file = path.join(repoRoot(), PERFORMANCE_DOC);
  writeFileSync(file, withTable(readFileSync(file, 'utf8'), renderResultsTable(results)));
  return PERFORMANCE_DOC;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = JSON.parse(
    readFileSync(path.join(repoRoot(), RESULTS_FILE), 'utf8'),
  ) as BenchResults;
  process.stderr.write(`written: the table in ${writePerformanceTable(results)}\n`);
}
