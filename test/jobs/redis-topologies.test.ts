import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/redis/connection.js';
import { silentLogger } from '../../src/log.js';
import { removeAbandonedCanaries } from '../../src/observability/health.js';
import { runThmAsync } from '../harness/cli.js';
import {
  startCluster,
  startSentinels,
  type TestCluster,
  type TestSentinels,
} from '../harness/topologies.js';
import { startTopologyStack, type TopologyStack } from './topology-stack.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

function configFile(raw: Record<string, unknown>): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-topology-')), 'thm.json');
  writeFileSync(file, JSON.stringify(raw));
  return file;
}

describe('Redis Cluster (3 masters, 3 replicas on loopback)', () => {
  let cluster: TestCluster;
  let stack: TopologyStack;
  const prefix = '{thmc}';

  beforeAll(async () => {
    cluster = await startCluster();
    stack = await startTopologyStack({ prefix, cluster: { nodes: cluster.seeds } });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await cluster?.shutdown();
  });

  it('a worker given two seed nodes runs a check; the CLI reads it through any node', async () => {
    await stack.startWorker();
    stack.sbx.sandbox.setDay('2026-11-15');
    const result = await stack.run('acme', '2026-11-15');
    expect(result).toMatchObject({ state: 'completed', value: { status: 'done' } });
    await stack.smtp.waitForMessages(1);

    // A node that does not own the prefix's slot, given by environment: the CLI follows MOVED.
    const owner = await cluster.masterOf(`${prefix}:x`);
    const other = cluster.nodes.find((n) => n !== owner && n.running())!;
    const { redis: _redis, ...raw } = stack.raw;
    const status = await runThmAsync(['history', '--network', 'acme', '--json'], {
      env: {
        ...stack.sbx.env,
        THM_CONFIG: configFile({ ...raw, redis: { prefix } }),
        REDIS_CLUSTER_NODES: other.address,
      },
    });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('2026-11-15');
  });

  it('SCAN clean-ups reach every master', async () => {
    // A canary queue of a worker that is gone, on whichever master owns the prefix's slot.
    const gone = new Queue('canary-gone', {
      connection: connectRedis(stack.config.redis, silentLogger),
      prefix,
    });
    await gone.add('canary', {});
    await gone.close();
    const [worker] = stack.workers;
    const removed = await removeAbandonedCanaries(worker!.redis, prefix, { quietForMs: 0 });
    expect(removed).toEqual(['canary-gone']);
    const owner = (await cluster.masterOf(`${prefix}:x`)).client();
    expect(await owner.keys(`${prefix}:canary-gone:*`)).toEqual([]);
  });
});

describe('Redis Sentinel (master, replica, 3 Sentinels on loopback)', () => {
  let sentinels: TestSentinels;
  let stack: TopologyStack;

  beforeAll(async () => {
    sentinels = await startSentinels();
    stack = await startTopologyStack({
      url: 'redis://127.0.0.1:1', // only credentials, TLS and db count with Sentinels
      prefix: 'thms',
      sentinel: { name: sentinels.name, nodes: sentinels.sentinelAddresses },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await sentinels?.shutdown();
  });

  it('a worker asks the Sentinels for the master and runs a check', async () => {
    await stack.startWorker();
    stack.sbx.sandbox.setDay('2026-11-15');
    const result = await stack.run('acme', '2026-11-15');
    expect(result).toMatchObject({ state: 'completed', value: { status: 'done' } });
    await stack.smtp.waitForMessages(1);
    const master = sentinels.master.client();
    expect(await master.exists('thms:store:net:acme')).toBe(1);
  });
});
