import { RUN_KINDS, type RunKind } from '../monitor/types.js';

/**
 * Queue and job names, and the job ids that make triggers idempotent: one place.
 *
 * - `checks` queue: traffic-check and invoice-snapshot jobs, from the schedulers and the CLI.
 * - `mail` queue: one `deliver` job per outbox e-mail. Kept apart so a slow or failing SMTP
 *   server never holds up the checks.
 * - `channels` queue: one `deliver` job per channel delivery (webhook, Slack). Apart from the
 *   mail, so an endpoint that is down or slow never holds up the e-mail (nor the e-mail it).
 */
export const CHECKS_QUEUE = 'checks';
export const MAIL_QUEUE = 'mail';
export const CHANNELS_QUEUE = 'channels';

/** The checks queue's job names: the run kinds (src/monitor/types.ts). */
export type CheckKind = RunKind;
export const CHECK_KINDS: readonly CheckKind[] = RUN_KINDS;
export const DELIVER_JOB = 'deliver';

/** One scheduler per network and kind. */
export function schedulerId(kind: CheckKind, networkId: string): string {
  return `${kind}:${networkId}`;
}

export function parseSchedulerId(id: string): { kind: CheckKind; networkId: string } | undefined {
  const [kind, networkId] = id.split(':', 2);
  if (!networkId || !CHECK_KINDS.includes(kind as CheckKind)) return undefined;
  return { kind: kind as CheckKind, networkId };
}

// BullMQ refuses custom job ids with ':' (its own scheduler ids use it); ours use '.', which
// network ids (slugs) cannot contain.

/**
 * Manual triggers of the same network, kind and date share one job id while that job waits or
 * runs, so simultaneous triggers do the work once. A forced run gets its own id.
 */
export function manualJobId(
  kind: CheckKind,
  networkId: string,
  asOf: string,
  forceToken?: string,
): string {
  const id = `manual.${kind}.${networkId}.${asOf}`;
  return forceToken ? `${id}.force-${forceToken}` : id;
}

/**
 * While a deliver job for an outbox entry (an e-mail or a channel delivery) waits or runs,
 * re-enqueueing it is a no-op.
 */
export function deliverJobId(notificationId: string): string {
  return `deliver.${notificationId}`;
}
