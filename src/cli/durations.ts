import { UsageError } from '../errors.js';
import { isUtc, wallClock } from '../dates.js';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** "30m", "12h", "7d", "2w" (or combined, "1d12h") to milliseconds. */
export function parseDuration(text: string, option = '--for'): number {
  const trimmed = text.trim();
  const parts = [...trimmed.matchAll(/(\d+)\s*([mhdw])/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed.replace(/\s/g, '') !== trimmed.replace(/\s/g, '')) {
    throw new UsageError(`${option}: "${text}" is not a duration (examples: 30m, 12h, 7d, 2w)`);
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] ?? ''] ?? 0), 0);
  if (ms <= 0) throw new UsageError(`${option}: must be longer than zero`);
  if (ms > 366 * 86_400_000) throw new UsageError(`${option}: at most a year`);
  return ms;
}

export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 3_600_000) return `${Math.round(abs / 60_000)}m`;
  if (abs < 2 * 86_400_000) return `${Math.round(abs / 3_600_000)}h`;
  return `${Math.round(abs / 86_400_000)}d`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** An RFC 3339 time with its offset ("2026-11-24T22:00:00+01:00", "...Z") to epoch ms. */
export function parseTime(text: string, option: string): number {
  const trimmed = text.trim();
  const ms = RFC3339.test(trimmed) ? Date.parse(trimmed.replace(' ', 'T')) : NaN;
  if (!Number.isFinite(ms)) {
    throw new UsageError(
      `${option}: "${text}" is not an RFC 3339 time with an offset (e.g. 2026-11-24T22:00:00+01:00 or 2026-11-24T21:00:00Z)`,
    );
  }
  return ms;
}

/** "2026-11-24 21:00 UTC": an absolute time for tables. */
export function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * "2026-11-23 07:00 UTC (08:00 Europe/Berlin)": a time in UTC and in a network's zone (its date
 * too when that differs), as `thm status` shows them.
 */
export function formatZoned(ms: number, timeZone: string): string {
  const utc = formatUtc(ms);
  if (isUtc(timeZone)) return utc;
  const clock = wallClock(ms, timeZone);
  const date = `${clock.year}-${clock.month}-${clock.day}`;
  const time = `${clock.hour}:${clock.minute}`;
  return `${utc} (${date === utc.slice(0, 10) ? '' : `${date} `}${time} ${timeZone})`;
}
