import type { InvoiceChange, InvoiceSnapshot } from './types.js';

/**
 * The change of an invoice summary since the previous snapshot: next minus previous, per
 * field. None for the first snapshot, and none when the status filter differs (a config
 * change from "unpaid" to "paid" is not a change of money). Amounts are rounded to 6 decimals
 * to drop binary floating-point noise (0.1 + 0.2), far below any currency's precision.
 */
export function invoiceChange(
  previous: InvoiceSnapshot | undefined,
  next: InvoiceSnapshot,
): InvoiceChange | undefined {
  if (previous === undefined || previous.status !== next.status) return undefined;
  return {
    total_count: next.total_count - previous.total_count,
    balance: roundAmount(next.balance - previous.balance),
    billed: roundAmount(next.billed - previous.billed),
    paid: roundAmount(next.paid - previous.paid),
  };
}

function roundAmount(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
