import type { NetworkConfig } from '../config/load.js';
import type { DecidedNotification } from '../monitor/decide.js';
import type { IsoDate } from '../monitor/types.js';
import { ThmError } from '../errors.js';
import { buildNotification } from './notification.js';
import { renderAlertEmail } from './render/alert.js';
import { renderInvoiceEmail } from './render/invoice.js';
import { renderPremiumEmail } from './render/premium.js';
import { renderProblemEmail } from './render/problem.js';
import { renderRestoredEmail } from './render/restored.js';
import type { Notification, RenderedEmail } from './types.js';

/**
 * The render step: the notifications a run decided (src/monitor/decide.ts), as e-mails with
 * their recipients, ids and Message-IDs, ready for the outbox. Pure, like the renderers.
 */
export interface RenderContext {
  network: Pick<NetworkConfig, 'id' | 'name' | 'recipients' | 'alerts'>;
  asOf: IsoDate;
  /** mail.from (the Message-ID's domain). */
  from: string;
  /** Epoch milliseconds: the notifications' createdAt. */
  now: number;
}

export function renderNotifications(
  decided: readonly DecidedNotification[],
  ctx: RenderContext,
): Notification[] {
  return decided.map((d) =>
    buildNotification({
      networkId: ctx.network.id,
      kind: d.kind,
      asOf: ctx.asOf,
      to: ctx.network.recipients,
      email: renderEmail(d, ctx),
      events: d.events,
      from: ctx.from,
      now: ctx.now,
    }),
  );
}

function renderEmail(d: DecidedNotification, ctx: RenderContext): RenderedEmail {
  const network = { id: ctx.network.id, name: ctx.network.name };
  const { asOf } = ctx;
  switch (d.kind) {
    case 'premium-lost':
    case 'premium-regained':
      return renderPremiumEmail({
        network,
        asOf,
        lost: d.kind === 'premium-lost',
        firstSight: d.firstSight,
      });
    case 'restored':
      return renderRestoredEmail({ network, asOf, problem: d.problem, restoredAt: d.restoredAt });
    case 'problem':
      return renderProblemEmail({ network, asOf, problem: d.problem });
    case 'invoice':
      return renderInvoiceEmail({ network, asOf, snapshot: d.snapshot, change: d.change });
    case 'alert': {
      const email = renderAlertEmail({
        network,
        asOf,
        classification: d.classification,
        notifyCleared: ctx.network.alerts.notifyCleared,
        latestInvoice: d.latestInvoice ? { snapshot: d.latestInvoice } : undefined,
      });
      // The decision sends an alert only when it carries pair events, which the e-mail lists.
      if (!email)
        throw new ThmError('THM_INTERNAL', `alert of ${network.id} decided with nothing to list`);
      return email;
    }
  }
}
