import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { QueueEvents } from 'bullmq';
import { loadYaml } from '../cjs-packages.js';
import { parseConfig, type Config } from '../config/load.js';
import { redactUrl } from '../config/secret.js';
import { ThmError, UsageError } from '../errors.js';
import { describeDrops } from '../jobs/drop-summary.js';
import { enqueueManualRun, waitForJob } from '../jobs/enqueue.js';
import { CHECKS_QUEUE } from '../jobs/names.js';
import type { CheckOutcome } from '../jobs/traffic-check.js';
import { startWorker, type RunningWorker } from '../jobs/worker.js';
import { connectRedis, scanKeys } from '../redis/connection.js';
import { silentLogger, type Logger } from '../log.js';
import { RUN_KINDS } from '../monitor/types.js';
import { parseChannelDeliveryId } from '../notify/channels/delivery-id.js';
import { channelFileName, outboxFileBase } from '../notify/transport.js';
import { builtinScenario, demoDays, startSandbox, type Sandbox } from '../sandbox/index.js';
import {
  redisAnswers,
  redisServerAvailable,
  startPrivateRedis,
  type PrivateRedis,
} from './private-redis.js';

/**
 * Each demo day runs every kind of run, the invoice snapshot first: that day's alert then shows
 * that day's invoice summary.
 */
const DAY_ORDER = [...RUN_KINDS].sort(
  (a, b) => Number(b === 'invoice-snapshot') - Number(a === 'invoice-snapshot'),
);

/**
 * `thm demo`: the whole product end to end with nothing configured. The sandbox serves a
 * built-in eight-day story; the real worker and queue run each day's invoice-snapshot and
 * traffic-check; e-mails go to ./outbox (or to SMTP_URL), and what the two channels (a webhook
 * and Slack, without endpoints) would post is written beside them as .json files. It uses its own key prefix and
 * deletes its keys at the end; with `keep`, it leaves them and writes a config beside them
 * (./thm-demo/thm.yaml) for `thm status`, `history` and `silence` to explore what it did.
 */
export interface DemoOptions {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  out: (line: string) => void;
  outboxDir?: string;
  /** Leave the keys and write ./thm-demo/thm.yaml to explore them. */
  keep?: boolean;
}

export interface DemoResult {
  days: Array<{ asOf: string; outcomes: CheckOutcome[] }>;
  emails: string[];
  /** The .json files of the channel deliveries (what would be posted). */
  channelFiles: string[];
  prefix: string;
  /** With `keep`: the config written to explore the kept keys. */
  configFile?: string;
}

/**
 * ./thm-demo/thm.yaml: the demo's networks and key prefix, their keys in files beside it (the
 * sandbox's demo keys; the sandbox is gone, so only the commands that read Redis work). The
 * Redis URL is left out when it came from REDIS_URL (it may hold a password): keep it set.
 */
