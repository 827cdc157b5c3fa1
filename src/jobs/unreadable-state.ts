import type { NetworkConfig } from '../config/load.js';
import { localDate } from '../dates.js';
import { StoredStateError } from '../errors.js';
import type { RunDecision } from '../monitor/decide.js';
import type { IsoDate } from '../monitor/types.js';
import { renderRun } from '../notify/render-run.js';
import type { ChannelDelivery, Notification } from '../notify/types.js';
import type { NetworkState } from '../store/redis-store.js';
import type { Runtime } from './runtime.js';

/**
 * The problem episode of a network whose own stored state cannot be read (StoredStateError: a
 * field that does not parse, or its key holding another Redis type). Its runs can record
 * nothing in its hash, so the episode is kept beside it (`P:store:unreadable`), and the
 * episode behaves as any other (docs/design.md, "Guarantees"): one problem notice when it
 * opens, however many runs and as-of dates fail while it lasts; once the state reads again
 * (repaired, or deleted), the worker's sweep hands the episode over to the network's hash as
 * its open problem, and the next successful traffic-check closes it with one "restored".
 */

/**
 * A final failure of a run whose network's state is unreadable: the problem notice decided from
 * an empty state goes into the outbox with the episode, unless the episode is open already.
 * Returns what was added (undefined: nothing, the episode was open).
 */
export async function openUnreadableEpisode(
  rt: Runtime,
  network: NetworkConfig,
  asOf: IsoDate,
  decide: (state: NetworkState, now: number) => RunDecision,
  cause: StoredStateError,
): Promise<{ emails: Notification[]; deliveries: ChannelDelivery[] } | undefined> {
  const now = rt.now();
  const decision = decide(emptyState(), now);
  if (!decision.problem) return undefined;
  const { emails, deliveries } = renderRun(decision.notifications, {
    network,
    asOf,
    from: rt.config.mail.from,
    now,
  });
  const opened = await rt.store.openUnreadableEpisode(network.id, decision.problem, [
    ...emails,
    ...deliveries,
  ]);
  const fields = { network: network.id, asOf, key: cause.key, field: cause.field };
  if (!opened) {
    rt.logger.error(fields, 'stored state still unreadable: its problem notice went out already');
    return undefined;
  }
  rt.logger.error(
    { ...fields, emails: emails.length, channelDeliveries: deliveries.length },
    'stored state unreadable: problem notice queued without a run record',
  );
  return { emails, deliveries };
}

/**
 * The worker's sweep: every open unreadable-state episode of a configured network whose state
 * now loads is handed over to it. Returns the networks handed over.
 */
export async function handOverRepairedEpisodes(
  rt: Pick<Runtime, 'store' | 'config' | 'logger'>,
  now: number,
): Promise<string[]> {
  const handed: string[] = [];
  for (const networkId of await rt.store.unreadableEpisodeNetworks()) {
    const network = rt.config.networks.find((n) => n.id === networkId);
    if (!network) continue;
    try {
      await rt.store.loadNetworkState(networkId, {
        asOf: localDate(now, network.timezone),
        kind: 'traffic-check',
        now,
      });
    } catch (error) {
      if (error instanceof StoredStateError) continue; // still unreadable: the episode goes on
      throw error;
    }
    if (await rt.store.handOverUnreadableEpisode(networkId)) {
      rt.logger.info(
        { network: networkId },
        'stored state readable again: its problem episode goes on in the network state, closed by the next successful traffic-check',
      );
      handed.push(networkId);
    }
  }
  return handed;
}

function emptyState(): NetworkState {
  return { rev: 0, active: [], runs: [], silences: [], sentEvents: new Set() };
}
