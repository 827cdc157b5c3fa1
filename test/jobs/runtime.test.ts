import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/load.js';
import { createRuntime, type Runtime } from '../../src/jobs/runtime.js';
import { silentLogger } from '../../src/log.js';
import type { RedisStore } from '../../src/store/redis-store.js';
import { startTestSandbox, type TestSandbox } from '../harness/sandbox.js';

/**
 * The runtime's API clients (src/jobs/runtime.ts): one per network, all on one pool of
 * connections, at most `worker.concurrency` to the API host, against the sandbox over HTTP
 * (which counts the connections it accepts). The store and the queues are not used here.
 */
describe("the runtime's API clients", () => {
  let sbx: TestSandbox;
  const runtimes: Runtime[] = [];
  const runtime = (config: Config) => {
    const rt = createRuntime({
      config,
      store: {} as RedisStore,
      mailQueue: {} as never,
      logger: silentLogger,
    });
    runtimes.push(rt);
    return rt;
  };
  /** What a traffic-check asks of a network with premium: access, then isptrends at once. */
  const check = async (rt: Runtime, network: string) => {
    const client = rt.apiClient(rt.network(network));
    const access = await client.getTrafficAccess();
    return access.has_premium ? (await client.getIspTrends()).entries.length : undefined;
  };

  beforeAll(async () => {
    sbx = await startTestSandbox();
  });
  afterAll(async () => {
    await Promise.all(runtimes.map((rt) => rt.close()));
    await sbx.close();
  });

  it('every network reuses the same connections, each request with its own key', async () => {
    const rt = runtime(sbx.config(['acme', 'globex'], { worker: { concurrency: 1 } }));
    const before = sbx.sandbox.connections();
    // In the demo scenario acme has the premium package and globex has not: each answer is
    // its own network's.
    for (let i = 0; i < 3; i += 1) {
      expect(await check(rt, 'acme')).toBeGreaterThan(0);
      expect(await check(rt, 'globex')).toBeUndefined();
    }
    expect(sbx.sandbox.connections() - before).toBe(1);
  });

  it('checks at once: at most worker.concurrency connections', async () => {
    const rt = runtime(sbx.config(['acme', 'globex'], { worker: { concurrency: 2 } }));
    const before = sbx.sandbox.connections();
    for (let i = 0; i < 3; i += 1) {
      await Promise.all([check(rt, 'acme'), check(rt, 'globex'), check(rt, 'acme')]);
    }
    expect(sbx.sandbox.connections() - before).toBeLessThanOrEqual(2);
  });

  it('a reload that changes the API settings or the concurrency opens new connections; others do not', async () => {
    const config = (concurrency: number, api: Partial<Config['api']> = {}) =>
      sbx.config(['acme', 'globex'], { api, worker: { concurrency } });
    const rt = runtime(config(1));
    await check(rt, 'acme');
    const before = sbx.sandbox.connections();

    // A network's settings changed, not the pool's: the same connection.
    const recipients = config(1);
    recipients.networks[1]!.recipients = ['oncall@globex.example'];
    rt.replaceConfig(recipients);
    await check(rt, 'acme');
    await check(rt, 'globex');
    expect(sbx.sandbox.connections() - before).toBe(0);

    rt.replaceConfig(config(1, { headersTimeoutMs: 2_500 }));
    await check(rt, 'acme');
    await check(rt, 'globex');
    expect(sbx.sandbox.connections() - before).toBe(1);

    rt.replaceConfig(config(3, { headersTimeoutMs: 2_500 }));
    await check(rt, 'globex');
    expect(sbx.sandbox.connections() - before).toBe(2);
  });
});