function writeExploreConfig(config: Config, sandbox: Sandbox, fromEnv: boolean): string {
  const dir = path.resolve('thm-demo');
  mkdirSync(dir, { recursive: true });
  const networks = config.networks.map((network) => {
    const key = sandbox.keys.find((k) => k.portal === 'network' && k.network === network.id);
    writeFileSync(path.join(dir, `${network.id}.key`), `${key?.key ?? 'demo'}\n`, { mode: 0o600 });
    return {
      id: network.id,
      name: network.name,
      baseUrl: network.baseUrl,
      apiKeyFile: `${network.id}.key`,
      timezone: network.timezone,
      recipients: network.recipients,
    };
  });
  const doc = {
    redis: {
      ...(fromEnv ? {} : { url: config.redis.url.reveal() }),
      prefix: config.redis.prefix,
    },
    mail: { outboxDir: config.mail.outboxDir },
    channels: DEMO_CHANNELS,
    networks,
  };
  const file = path.join(dir, 'thm.yaml');
  writeFileSync(
    file,
    `# Written by thm demo --keep: explore what the demo did (README "Try it").\n${loadYaml().stringify(doc)}`,
  );
  return file;
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const { out, logger } = options;
  const startedAt = Date.now();
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const redisUrl = await chooseRedis(options.env, out, (server) => {
      cleanups.push(() => server.shutdown());
      if (options.keep)
        throw new UsageError(
          '--keep: the keys would go with the private redis-server the demo started; run a Redis that stays (redis-server --daemonize yes) or set REDIS_URL',
        );
    });
    const sandbox = await startSandbox({ scenario: builtinScenario('demo'), logger });
    cleanups.push(() => sandbox.close());
    out(
      `sandbox API on ${sandbox.baseUrl} (networks: acme with Traffic Health Premium, globex without)`,
    );

    const prefix = `thm-demo-${randomBytes(3).toString('hex')}`;
    const outboxDir = path.resolve(options.outboxDir ?? 'outbox');
    const config = demoConfig(sandbox, redisUrl, prefix, outboxDir, options.env.SMTP_URL);
    out(
      config.mail.url
        ? `e-mails go to ${redactUrl(config.mail.url.reveal())}`
        : `e-mails are written to ${outboxDir}`,
    );

    if (!options.keep) cleanups.push(() => deleteKeys(config, prefix));
    const worker = await startWorker(config, logger, { schedulers: false, sweepIntervalMs: 250 });
    cleanups.push(() => worker.close());
    const events = new QueueEvents(CHECKS_QUEUE, {
      connection: connectRedis(config.redis, logger),
      prefix,
    });
    cleanups.push(() => events.close());
    await events.waitUntilReady();

    const days: DemoResult['days'] = [];
    for (const asOf of demoDays()) {
      sandbox.setDay(asOf);
      const outcomes: CheckOutcome[] = [];
      for (const kind of DAY_ORDER) {
        const jobs = await Promise.all(
          config.networks.map((network) =>
            enqueueManualRun(worker.checksQueue, {
              kind,
              network,
              asOf,
              attempts: 2,
              backoffMs: 200,
            }),
          ),
        );
        for (const { job } of jobs) {
          const result = await waitForJob<CheckOutcome>(worker.checksQueue, job, events, 30_000);
          if (result.state !== 'completed')
            throw new ThmError(
              'THM_TIMEOUT',
              `demo ${kind} of ${job.data.networkId} for ${asOf}: ${result.error}`,
            );
          if (kind === 'traffic-check') outcomes.push(result.value);
        }
      }
      await drainOutbox(worker);
      days.push({ asOf, outcomes });
      for (const line of describeDay(asOf, outcomes, config)) out(line);
    }

    const emails = config.mail.url ? [] : emailFiles(outboxDir, days);
    const channelFiles = deliveryFiles(outboxDir, days);
    out('');
    out(
      config.mail.url
        ? 'all e-mails accepted by the SMTP server'
        : `${emails.length} e-mails in ${outboxDir} (each .eml has a .html beside it to open in a browser):`,
    );
    for (const file of emails) out(`  ${path.relative(process.cwd(), file) || file}`);
    out(
      `${channelFiles.length} channel messages in ${outboxDir}: what would be posted to a webhook (-webhook.json) and to Slack (-slack.json), had they a URL (docs/configuration.md, "Channels")`,
    );
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    if (!options.keep) {
      out(`done in ${seconds} s; demo keys (${prefix}:*) removed`);
      return { days, emails, channelFiles, prefix };
    }
    const file = writeExploreConfig(config, sandbox, options.env.REDIS_URL !== undefined);
    const thm = `npx thm --config ${path.relative(process.cwd(), file)}`;
    out(`done in ${seconds} s; demo keys (${prefix}:*) kept, config in ${file}. Explore:`);
    out(`  ${thm} status`);
    out(`  ${thm} history --network acme`);
    out(`  ${thm} invoices --network acme`);
    out(`  ${thm} silence add --network acme --isp 'comcast' --for 1d --reason 'exploring'`);
    out(`  ${thm} silence list`);
    out(
      `remove the keys when done: redis-cli${options.env.REDIS_URL ? ' -u "$REDIS_URL"' : ''} --scan --pattern '${prefix}:*' | xargs redis-cli${options.env.REDIS_URL ? ' -u "$REDIS_URL"' : ''} del`,
    );
    return { days, emails, channelFiles, prefix, configFile: file };
  } finally {
    for (const cleanup of cleanups.reverse())
      await cleanup().catch((error: Error) => logger.warn(`demo cleanup: ${error.message}`));
  }
}

async function chooseRedis(
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  own: (server: PrivateRedis) => void,
): Promise<string> {
  const url = env.REDIS_URL || 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) {
    out(`using Redis at ${redactUrl(url)}`);
    return url;
  }
  if (env.REDIS_URL) throw new ThmError('THM_STORE', `REDIS_URL ${redactUrl(url)} does not answer`);
  if (!redisServerAvailable()) {
    throw new ThmError(
      'THM_STORE',
      'no Redis answers on 127.0.0.1:6379 and redis-server is not on the PATH: install Redis (Debian: apt-get install redis-server) or set REDIS_URL',
    );
  }
  const server = await startPrivateRedis();
  own(server);
  out(`no Redis on 127.0.0.1:6379: started a private redis-server on port ${server.port}`);
  return server.url;
}

