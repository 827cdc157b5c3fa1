import type { ProblemEpisode } from '../monitor/types.js';
import type { ChannelDelivery, Notification } from '../notify/types.js';
import { writeConfirmed } from './confirm.js';
import { networkCall, storeCall, type StoreContext } from './context.js';
import { FIELD } from './keys.js';
import { outboxArgs } from './outbox.js';
import { handOverEpisodeScript, unreadableProblemScript } from './scripts.js';

/**
 * The problem episodes of networks whose own state cannot be read: they cannot be kept in the
 * network's hash, so they wait beside it (store/keys.ts, unreadableEpisodes) until the state
 * reads again and is handed the episode (jobs/unreadable-state.ts).
 */

/**
 * A network whose own state cannot be read: opens its unreadable-state episode and puts the
 * problem notice (e-mails and channel deliveries) into the outbox, in one step (see
 * unreadableProblemScript). False, and nothing added, when the episode is open already: one
 * notice per episode, not one per failed run or as-of date.
 */
export async function openUnreadableEpisode(
  ctx: StoreContext,
  networkId: string,
  episode: ProblemEpisode,
  items: ReadonlyArray<Notification | ChannelDelivery>,
): Promise<boolean> {
  ctx.keys.network(networkId); // validates the id
  const keys = [ctx.keys.unreadableEpisodes, ctx.keys.outboxBody, ctx.keys.outboxPending];
  const added = (await storeCall('openUnreadableEpisode', () =>
    writeConfirmed(ctx.redis, keys[0]!, ctx.confirm, 'commit', () =>
      unreadableProblemScript.run(ctx.redis, keys, [
        networkId,
        JSON.stringify(episode),
        items.length,
        ...outboxArgs(items),
      ]),
    ),
  )) as number;
  return added >= 0;
}

/** The networks with an open unreadable-state episode. */
export async function unreadableEpisodeNetworks(ctx: StoreContext): Promise<string[]> {
  const ids = await storeCall('unreadableEpisodeNetworks', () =>
    ctx.redis.hkeys(ctx.keys.unreadableEpisodes),
  );
  return ids.sort();
}

/**
 * Ends the unreadable-state episode of a network whose state reads again (see
 * handOverEpisodeScript): it becomes the network's open problem, closed with one "restored"
 * notice by the next successful traffic-check. False when there was none.
 */
export async function handOverUnreadableEpisode(
  ctx: StoreContext,
  networkId: string,
): Promise<boolean> {
  const handed = await networkCall(ctx, networkId, 'handOverUnreadableEpisode', () =>
    handOverEpisodeScript.run(
      ctx.redis,
      [ctx.keys.unreadableEpisodes, ctx.keys.network(networkId)],
      [networkId, FIELD.problem, FIELD.rev],
    ),
  );
  return handed === 1;
}
