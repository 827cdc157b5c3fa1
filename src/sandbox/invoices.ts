import type { InvoiceSummary } from '../api/schemas.js';
import { daysBetween } from '../dates.js';
import { rngFor } from './random.js';
import type { SandboxNetwork } from './scenario.js';

/**
 * The partner invoice summary of a network on an as-of date for a `filters.status`: the
 * scenario's explicit figures when it has them, else generated figures that drift from day to
 * day (more invoices billed, some paid), deterministic in (seed, network, status, day).
 */
const EPOCH = '2026-01-01';
const round2 = (n: number) => Math.round(n * 100) / 100;

export function invoiceSummary(
  seed: number,
  network: SandboxNetwork,
  day: string,
  status: string,
): InvoiceSummary {
  const explicit = network.days[day]?.summaries?.[status];
  if (explicit) return explicit;
  const fixed = rngFor(seed, 'invoice', network.id, status);
  const daily = rngFor(seed, 'invoice-day', network.id, status, day);
  const dayIndex = Math.max(0, daysBetween(EPOCH, day));
  const totalCount = 8 + Math.floor(fixed() * 30) + (dayIndex % 13) + Math.floor(daily() * 4);
  const billed = round2(4_000 + fixed() * 20_000 + dayIndex * 173.25 + daily() * 900);
  const paid = round2(billed * (0.45 + 0.35 * daily()));
  return { total_count: totalCount, balance: round2(billed - paid), billed, paid };
}