/** Both channels, without a URL: each delivery is written as a .json file beside the e-mails. */
const DEMO_CHANNELS = [{ type: 'webhook' }, { type: 'slack' }];

function demoConfig(
  sandbox: Sandbox,
  redisUrl: string,
  prefix: string,
  outboxDir: string,
  smtpUrl: string | undefined,
): Config {
  const keyEnv = (id: string) => `THM_DEMO_KEY_${id.toUpperCase()}`;
  const env: NodeJS.ProcessEnv = {};
  for (const key of sandbox.keys) if (key.portal === 'network') env[keyEnv(key.network)] = key.key;
  if (smtpUrl) env.SMTP_URL = smtpUrl;
  const network = (id: string, name: string) => ({
    id,
    name,
    baseUrl: sandbox.baseUrl,
    apiKeyEnv: keyEnv(id),
    timezone: 'UTC',
    recipients: [`ops@${id}.example`],
    invoices: { notify: false },
  });
  return parseConfig(
    {
      redis: { url: redisUrl, prefix },
      mail: { from: 'Traffic Health Demo <alerts@thm-demo.example>', outboxDir, timeoutMs: 5_000 },
      api: {
        attempts: 2,
        retryBudgetMs: 2_000,
        connectTimeoutMs: 2_000,
        headersTimeoutMs: 5_000,
        bodyTimeoutMs: 5_000,
      },
      worker: { concurrency: 4, attempts: 2, backoffMs: 200 },
      channels: DEMO_CHANNELS,
      networks: [network('acme', 'Acme Network'), network('globex', 'Globex Partners')],
    },
    { env, source: '(demo)' },
  );
}

/** Wait until every decided notification of the day has been delivered (or refused). */
async function drainOutbox(worker: RunningWorker, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await worker.runtime.store.outboxCounts()).pending > 0) {
    if (Date.now() > deadline)
      throw new ThmError(
        'THM_TIMEOUT',
        'demo: e-mails still pending after 20 s (is the SMTP server answering?)',
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

function describeDay(asOf: string, outcomes: CheckOutcome[], config: Config): string[] {
  const lines = [`${asOf}`];
  for (const o of outcomes) {
    const name = config.networks.find((n) => n.id === o.networkId)?.name ?? o.networkId;
    const counts = o.counts
      ? [
          ...describeDrops(
            o.drops,
            o.notifications.some((n) => n.kind === 'alert'),
          ),
          ...Object.entries(o.counts)
            .filter(([, v]) => v > 0)
            .map(([k, v]) => `${v} ${k}`),
        ].join(', ') || 'nothing declining'
      : o.outcome;
    const mail = o.notifications.map((n) => `\n      e-mail: ${n.subject}`).join('');
    lines.push(`  ${name.padEnd(16)} ${counts}${mail}`);
  }
  return lines;
}

/** The .eml files of the notifications the demo decided (deterministic names: re-runs rewrite none). */
function emailFiles(dir: string, days: DemoResult['days']): string[] {
  return days.flatMap(({ outcomes }) =>
    outcomes.flatMap((o) =>
      o.notifications
        .map((n) =>
          path.join(dir, `${outboxFileBase({ ...n, networkId: o.networkId, asOf: o.asOf })}.eml`),
        )
        .filter((file) => existsSync(file)),
    ),
  );
}

/** The .json files of the channel deliveries the demo decided (named as the e-mails, plus the channel). */
function deliveryFiles(dir: string, days: DemoResult['days']): string[] {
  return days.flatMap(({ outcomes }) =>
    outcomes.flatMap((o) =>
      o.deliveries
        .map((d) => {
          const notificationId = parseChannelDeliveryId(d.id)?.notificationId ?? d.id;
          const named = { notificationId, kind: d.kind, networkId: o.networkId, asOf: o.asOf };
          return path.join(dir, channelFileName(named, d.channel));
        })
        .filter((file) => existsSync(file)),
    ),
  );
}

async function deleteKeys(config: Config, prefix: string): Promise<void> {
  const redis = connectRedis(config.redis, silentLogger, { maxRetriesPerRequest: 1 });
  try {
    await scanKeys(
      redis,
      `${prefix}:*`,
      async (keys, node) => void (await node.del(...keys)),
      1000,
    );
  } finally {
    redis.disconnect();
  }
}
