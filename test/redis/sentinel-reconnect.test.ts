import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { connectRedis } from '../../src/redis/connection.js';
import { silentLogger } from '../../src/log.js';
import { waitFor } from '../harness/ports.js';
import { startSentinels, type TestSentinels } from '../harness/topologies.js';

/**
 * The race behind the kill -9 failover flake (docs/design.md, "Failovers"): a Sentinel
 * connection whose master went away reconnects, asking the Sentinels where the master is; the
 * Sentinels' `+switch-master` arrives meanwhile, at the failover detector of the connection that
 * dropped. ioredis as it comes then ends the client for good; the connection factory's
 * connector lets the old detector go first, and the client connects again.
 *
 * Made deterministic here: the server drops the connection (CLIENT KILL, as a dead master's
 * socket closes), and the announcement is delivered to the old detector at the moment the
 * reconnect asks the first Sentinel.
 */

interface ConnectorInternals {
  failoverDetector: {
    sentinels: Array<{ client: { emit(event: string, ...args: unknown[]): boolean } }>;
  } | null;
  resolve(endpoint: unknown): Promise<unknown>;
}

describe('a Sentinel connection made again while the Sentinels announce a failover', () => {
  let sentinels: TestSentinels;
  const clients: Redis[] = [];

  beforeAll(async () => {
    sentinels = await startSentinels();
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await sentinels?.shutdown();
  });

  /** Drops `client`'s connection from the server side and announces a failover mid-reconnect. */
  async function dropAndAnnounce(client: Redis): Promise<'ready' | 'end'> {
    clients.push(client);
    client.on('error', () => undefined);
    await client.ping();
    const connector = (client as unknown as { connector: ConnectorInternals }).connector;
    const detector = await waitFor(() => connector.failoverDetector ?? undefined, {
      what: 'the failover detector',
    });
    const resolve = connector.resolve.bind(connector);
    let announced = false;
    connector.resolve = (endpoint) => {
      if (!announced) {
        announced = true;
        detector.sentinels[0]!.client.emit(
          'message',
          '+switch-master',
          `${sentinels.name} 127.0.0.1 1 127.0.0.1 2`,
        );
      }
      return resolve(endpoint);
    };
    const id = (await client.client('ID')) as number;
    await sentinels.master.client().client('KILL', 'ID', String(id));
    const status = await waitFor(
      () =>
        (client.status === 'ready' && announced) || client.status === 'end'
          ? client.status
          : undefined,
      { timeoutMs: 10_000, what: 'the client connected again or ended' },
    );
    expect(announced).toBe(true);
    return status as 'ready' | 'end';
  }

  it('ioredis as it comes ends the client for good (the bug)', async () => {
    const stock = new Redis({
      sentinels: sentinels.sentinelAddresses.map((a) => ({
        host: '127.0.0.1',
        port: Number(a.split(':')[1]),
      })),
      name: sentinels.name,
      failoverDetector: true,
      maxRetriesPerRequest: null,
      retryStrategy: () => 100,
    });
    expect(await dropAndAnnounce(stock)).toBe('end');
    await expect(stock.ping()).rejects.toThrow('Connection is closed');
  });

  it('a connection from connectRedis connects again and answers', async () => {
    const client = connectRedis(
      {
        url: new Secret('redis://127.0.0.1:1'),
        sentinel: { name: sentinels.name, nodes: sentinels.sentinelAddresses },
      },
      silentLogger,
    ) as Redis;
    expect(await dropAndAnnounce(client)).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    // The connection made again has a detector of its own: a real failover still moves it.
    await waitFor(
      () =>
        (client as unknown as { connector: ConnectorInternals }).connector.failoverDetector ??
        undefined,
      { what: 'a failover detector of the new connection' },
    );
  });
});
