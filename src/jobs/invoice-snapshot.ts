import { decideInvoiceSnapshot } from '../monitor/decide.js';
import type { InvoiceSnapshot } from '../monitor/types.js';
import {
  checkOutcome,
  commitWithRetries,
  loadState,
  outboxIds,
  standingRun,
  type CheckOutcome,
  type CheckRequest,
} from './commit.js';
import { enqueueOutbox, type Runtime } from './runtime.js';

/**
 * invoice-snapshot: the partner invoice summary for the configured status, stored as a
 * snapshot with its change since the previous one, e-mailed when `invoices.notify` is on.
 * The same line as a traffic-check: load -> fetch -> decide -> render -> commit -> enqueue.
 */
export async function runInvoiceSnapshot(
  rt: Runtime,
  request: CheckRequest,
): Promise<CheckOutcome> {
  const network = rt.network(request.networkId);
  const startedAt = rt.now();
  const state = await loadState(rt, request, 'invoice-snapshot', startedAt);
  const standing = standingRun(state, request);
  if (standing) return checkOutcome({ status: 'already-done', run: standing });

  const summary = await rt.apiClient(network).getInvoiceSummary(network.invoices.status);
  const snapshot: InvoiceSnapshot = {
    time: Math.floor(rt.now() / 1000),
    status: network.invoices.status,
    total_count: summary.total_count,
    balance: summary.balance,
    billed: summary.billed,
    paid: summary.paid,
  };

  const committed = await commitWithRetries(
    rt,
    network,
    { ...request, kind: 'invoice-snapshot' },
    (current, now) =>
      decideInvoiceSnapshot({
        networkId: network.id,
        asOf: request.asOf,
        state: current,
        snapshot,
        invoices: network.invoices,
        startedAt,
        now,
      }),
    { first: state },
  );
  if (committed.status === 'done') await enqueueOutbox(rt, outboxIds(committed.run));
  return checkOutcome(committed);
}
