import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../src/jobs/worker.js';
import type { HealthReport } from '../../src/observability/health.js';
import { runThmAsync } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { startReplicated, type TestReplicated } from '../harness/topologies.js';
import { startTopologyStack, type TopologyStack } from '../jobs/topology-stack.js';

/**
 * Health tells the truth about which node the worker writes to. A master and a replica on
 * loopback, the worker given the master's address (one URL, as a managed Redis gives); then
 * the two swap roles (REPLICAOF), as a failover behind that URL does, and the worker's
 * connection is left on the node that is now a replica. /healthz and thm status --check say
 * so at once, not when the canary has gone stale.
 */
describe('/healthz and thm status ask the node its ROLE', () => {
  let pair: TestReplicated;
  let stack: TopologyStack;
  let worker: RunningWorker;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    pair = await startReplicated();
    stack = await startTopologyStack({
      url: `redis://${pair.master.address}`,
      prefix: 'thmr',
      confirmReplicas: 1,
    });
    // A canary interval far longer than the test: only ROLE can turn the check red here.
    worker = await stack.startWorker({ monitoring: { port: 0, canaryIntervalMs: 600_000 } });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-role-')), 'thm.json');
    writeFileSync(file, JSON.stringify(stack.raw));
    env = { ...stack.sbx.env, THM_CONFIG: file };
  }, 60_000);
  // The worker is left on a replica by the last test: its stop waits out its 10 s bound for
  // jobs that cannot finish without a writable Redis (STOP_WITHOUT_REDIS_MS; unreachableFor in
  // src/redis/connection.ts). Until that bound counted the time in all it took 20-27 s on a busy
  // machine, and once more than the default 30 s hook timeout in a full run.
  afterAll(async () => {
    await stack?.close();
    await pair?.shutdown();
  }, 60_000);

  const health = async () => {
    const res = await request(`${worker.monitoring!.server.url}/healthz`);
    return { status: res.statusCode, report: (await res.body.json()) as HealthReport };
  };
  const status = () => runThmAsync(['status', '--check', '--json'], { env });

  it('healthy on the master with its replica; the node and its role are reported', async () => {
    const { status: code, report } = await health();
    expect(report.problems).toEqual([]);
    expect(code).toBe(200);
    expect(report.redis).toEqual({ node: pair.master.address, role: 'master', replicas: 1 });
    // (--check fails here anyway: the network never ran. Its Redis part is what counts.)
    const cli = await status();
    expect(JSON.parse(cli.stdout)).toMatchObject({
      redis: { node: pair.master.address, role: 'master', replicas: 1, problems: [] },
    });
  });

  it('a master without its replica: commits are not confirmed, said by both', async () => {
    // Frozen, and its link cut: it cannot come back until resumed.
    pair.replica.pause();
    try {
      await pair.master.client().call('CLIENT', 'KILL', 'TYPE', 'replica');
      const { status: code, report } = await health();
      expect(code).toBe(503);
      expect(report.problems).toContain(
        `redis: ${pair.master.address} has 0 of 1 replicas connected: commits are not confirmed (redis.confirmReplicas), each waits redis.confirmTimeoutMs`,
      );
      const cli = await status();
      expect(cli.code).toBe(1);
      expect((JSON.parse(cli.stdout) as { redis: { problems: string[] } }).redis.problems).toEqual(
        report.problems,
      );
    } finally {
      pair.replica.resume();
    }
    await waitFor(async () => ((await health()).status === 200 ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 250,
      what: 'healthy again once the replica is back',
    });
  }, 60_000);

  it('the worker left on a node that became a replica: 503 at once, and thm status --check exits 1', async () => {
    const newMaster = pair.replica.client();
    const oldMaster = pair.master.client();
    await newMaster.call('REPLICAOF', 'NO', 'ONE');
    await oldMaster.call('REPLICAOF', '127.0.0.1', String(pair.replica.port));
    const { status: code, report } = await health();
    expect(code).toBe(503);
    expect(report.problems).toContain(
      `redis: connected to ${pair.master.address}, which is a replica of 127.0.0.1:${pair.replica.port}: writes are refused until the connection moves to the master`,
    );
    const cli = await status();
    expect(cli.code).toBe(1);
    const doc = JSON.parse(cli.stdout) as { healthy: boolean; redis: { problems: string[] } };
    expect(doc).toMatchObject({ healthy: false, redis: { role: 'slave' } });
    expect(doc.redis.problems).toEqual(report.problems);
  });
});
