import { cronParser } from './cron.js';
import { isUtc, wallClock } from './dates.js';

/**
 * Local wall-clock times that do not exist in a zone (the spring-forward gap) within the next
 * year, and whether the cron fires inside one. A cron like "30 2 * * *" in Europe/Berlin would
 * silently skip (or shift) a run once a year: worth a warning at start.
 *
 * For many crons at once: a zone's gaps are found once. Finding them scans a year hour by hour
 * through Intl, and a fleet's networks share a few zones: found per cron, a worker with a large
 * fleet would spend minutes on it before reconciling its schedulers.
 */
export function dstGapChecker(from = Date.now()): (pattern: string, timeZone: string) => string[] {
  const gapsByZone = new Map<string, DstGap[]>();
  return (pattern, timeZone) => {
    let gaps = gapsByZone.get(timeZone);
    if (!gaps) {
      gaps = dstGaps(timeZone, from);
      gapsByZone.set(timeZone, gaps);
    }
    return cronTimesInGaps(pattern, gaps);
  };
}

/** A spring-forward gap in local wall time, expressed as if it were UTC (epoch ms). */
interface DstGap {
  start: number;
  end: number;
}

function dstGaps(timeZone: string, from: number): DstGap[] {
  const gaps: DstGap[] = [];
  // None, and no Intl formatter made to find none: the first one loads ICU's data, which a
  // command whose crons are all in UTC never needs.
  if (isUtc(timeZone)) return gaps;
  const offsetAt = (t: number) => zoneOffsetMinutes(t, timeZone);
  const end = from + 366 * 86_400_000;
  let previous = offsetAt(from);
  for (let t = from; t < end; t += 3_600_000) {
    const current = offsetAt(t);
    if (current > previous) {
      // Clocks jumped forward by (current - previous) minutes somewhere in (t - 1h, t].
      let lo = t - 3_600_000;
      let hi = t;
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (offsetAt(mid) === previous) lo = mid;
        else hi = mid;
      }
      const start = Math.floor((hi + previous * 60_000) / 60_000) * 60_000;
      gaps.push({ start, end: start + (current - previous) * 60_000 });
    }
    previous = current;
  }
  return gaps;
}

function cronTimesInGaps(pattern: string, gaps: readonly DstGap[]): string[] {
  const found: string[] = [];
  for (const gap of gaps) {
    const fires = cronParser().parseExpression(pattern, {
      currentDate: new Date(gap.start - 1000),
      tz: 'UTC',
    });
    const next = fires.next().getTime();
    if (next < gap.end) found.push(new Date(next).toISOString().slice(0, 16).replace('T', ' '));
  }
  return found;
}

function zoneOffsetMinutes(epochMs: number, timeZone: string): number {
  const clock = wallClock(epochMs, timeZone);
  const asUtc = Date.UTC(
    Number(clock.year),
    Number(clock.month) - 1,
    Number(clock.day),
    Number(clock.hour),
    Number(clock.minute),
  );
  return Math.round((asUtc - Math.floor(epochMs / 60_000) * 60_000) / 60_000);
}
