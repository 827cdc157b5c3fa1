import { mkdtempSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { startWorker, type RunningWorker } from '../../src/jobs/worker.js';
import { silentLogger } from '../../src/log.js';
import { waitFor } from '../harness/ports.js';
import { startRedis, type TestRedis } from '../harness/redis.js';

/**
 * The worker's sweeps across a Redis outage: Redis really stopped and started again. A sweep
 * that waits for Redis must not be joined by the next ones: each would wait too, and when Redis
 * came back they would all run at once.
 *
 * The worker reaches Redis through a pass-through proxy that notes each time the worker asks for
 * the schedulers' lock (once per sweep when no other worker holds it): so the sweeps are counted
 * as Redis sees them, with nothing added to the worker.
 */
const SWEEP_MS = 300;
const OUTAGE_MS = 6_000;
const PREFIX = 'sweeps';

describe('worker sweeps across a Redis outage', () => {
  let redis: TestRedis;
  let proxy: LockWatch;
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    proxy = await watchLockRequests(redis.port, `${PREFIX}:lock:schedulers`);
  });
  afterAll(async () => {
    await worker?.close();
    await proxy?.close();
    await redis?.shutdown();
  });

  it('never overlap: while Redis is down one sweep waits, and none piles up behind it', async () => {
    const config = parseConfig(
      {
        redis: { url: `redis://127.0.0.1:${proxy.port}`, prefix: PREFIX },
        mail: { outboxDir: mkdtempSync(path.join(tmpdir(), 'thm-sweeps-')) },
        networks: [
          {
            id: 'acme',
            baseUrl: 'http://127.0.0.1:9/v1',
            apiKeyEnv: 'ACME_API_KEY',
            recipients: ['ops@acme.example'],
          },
        ],
      },
      { env: { ACME_API_KEY: 'sk_sweeps_test' } },
    );
    worker = await startWorker(config, silentLogger, { sweepIntervalMs: SWEEP_MS });
    await waitFor(() => proxy.requests.length >= 3 || undefined, { timeoutMs: 10_000 });

    const from = Date.now();
    await redis.stop();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const down = Date.now() - from;
    await redis.start();
    const restarted = Date.now();
    // Sweeps go on after the outage: the worker reconnected and takes the lock again.
    const back = proxy.requests.length;
    await waitFor(() => proxy.requests.length >= back + 3 || undefined, { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, Math.max(0, restarted + 3_000 - Date.now())));
    const to = Date.now();

    const seen = proxy.requests.filter((at) => at >= from && at <= to).length;
    // One sweep at a time, each starting SWEEP_MS after the last ended: at most one start per
    // interval while Redis is up, one waiting through the outage, and a few at the edges (the
    // sweep under way when the window opened, a request ioredis sends again after reconnecting).
    // Sweeps that overlapped would number one per interval of the outage too (20 more), each
    // asking for the lock as soon as Redis is back.
    const bound = Math.floor((to - from - down) / SWEEP_MS) + 5;
    expect(seen, `${seen} sweeps in ${to - from} ms, Redis down ${down} ms`).toBeLessThanOrEqual(
      bound,
    );
  }, 60_000);
});

interface LockWatch {
  port: number;
  /** When the worker asked for the lock, each time (ms since the epoch). */
  requests: number[];
  close(): Promise<void>;
}

/**
 * A TCP pass-through to Redis that notes the time of every SET of `lockKey` the worker sends
 * (the lock's request; its release is a script). A connection whose Redis is not there is
 * closed, as Redis's own would be.
 */
async function watchLockRequests(redisPort: number, lockKey: string): Promise<LockWatch> {
  // As ioredis writes the command: `*7 $3 set $<length> <key> ...`, CRLF between.
  const marker = `\r\nset\r\n$${Buffer.byteLength(lockKey)}\r\n${lockKey}\r\n`;
  const requests: number[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(redisPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1))
        requests.push(Date.now());
      tail = text.slice(-(marker.length - 1));
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy port');
  return {
    port: address.port,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
