import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/demo/private-redis.js';

/**
 * Real Redis topologies on loopback for the failover tests: a 6-node Cluster (3 masters, 3
 * replicas) and a master + replica watched by 3 Sentinels, each process a `redis-server` of
 * its own in a temp dir. Never touches the machine's Redis.
 */
export interface Node {
  port: number;
  /** "127.0.0.1:port" */
  address: string;
  client(): Redis;
  /** SIGKILL (kill -9): no goodbye, no last write. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a node that hangs (its connections stay open, nothing answers). */
  pause(): void;
  resume(): void;
  running(): boolean;
}

interface Spawned extends Node {
  stop(): Promise<void>;
  /** The end of what redis-server printed: why a node that never answered did not start. */
  output(): string;
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms (${String(lastError ?? '')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function spawnNode(dir: string, port: number, args: string[], clients: Redis[]): Spawned {
  let child: ChildProcess | undefined = spawn('redis-server', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const node: Spawned = {
    port,
    output: () => output,
    address: `127.0.0.1:${port}`,
    client() {
      const c = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, retryStrategy: () => 200 });
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    },
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async kill() {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGKILL');
      await exited;
      child = undefined;
    },
    stop: async () => {
      child?.kill('SIGCONT');
      await node.kill();
    },
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
  return node;
}

async function answers(port: number): Promise<boolean> {
  const r = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1_000,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/**
 * Spawns a node on ports `argsFor` picks and waits until it answers. A port found free can still
 * be taken before redis-server binds it (by another test file's server): the node then exits at
 * once, and starts again on other ports.
 */
async function startNode(
  what: string,
  dir: string,
  clients: Redis[],
  argsFor: (port: number) => Promise<string[]>,
): Promise<Spawned> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const node = spawnNode(dir, port, await argsFor(port), clients);
    try {
      await waitFor(`${what} ${port}`, async () => {
        if (!node.running()) throw new Error(`redis-server exited: ${node.output()}`);
        return (await answers(port)) || undefined;
      });
      return node;
    } catch (error) {
      await node.stop();
      if (attempt >= 3 || !/Address already in use/.test(node.output())) throw error;
    }
  }
}

const common = [
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--loglevel',
  'warning',
  // A replica's full sync starts at once, not after Redis's default 5 s wait for more
  // replicas (a replica that is not in sync yet would be promoted without the data).
  '--repl-diskless-sync-delay',
  '0',
];

/**
 * Resolves once `master` has `count` replicas online (their initial or re-sync done) and
 * caught up with it. A failover promotes a replica with what it has: one still syncing has
 * nothing, and every write would be lost, as in production, whatever the client does.
 */
export async function replicasInSync(master: Node, count = 1, timeoutMs = 30_000): Promise<void> {
  const c = master.client();
  const offsetOf = (info: string) => Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
  // Every write made so far, the job in flight included: replicas acknowledge their offset
  // every second, so this waits about that long at most once they are online.
  const target = offsetOf(await c.info('replication'));
  await waitFor(
    `${count} replica(s) of ${master.address} in sync`,
    async () => {
      const info = await c.info('replication');
      const online = [...info.matchAll(/^slave\d+:.*state=online,offset=(\d+)/gm)].filter(
        (m) => Number(m[1]) >= target,
      );
      return online.length >= count ? true : undefined;
    },
    timeoutMs,
  );
}

export interface TestCluster {
  nodes: Node[];
  /** Startup nodes for redis.cluster.nodes (two of the six, as an operator would give). */
  seeds: string[];
  /** The node that is master of the slot of `key` now. */
  masterOf(key: string): Promise<Node>;
  /** A replica of the master of `key`. */
  replicaOf(key: string): Promise<Node>;
  /**
   * CLUSTER FAILOVER on a replica of `key`'s master, asked again while that master stays: a
   * manual failover the other masters do not vote for gives up after 5 s, silently (Redis's
   * CLUSTER_MF_TIMEOUT), as an operator would see and ask again. Resolves with the new master.
   */
  failover(key: string, timeoutMs?: number): Promise<Node>;
  shutdown(): Promise<void>;
}

/**
 * One node's CLUSTER NODES reduced to what every node must agree on: each node's id, whether
 * it is master or replica and of whom, and that it is connected with no doubt flags
 * (handshake, fail?, fail, noaddr). Sorted, one line per node.
 */
function clusterRoles(nodesReply: string): string {
  return nodesReply
    .trim()
    .split('\n')
    .map((line) => {
      const [id, , flags = '', master, , , , link] = line.split(' ');
      const role = flags.includes('master') ? 'master' : `replica of ${master}`;
      const doubt = /handshake|fail|noaddr/.test(flags) || link !== 'connected';
      return `${id} ${role}${doubt ? ' ?' : ''}`;
    })
    .sort()
    .join('\n');
}

/**
 * The scratch of one topology: its data directory, the clients handed out and the nodes
 * spawned, and the shutdown that disconnects, stops and deletes them all.
 */
function scratch(name: string): {
  dir: string;
  clients: Redis[];
  all: Spawned[];
  shutdown: () => Promise<void>;
} {
  const dir = mkdtempSync(path.join(tmpdir(), `thm-${name}-`));
  const clients: Redis[] = [];
  const all: Spawned[] = [];
  const shutdown = async () => {
    for (const c of clients) c.disconnect();
    await Promise.all(all.map((n) => n.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, clients, all, shutdown };
}

export async function startCluster(): Promise<TestCluster> {
  const { dir, clients, all: nodes, shutdown } = scratch('cluster');
  try {
    for (let i = 0; i < 6; i++) {
      nodes.push(
        await startNode('cluster node', dir, clients, async (port) => [
          '--port',
          String(port),
          // The cluster bus listens on a port of its own, by default port + 10,000: a port
          // nobody checked was free (or above 65,535). So the bus gets a free port too.
          '--cluster-port',
          String(await freePort()),
          '--dir',
          dir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          // Failure detection of a killed master: small, but not so small that a loaded
          // machine's pauses look like failures.
          '--cluster-node-timeout',
          '3000',
          ...common,
        ]),
      );
    }
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => n.address),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create: ${create.stdout}${create.stderr}`);
    // Every node agrees the cluster is ok and has the same picture of it: who is master, whose
    // replica each other node is. A master that does not yet know a node as a replica refuses
    // it its vote, and a manual failover asked then times out without a word.
    let views: string[] = [];
    await waitFor(`the 6 cluster nodes agreeing on their roles`, async () => {
      views = [];
      for (const n of nodes) {
        const c = n.client();
        if (!(await c.cluster('INFO')).includes('cluster_state:ok')) return undefined;
        const replication = await c.info('replication');
        if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
          return undefined;
        views.push(clusterRoles((await c.cluster('NODES')) as string));
      }
      const [first] = views;
      return first &&
        first.split('\n').length === 6 &&
        !first.includes('?') &&
        views.every((v) => v === first)
        ? true
        : undefined;
    });
  } catch (error) {
    await shutdown();
    throw error;
  }

  const masterOf = async (key: string): Promise<Node> => {
    const any = nodes.find((n) => n.running());
    if (!any) throw new Error('no cluster node running');
    const c = any.client();
    const slot = (await c.cluster('KEYSLOT', key)) as number;
    const slots = (await c.cluster('SLOTS')) as unknown as Array<
      [number, number, [string, number]]
    >;
    const range = slots.find(([from, to]) => slot >= from && slot <= to);
    const port = range?.[2][1];
    const node = nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no master for slot ${slot}`);
    return node;
  };
  const replicaOf = async (key: string): Promise<Node> => {
    const master = await masterOf(key);
    for (const n of nodes) {
      if (n === master || !n.running()) continue;
      const role = (await n.client().role()) as [string, string, number];
      if (role[0] === 'slave' && role[2] === master.port) return n;
    }
    throw new Error(`no replica of ${master.address}`);
  };
  return {
    nodes,
    seeds: nodes.slice(0, 2).map((n) => n.address),
    masterOf,
    replicaOf,
    async failover(key, timeoutMs = 30_000) {
      const old = await masterOf(key);
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const replica = await replicaOf(key);
        await replica.client().cluster('FAILOVER');
        const asked = Date.now();
        while (Date.now() - asked < 6_000) {
          const now = await masterOf(key).catch(() => undefined);
          if (now && now !== old) return now;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      throw new Error(`CLUSTER FAILOVER of ${old.address}: no new master within ${timeoutMs} ms`);
    },
    shutdown,
  };
}

export interface TestSentinels {
  name: string;
  master: Node;
  replica: Node;
  sentinels: Node[];
  /** "127.0.0.1:port" of each Sentinel, for redis.sentinel.nodes. */
  sentinelAddresses: string[];
  /** The master the Sentinels name now. */
  currentMaster(): Promise<Node>;
  shutdown(): Promise<void>;
}

export interface TestReplicated {
  master: Node;
  replica: Node;
  shutdown(): Promise<void>;
}

/** A master and its replica, in sync, without Sentinels. */
export async function startReplicated(): Promise<TestReplicated> {
  const { dir, clients, all, shutdown } = scratch('replicated');
  try {
    const { master, replica } = await startDataNodes(dir, clients, all);
    return { master, replica, shutdown };
  } catch (error) {
    await shutdown();
    throw error;
  }
}

async function startDataNodes(
  dir: string,
  clients: Redis[],
  all: Spawned[],
): Promise<{ master: Spawned; replica: Spawned; masterPort: number }> {
  const dataNode = (what: string, extra: string[]) =>
    startNode(what, dir, clients, async (port) => [
      '--port',
      String(port),
      '--dir',
      dir,
      ...common,
      ...extra,
    ]);
  const master = await dataNode('master', []);
  all.push(master);
  const masterPort = master.port;
  const replica = await dataNode('replica', ['--replicaof', '127.0.0.1', String(masterPort)]);
  all.push(replica);
  const replicaClient = replica.client();
  await waitFor('replica in sync', async () =>
    (await replicaClient.info('replication')).includes('master_link_status:up') ? true : undefined,
  );
  return { master, replica, masterPort };
}

export async function startSentinels(): Promise<TestSentinels> {
  const name = 'thmmaster';
  const { dir, clients, all, shutdown } = scratch('sentinel');
  try {
    const { master, replica, masterPort } = await startDataNodes(dir, clients, all);
    const sentinels: Spawned[] = [];
    for (let i = 0; i < 3; i++) {
      const node = await startNode('sentinel', dir, clients, async (port) => {
        const conf = path.join(dir, `sentinel-${port}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            `dir ${dir}`,
            `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
            // Generous on a loaded machine, still a failover within seconds of a kill -9.
            `sentinel down-after-milliseconds ${name} 3000`,
            `sentinel failover-timeout ${name} 20000`,
            `sentinel parallel-syncs ${name} 1`,
            '',
          ].join('\n'),
        );
        return [conf, '--sentinel'];
      });
      sentinels.push(node);
      all.push(node);
    }
    const probe = sentinels[0]!.client();
    for (const s of sentinels) {
      const c = s.client();
      // Each Sentinel knows the replica and the two other Sentinels before a failover is asked.
      await waitFor(`sentinel ${s.port} ready`, async () => {
        const [m] = (await c.call('SENTINEL', 'MASTERS')) as string[][];
        const fields = new Map<string, string>();
        for (let i = 0; m && i < m.length; i += 2) fields.set(m[i]!, m[i + 1]!);
        return Number(fields.get('num-slaves')) >= 1 &&
          Number(fields.get('num-other-sentinels')) >= 2
          ? true
          : undefined;
      });
    }
    const byPort = (port: number) => all.find((n) => n.port === port);
    return {
      name,
      master,
      replica,
      sentinels,
      sentinelAddresses: sentinels.map((s) => s.address),
      async currentMaster() {
        const [, port] = (await probe.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as [
          string,
          string,
        ];
        const node = byPort(Number(port));
        if (!node) throw new Error(`unknown master port ${port}`);
        return node;
      },
      shutdown,
    };
  } catch (error) {
    await shutdown();
    throw error;
  }
}

export { waitFor };
