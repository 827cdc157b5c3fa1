import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SIGNIFICANCE_RULES } from '../../src/monitor/significance.js';
import { writeListingFiles } from './listings.js';
import { LEVELS, type VariationLevel } from './model.js';
import { DEFAULT_OPTIONS, runQuality, type QualityReport } from './simulate.js';
import { targetLine } from './targets.js';

/**
 * `npm run quality`: the alert-quality simulation (docs/alert-quality.md) with default
 * settings over the default seeds, at every level of extra-Poisson variation; prints a summary
 * per level and writes bench/quality.json. `--level NAME` runs one level.
 * `npm run quality -- --compare` runs every significance rule of SIGNIFICANCE_RULES at several
 * minSignificance values instead and prints one line each. `--seeds 9-40`, `--set NAME=NUMBER`
 * (an alert setting) and `--no-memory` (no listed runs) change what is run; then nothing is
 * written. `--listings DIR` writes each simulated network's days as a listing file for
 * `thm replay --listings` (docs/replay.md), and the report is not written either.
 */

function line(label: string, report: QualityReport): string {
  const shape = (name: string): string => {
    const s = report.shapes.find((x) => x.shape === name);
    return s
      ? `${s.medianDelay ?? '-'}/${s.maxDelay ?? '-'}${s.missed ? ` (${s.missed} missed)` : ''}`
      : '-';
  };
  return [
    label.padEnd(36),
    `noise ${report.noiseEmailsPer60DaysPerNetwork.toFixed(2).padStart(5)}/60d/net`,
    `quiet-day ${String(report.quietDayEmails).padStart(3)}`,
    `noise pairs ${String(report.noisePairEvents).padStart(4)}`,
    `slide median ${report.slide.median ?? '-'}`,
    `filter ${shape('isp-filter')}`,
    `domain ${shape('domain-down')}`,
    `low-vol ${shape('low-volume')}`,
    `weekend ${shape('weekend-dip')}`,
  ].join('  ');
}

function summary(report: QualityReport): string {
  const h = report.holidays;
  const rows = report.shapes.map(
    (s) =>
      `  ${s.shape.padEnd(16)} ${String(s.incidents).padStart(3)} incidents  ` +
      `delay median ${String(s.medianDelay ?? '-').padStart(3)} max ${String(s.maxDelay ?? '-').padStart(3)}  ` +
      `first day ${(s.firstDayShare * 100).toFixed(0).padStart(3)}%  missed ${s.missed}  ` +
      `over budget ${s.overBudget}  split starts ${s.splitStarts}` +
      (s.medianClearLag === null ? '' : `  clear lag ${s.medianClearLag}/${s.maxClearLag}`) +
      (s.shape === 'escalation'
        ? `  worse delay ${s.medianEscalationDelay ?? '-'}/${s.maxEscalationDelay ?? '-'} (missed ${s.escalationsMissed})`
        : ''),
  );
  return [
    `alert quality, level ${report.level}: ${report.seeds.length} seeds, ${report.networks} networks x ${report.days / report.networks} days`,
    `  e-mails ${report.emails}, noise e-mails ${report.noiseEmails} ` +
      `(${report.noiseEmailsPer60DaysPerNetwork} per 60 days per network), ` +
      `on quiet days ${report.quietDayEmails} of ${report.quietDays} quiet days, ` +
      `noise pair events ${report.noisePairEvents}`,
    `  slide median delay per seed ${JSON.stringify(report.slide.perSeed)}, median ${report.slide.median}`,
    `  holidays ${h.count}: e-mailed ${h.emailed}, more than one e-mail ${h.overOneEmail}, ` +
      `network headline ${h.networkHeadlines}, most pairs listed ${h.maxPairsListed}, ` +
      `noise e-mails in the 4 runs after ${h.noiseAfter}`,
    targetLine(report),
    ...rows,
  ].join('\n');
}

/** `--set clearAfterRuns=3`: alert settings other than the defaults (nothing is written). */
function settingsOf(argv: string[]): Record<string, number> | undefined {
  const sets = argv.flatMap((arg, i) => (arg === '--set' ? [argv[i + 1] ?? ''] : []));
  if (sets.length === 0) return undefined;
  const settings: Record<string, number> = {};
  for (const set of sets) {
    const match = /^(\w+)=([\d.]+)$/.exec(set);
    if (!match) throw new Error('--set takes NAME=NUMBER, e.g. --set clearAfterRuns=3');
    settings[match[1] as string] = Number(match[2]);
  }
  return settings;
}

/** `--seeds 9-24`: other seeds than the default (a held-out check; nothing is written). */
function seedsOf(argv: string[]): number[] | undefined {
  const at = argv.indexOf('--seeds');
  if (at < 0) return undefined;
  const match = /^(\d+)-(\d+)$/.exec(argv[at + 1] ?? '');
  if (!match) throw new Error('--seeds takes FIRST-LAST, e.g. --seeds 9-24');
  const [first, last] = [Number(match[1]), Number(match[2])];
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** `--level moderate`: one level instead of all. */
function levelsOf(argv: string[]): VariationLevel[] | undefined {
  const at = argv.indexOf('--level');
  if (at < 0) return undefined;
  const level = argv[at + 1] ?? '';
  if (!(LEVELS as string[]).includes(level)) {
    throw new Error(`--level takes one of ${LEVELS.join(', ')}`);
  }
  return [level as VariationLevel];
}

function main(argv: string[]): void {
  const seeds = seedsOf(argv) ?? DEFAULT_OPTIONS.seeds;
  const settings = settingsOf(argv);
  const memory = !argv.includes('--no-memory');
  const levels = levelsOf(argv);
  const listings = argv.indexOf('--listings');
  if (listings >= 0) {
    const dir = argv[listings + 1];
    if (!dir) throw new Error('--listings takes a directory, e.g. --listings /tmp/listings');
    // One level's networks: poisson unless --level names another.
    const level = levels?.[0] ?? 'poisson';
    const files = writeListingFiles(dir, { ...DEFAULT_OPTIONS, level, seeds });
    console.log(`written ${files.length} listing files (${level}) in ${dir}, e.g.`);
    console.log(`  thm replay --network ID --listings ${files[0]}`);
    console.log(summary(runQuality({ ...DEFAULT_OPTIONS, level, seeds, settings, memory })));
    return;
  }
  if (argv.includes('--compare')) {
    for (const level of levels ?? LEVELS) {
      for (const [name, rule] of Object.entries(SIGNIFICANCE_RULES)) {
        for (const minSignificance of [2, 2.5, 3, 3.5, 4]) {
          const report = runQuality({
            ...DEFAULT_OPTIONS,
            level,
            seeds,
            rule,
            memory,
            settings: { ...settings, minSignificance },
          });
          console.log(line(`${level} ${name} >= ${minSignificance}`, report));
        }
      }
    }
    return;
  }
  const reports = (levels ?? LEVELS).map((level) =>
    runQuality({ ...DEFAULT_OPTIONS, level, seeds, settings, memory }),
  );
  for (const report of reports) console.log(summary(report));
  if (seeds !== DEFAULT_OPTIONS.seeds || settings || !memory || levels) return;
  const out = fileURLToPath(new URL('../../../bench/quality.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify({ levels: reports }, null, 2)}\n`);
  console.log(`written ${out}`);
}

main(process.argv.slice(2));
