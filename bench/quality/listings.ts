import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isoDateOfDay } from '../../src/dates.js';
import { listedEntries, SIM_DAYS, type SimNetwork } from './model.js';
import { seedNetworks, type QualityOptions } from './simulate.js';

/**
 * A simulated network's days as a listing file, what `thm replay --listings FILE` reads
 * (docs/replay.md): one JSON line per as-of day, the entries as the API would list them.
 */
export function listingFileText(network: SimNetwork): string {
  const lines: string[] = [];
  for (let asOf = 1; asOf <= SIM_DAYS; asOf++) {
    const entries = listedEntries(network, asOf);
    lines.push(JSON.stringify({ asOf: isoDateOfDay(network.day0 + asOf), entries }));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `npm run quality -- --listings DIR`: every simulated network of the seeds, one file each,
 * `seed-<seed>-<network>.jsonl`. Returns the files written.
 */
export function writeListingFiles(
  dir: string,
  options: Pick<QualityOptions, 'seeds' | 'incidentNetworks' | 'quietNetworks' | 'level'>,
): string[] {
  mkdirSync(dir, { recursive: true });
  return options.seeds.flatMap((seed) =>
    seedNetworks(seed, options).map((network) => {
      const file = path.join(dir, `seed-${seed}-${network.name}.jsonl`);
      writeFileSync(file, listingFileText(network));
      return file;
    }),
  );
}
