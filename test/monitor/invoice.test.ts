import { describe, expect, it } from 'vitest';
import { invoiceChange } from '../../src/monitor/invoice.js';
import type { InvoiceSnapshot } from '../../src/monitor/types.js';

const snap = (over: Partial<InvoiceSnapshot> = {}): InvoiceSnapshot => ({
  time: 1_700_000_000,
  status: 'unpaid',
  total_count: 10,
  balance: 100.1,
  billed: 0.1,
  paid: 0,
  ...over,
});

describe('invoiceChange', () => {
  it('none for the first snapshot', () => {
    expect(invoiceChange(undefined, snap())).toBeUndefined();
  });

  it('next minus previous, without floating-point noise', () => {
    expect(
      invoiceChange(snap(), snap({ total_count: 12, balance: 100.3, billed: 0.3, paid: -5 })),
    ).toEqual({ total_count: 2, balance: 0.2, billed: 0.2, paid: -5 });
  });

  it('zero change is reported as zeros', () => {
    expect(invoiceChange(snap(), snap({ time: 1_700_086_400 }))).toEqual({
      total_count: 0,
      balance: 0,
      billed: 0,
      paid: 0,
    });
  });

  it('none when the status filter differs', () => {
    expect(invoiceChange(snap(), snap({ status: 'paid' }))).toBeUndefined();
  });
});
