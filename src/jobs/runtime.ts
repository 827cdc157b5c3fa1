import type { Queue } from 'bullmq';
import type { ApiClient, ApiClientOptions } from '../api/client.js';
import { createApiDispatcher, createNetworkApiClient } from '../api/client.js';
import type { Config, NetworkConfig } from '../config/load.js';
import type { Secret } from '../config/secret.js';
import { UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import { isChannelDeliveryId } from '../notify/channels/delivery-id.js';
import type { Notification } from '../notify/types.js';
import type { RedisStore } from '../store/redis-store.js';
import { DELIVER_JOB, deliverJobId } from './names.js';
import type { DeliverJobData } from './job-data.js';

/**
 * What the processors need from the outside world, wired once by the worker (and by tests and
 * the benchmark): the config, the store, one API client per network, the mail queue, a clock.
 *
 * The networks' clients share one pool of connections (`connectionsFor`), so that the checks
 * of a fleet's networks, which run at the same hour against one API host as a rule, reuse
 * each other's kept-alive connections instead of a TCP and TLS handshake each. Each request
 * still carries its own network's key.
 */
export interface Runtime {
  config: Config;
  store: RedisStore;
  mailQueue: Queue<DeliverJobData>;
  /** The channel deliveries' queue; absent (a benchmark), they wait for a worker's sweep. */
  channelsQueue?: Queue<DeliverJobData>;
  logger: Logger;
  now(): number;
  /**
   * Told of what a failure decided (the problem e-mail and its channel deliveries; `channel`
   * 'email' for the e-mail): a failed job returns no outcome for the metrics wrapper
   * (src/jobs/job-metrics.ts) to count them from.
   */
  onFailureDecided?: (
    networkId: string,
    decided: ReadonlyArray<{ kind: Notification['kind']; channel: string }>,
  ) => void;
  /** A configured network; a usage error when there is none. */
  network(networkId: string): NetworkConfig;
  /** A configured network, if there is one. */
  findNetwork(networkId: string): NetworkConfig | undefined;
  /** The network's client, with its key as of now (a key file is read again): once per job. */
  apiClient(network: NetworkConfig): ApiClient;
  /**
   * A reloaded config: from the next job on, `config` and `network()` answer from it, and the
   * API clients of networks whose URL or key changed (all of them when `api` or
   * `worker.concurrency` changed: their pool of connections) are made anew; the old ones close
   * once their requests are done.
   */
  replaceConfig(next: Config): void;
  close(): Promise<void>;
}

export function createRuntime(parts: {
  config: Config;
  store: RedisStore;
  mailQueue: Queue<DeliverJobData>;
  channelsQueue?: Queue<DeliverJobData>;
  logger: Logger;
  now?: () => number;
  /** Every API exchange of every network's client (metrics). */
  onApiRequest?: ApiClientOptions['onRequest'];
  onFailureDecided?: Runtime['onFailureDecided'];
}): Runtime {
  /** Each network's client, with the key it was made with. */
  const clients = new Map<string, { client: ApiClient; apiKey: Secret }>();
  /** The old closes once its requests are done. */
  const closeClient = (id: string, client: ApiClient) => {
    clients.delete(id);
    client
      .close()
      .catch((error: Error) =>
        parts.logger.debug(`old API client of ${id} not closed: ${error.message}`),
      );
  };
  let connections = connectionsFor(parts.config);
  let byId = new Map(parts.config.networks.map((n) => [n.id, n]));
  const { onApiRequest, ...shared } = parts;
  const runtime: Runtime = {
    ...shared,
    now: parts.now ?? Date.now,
    findNetwork(networkId) {
      return byId.get(networkId);
    },
    network(networkId) {
      const network = byId.get(networkId);
      if (!network) throw new UsageError(`network "${networkId}" is not configured`);
      return network;
    },
    apiClient(network) {
      // A key file is read when a job needs it: a rotated secret (a Docker secret, a file
      // rewritten) is used by the next run, without a reload. An unreadable or empty one fails
      // the job with a config error naming the file.
      const apiKey = network.apiKey.read(`network ${network.id}`);
      let held = clients.get(network.id);
      if (held && held.apiKey.reveal() !== apiKey.reveal()) {
        if (network.apiKeyPath !== undefined)
          parts.logger.info(
            { network: network.id },
            `the key in ${network.apiKeyPath} has changed: this run uses the new one`,
          );
        closeClient(network.id, held.client);
        held = undefined;
      }
      if (!held) {
        held = {
          apiKey,
          client: createNetworkApiClient({ ...network, apiKey }, runtime.config.api, {
            logger: parts.logger,
            dispatcher: connections,
            ...(onApiRequest ? { onRequest: onApiRequest } : {}),
          }),
        };
        clients.set(network.id, held);
      }
      return held.client;
    },
    replaceConfig(next) {
      const poolChanged =
        JSON.stringify(runtime.config.api) !== JSON.stringify(next.api) ||
        runtime.config.worker.concurrency !== next.worker.concurrency;
      const nextById = new Map(next.networks.map((n) => [n.id, n]));
      // A changed key makes a new client when a job next asks for one (apiClient).
      for (const [id, held] of clients) {
        const before = byId.get(id);
        const after = nextById.get(id);
        const same =
          !poolChanged &&
          before !== undefined &&
          after !== undefined &&
          before.baseUrl === after.baseUrl;
        if (!same) closeClient(id, held.client);
      }
      if (poolChanged) {
        // New connections for the new clients; the old close once their requests are done.
        const old = connections;
        connections = connectionsFor(next);
        old
          .close()
          .catch((error: Error) =>
            parts.logger.debug(`old API connections not closed: ${error.message}`),
          );
      }
      runtime.config = next;
      byId = nextById;
    },
    async close() {
      await Promise.all([...clients.values()].map((held) => held.client.close()));
      clients.clear();
      await connections.close();
    },
  };
  return runtime;
}

/**
 * The pool every network's API client sends through: the config's timeouts, and at most as many
 * connections to one API host as the worker runs checks at once (`worker.concurrency`), the
 * most requests it has in flight, since a check's requests follow each other. Without that
 * limit the pool opened a connection for nearly every request: undici counts a connection
 * busy until a moment after its response has ended, so the request that follows at once (a
 * check's isptrends after its access) found none free and opened another (measured against
 * the sandbox; test/jobs/runtime.test.ts).
 */
function connectionsFor(config: Config): ReturnType<typeof createApiDispatcher> {
  return createApiDispatcher(config.api, config.worker.concurrency);
}

/**
 * Hands outbox ids to delivery, each to its own queue: channel deliveries to the channels queue
 * (without one, to the next sweep of a worker that has it), everything else to the mail queue,
 * whose claim sets an id it cannot read aside.
 */
export async function enqueueOutbox(
  queues: Pick<Runtime, 'mailQueue' | 'channelsQueue'>,
  ids: readonly string[],
): Promise<void> {
  const channels = ids.filter(isChannelDeliveryId);
  const mail = ids.filter((id) => !isChannelDeliveryId(id));
  await Promise.all([
    enqueueDeliveries(queues.mailQueue, mail),
    queues.channelsQueue ? enqueueDeliveries(queues.channelsQueue, channels) : undefined,
  ]);
}

/** Hands outbox ids to one queue; a duplicate id while one waits is a no-op. */
export async function enqueueDeliveries(
  mailQueue: Queue<DeliverJobData>,
  notificationIds: readonly string[],
): Promise<void> {
  if (notificationIds.length === 0) return;
  await mailQueue.addBulk(
    notificationIds.map((notificationId) => ({
      name: DELIVER_JOB,
      data: { notificationId },
      opts: {
        jobId: deliverJobId(notificationId),
        removeOnComplete: true,
        removeOnFail: true,
        // No BullMQ retries: the sender owns the schedule (see src/jobs/deliver.ts).
        attempts: 1,
      },
    })),
  );
}
