import { invoiceChange } from '../monitor/invoice.js';
import type { InvoiceSnapshot, RunRecord } from '../monitor/types.js';
import { renderInvoiceEmail } from '../notify/render/invoice.js';
import type { Notification } from '../notify/types.js';
import { enqueueDeliveries, type Runtime } from './runtime.js';
import {
  alreadyDone,
  displayOf,
  notifier,
  type CheckOutcome,
  type CheckRequest,
} from './traffic-check.js';

const MAX_CONFLICT_RETRIES = 5;

/**
 * invoice-snapshot: the partner invoice summary for the configured status, stored as a
 * snapshot with its change since the previous one, e-mailed when `invoices.notify` is on.
 */
export async function runInvoiceSnapshot(
  rt: Runtime,
  request: CheckRequest,
): Promise<CheckOutcome> {
  const network = rt.network(request.networkId);
  const startedAt = rt.now();
  let state = await rt.store.loadNetworkState(network.id, {
    asOf: request.asOf,
    kind: 'invoice-snapshot',
    now: startedAt,
  });
  if (state.run && state.run.outcome !== 'failed' && !request.force) return alreadyDone(state.run);

  const summary = await rt.apiClient(network).getInvoiceSummary(network.invoices.status);
  const snapshot: InvoiceSnapshot = {
    time: Math.floor(rt.now() / 1000),
    status: network.invoices.status,
    total_count: summary.total_count,
    balance: summary.balance,
    billed: summary.billed,
    paid: summary.paid,
  };

  for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt += 1) {
    const now = rt.now();
    const previous =
      state.latestInvoice?.status === snapshot.status ? state.latestInvoice : undefined;
    const change = invoiceChange(previous, snapshot);
    const notifications: Notification[] = [];
    if (network.invoices.notify) {
      const email = renderInvoiceEmail({
        network: displayOf(network),
        asOf: request.asOf,
        snapshot,
        change,
      });
      notifications.push(
        notifier(rt, network, request.asOf, now)('invoice', email, [`invoice|${snapshot.time}`]),
      );
    }
    const run: RunRecord = {
      networkId: network.id,
      kind: 'invoice-snapshot',
      asOf: request.asOf,
      outcome: 'ok',
      startedAt,
      finishedAt: now,
      notificationIds: notifications.map((n) => n.id),
      runs: (state.run?.runs ?? 0) + 1,
    };
    const result = await rt.store.commitRun({
      networkId: network.id,
      expectedRev: state.rev,
      run,
      force: request.force,
      notifications,
      invoiceSnapshot: { snapshot, keep: network.invoices.keep },
    });
    if (result.committed) {
      await enqueueDeliveries(rt.mailQueue, run.notificationIds);
      return {
        networkId: network.id,
        kind: 'invoice-snapshot',
        asOf: request.asOf,
        status: 'done',
        outcome: 'ok',
        notifications: notifications.map((n) => ({ id: n.id, kind: n.kind, subject: n.subject })),
        emailDecided: notifications.length > 0,
        notificationIds: [...run.notificationIds],
      };
    }
    if (result.reason === 'exists' && result.run) return alreadyDone(result.run);
    state = await rt.store.loadNetworkState(network.id, {
      asOf: request.asOf,
      kind: 'invoice-snapshot',
      now: rt.now(),
    });
  }
  throw new Error(
    `invoice-snapshot of ${network.id} for ${request.asOf}: state kept changing under it`,
  );
}
