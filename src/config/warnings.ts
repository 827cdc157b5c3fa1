import { statSync } from 'node:fs';
import { cronParser } from '../cron.js';
import { dstGapChecker } from '../dst-gaps.js';
import type { ParsedNetwork } from './schema.js';

/**
 * What is valid but probably not meant, said by `thm config check` and logged by the worker at
 * start (and on a reload): a cron that fires inside a daylight-saving gap of its zone (that
 * day's run is skipped or shifted), and a cron that fires more often than hourly (every run
 * reads the network's whole trend list from the partner API; the data changes once a day), and
 * an apiKeyFile every user of the machine can read.
 */
export interface ConfigWarning {
  network: string;
  /** e.g. `networks[0].trafficCheck.cron` */
  field: string;
  message: string;
}

type WarnedNetwork = Pick<ParsedNetwork, 'id' | 'timezone' | 'trafficCheck' | 'invoices'> & {
  /** The resolved apiKeyFile, when the key comes from a file. */
  apiKeyPath?: string;
};

export function configWarnings(
  networks: readonly WarnedNetwork[],
  now = Date.now(),
): ConfigWarning[] {
  const inDstGap = dstGapChecker(now);
  // Per (pattern, zone), asked once: a fleet's networks mostly share a schedule, and walking a
  // cron through two days for each network would hold up a large fleet's worker start.
  const schedules = new Map<string, { gaps: string[]; interval: number }>();
  const schedule = (pattern: string, timeZone: string) => {
    const key = `${timeZone} ${pattern}`;
    let known = schedules.get(key);
    if (known === undefined) {
      known = {
        gaps: inDstGap(pattern, timeZone),
        interval: shortestIntervalMs(pattern, timeZone, now),
      };
      schedules.set(key, known);
    }
    return known;
  };
  const warnings: ConfigWarning[] = [];
  networks.forEach((network, index) => {
    const keyFile = worldReadable(network.apiKeyPath);
    if (keyFile) {
      warnings.push({
        network: network.id,
        field: `networks[${index}].apiKeyFile`,
        message: `${network.apiKeyPath} can be read by every user of this machine (mode ${keyFile}): chmod 600 it`,
      });
    }
    const crons: Array<[string, string]> = [['trafficCheck.cron', network.trafficCheck.cron]];
    if (network.invoices.enabled) crons.push(['invoices.cron', network.invoices.cron]);
    for (const [name, pattern] of crons) {
      const field = `networks[${index}].${name}`;
      const { gaps, interval } = schedule(pattern, network.timezone);
      if (gaps.length > 0) {
        warnings.push({
          network: network.id,
          field,
          message: `"${pattern}" falls in a daylight-saving gap of ${network.timezone} (local ${gaps.join(', ')}): that day's run may be skipped or shifted; pick a time outside 01:00-03:59`,
        });
      }
      if (interval < 3_600_000) {
        warnings.push({
          network: network.id,
          field,
          message: `"${pattern}" fires every ${describeInterval(interval)}: more often than hourly, and each run reads the whole list from the partner API, whose data changes once a day`,
        });
      }
    }
  });
  return warnings;
}

/** The file's mode (e.g. `0644`) when others may read it, else undefined (or unreadable). */
function worldReadable(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    const mode = statSync(file).mode & 0o777;
    return mode & 0o004 ? `0${mode.toString(8)}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The shortest time between two fires over the next two days (enough for any daily shape);
 * Infinity when it fires at most once in that time.
 */
export function shortestIntervalMs(pattern: string, timeZone: string, now: number): number {
  const end = now + 2 * 86_400_000;
  let shortest = Infinity;
  try {
    const fires = cronParser().parseExpression(pattern, {
      tz: timeZone,
      currentDate: new Date(now),
    });
    let previous = fires.next().getTime();
    // Bounded: a per-minute cron fires 2,880 times in two days, a per-second one stops here.
    for (let i = 0; i < 3_000 && previous < end; i++) {
      const next = fires.next().getTime();
      shortest = Math.min(shortest, next - previous);
      previous = next;
    }
  } catch {
    // No further fire (cron-parser throws at the end of its range): nothing to compare.
  }
  return shortest;
}

function describeInterval(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const minutes = Math.round(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
