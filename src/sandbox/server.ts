import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { invoiceSummaryRequestSchema } from '../api/schemas.js';
import { UsageError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { isIsoDate, localDate } from '../dates.js';
import { FaultQueue } from './faults.js';
import { invoiceSummary } from './invoices.js';
import { PORTAL_OF_PREFIX, scenarioKeys, type SandboxKey } from './keys.js';
import { AdvertiserUserStore, type SandboxNotification } from './advertiser-users.js';
import { bodyBytes, errorAnswer, json, type Answer } from './answers.js';
import { connectionsPage } from './connections.js';
import { creative } from './creatives.js';
import { entityReportPage } from './entity-report.js';
import { TieredCommissionStore } from './tiered-commissions.js';
import {
  faultSchema,
  parseScenario,
  type Fault,
  type FaultEndpoint,
  type ParsedFault,
  type ParsedScenario,
  type SandboxNetwork,
  type Scenario,
} from './scenario.js';
import {
  decliningEntriesTemplate,
  explicitEntries,
  withNetworkId,
  realisticEntries,
} from './trends.js';

/*
 * The sandbox: a real HTTP server that answers as the partner API does (docs/api-notes.md)
 * for every endpoint of the spec's summary table, from a scenario. Not a mock of the client: it knows
 * nothing of it, and the client talks to it over real sockets exactly as to the real API.
 *
 * Under /v1 (the API):
 *   - the URL prefix selects the portal: /networks, /affiliates, /advertisers, /partners;
 *   - no or an unknown X-Service-Api-Key: 401 {"error":"No Authentication Method Found"};
 *     a key of another portal: 403 {"error":"Out of realm"};
 *   - GET  /networks                              the key's network (identity; spec: not shown)
 *   - GET  /networks/traffic/access               the Traffic Health access object
 *   - GET  /networks/traffic/isptrends            entries of the current as-of date; for a
 *        network without premium: 403 {"error":"Traffic Health Premium package is required"}
 *        (the seed leaves this status and text unstated; 403 is our pick, the client recognises
 *        any of 401/402/403, see src/api/error-mapping.ts)
 *   - POST /networks/billings/affiliates/summary  body {"filters":{"status":...}}
 *   - GET  /affiliates/affiliate, GET /advertisers/advertiser   identity (realm examples)
 *   - POST /partners/connections/table, GET /partners/connections   marketplace connections,
 *        paged by query page/page_size (default 1 and 50, page_size capped at 200 and the cap
 *        reported in paging.page_size; the seed allows endpoints a cap below 2,000); see
 *        connections.ts
 *   - POST /networks/advertisers/{advertiserId}/users   advertiser-users.ts
 *   - POST /networks/tieredcommissions                   tiered-commissions.ts
 *   - GET  /networks/creatives/{creativeId}              creatives.ts (unknown id: 404)
 *   - POST /networks/reporting/entity/table              entity-report.ts (paging in the body,
 *        10,000 rows served at most)
 *   - success is 200 everywhere (the spec shows no other success status);
 *   - error bodies are {"error": "..."}; a body breaking a rule of the spec is 422 with
 *     {"error":"<field>: <problem>","errors":[{"field","problem"},...]}, a taken e-mail 409,
 *     bad paging parameters or JSON 400 (the spec shows no validation error shape: our pick).
 *
 * Outside /v1 (the control surface, for a sandbox run as its own process by tests and the demo;
 * no key, loopback tool):
 *   GET    /__sandbox              {"day","requests","faults","keys"}
 *   POST   /__sandbox/day          {"date":"YYYY-MM-DD"}    the as-of date ("today" of the API)
 *   POST   /__sandbox/faults       a Fault or an array of them (scenario.ts faultSchema)
 *   DELETE /__sandbox/faults       drop every queued fault
 *   POST   /__sandbox/premium      {"network":"acme","on":false}
 */

export interface SandboxOptions {
  /** A scenario (parsed or not): builtinScenario('demo'), loadScenarioFile(...), or inline. */
  scenario: Scenario | ParsedScenario;
  /** @defaultValue 0 (a free port) */
  port?: number;
  /** @defaultValue 127.0.0.1 */
  host?: string;
  logger?: Logger;
}

export interface Sandbox {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** http://127.0.0.1:PORT/__sandbox */
  controlUrl: string;
  keys: SandboxKey[];
  /** Sets the as-of date (YYYY-MM-DD): isptrends then describes the day before it. */
  setDay(date: string): void;
  day(): string;
  setPremium(networkId: string, on: boolean): void;
  /** Queues faults (per network and endpoint; each used `times` times, default 1). */
  injectFault(fault: Fault | Fault[]): void;
  clearFaults(): void;
  /** API requests received under /v1 (answered or not). */
  requests(): number;
  /**
   * The same requests, oldest first (the latest REQUEST_LOG_MAX): method, the path under /v1
   * with its query, and the network of the key when it was one (tests use it to prove what was
   * sent, or that nothing was).
   */
  requestLog(): SandboxRequest[];
  /** TCP connections accepted (tests use it to see connection reuse). */
  connections(): number;
  /** E-mails the platform would have sent on advertiser user creation, oldest first. */
  notifications(): SandboxNotification[];
  close(): Promise<void>;
}

export type { Fault, SandboxKey, SandboxNotification };

export interface SandboxRequest {
  method: string;
  /** e.g. /networks/tieredcommissions, or /partners/connections/table?page=2 */
  path: string;
  network?: string;
}

/** Requests kept by requestLog(). */
const REQUEST_LOG_MAX = 1_000;

const PREMIUM_REQUIRED_MESSAGE = 'Traffic Health Premium package is required';
const REQUEST_BODY_MAX = 1024 * 1024;
/** Generated isptrends bodies kept, by total size. */
const BODY_CACHE_BYTES = 256 * 1024 * 1024;

interface RequestContext {
  network: SandboxNetwork;
  networkId: number;
  key: SandboxKey;
  url: URL;
  body: unknown;
  /** The path's parameters ({advertiserId}, {creativeId}), in order. */
  params: string[];
}

interface Route {
  method: 'GET' | 'POST';
  /** An exact path, or a pattern whose groups are the path parameters. */
  path: string | RegExp;
  endpoint: FaultEndpoint;
  handle(ctx: RequestContext): Answer;
}

/** The route's path parameters when it matches `path`, else undefined. */
function matchRoute(route: Route, path: string): string[] | undefined {
  if (typeof route.path === 'string') return route.path === path ? [] : undefined;
  const match = route.path.exec(path);
  return match ? match.slice(1) : undefined;
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const scenario = parseScenario(options.scenario);
  const logger = (options.logger ?? silentLogger).child({ component: 'sandbox' });
  const host = options.host ?? '127.0.0.1';
  const keys = scenarioKeys(scenario);
  const keyIndex = new Map(keys.map((k) => [k.key, k]));
  const networks = new Map(
    scenario.networks.map((n, i) => [n.id, { network: n, networkId: n.networkId ?? 1001 + i }]),
  );
  const premium = new Map(scenario.networks.map((n) => [n.id, n.premium]));
  const faults = new FaultQueue();
  faults.add(scenario.faults);
  const explicitDays = scenario.networks.flatMap((n) => Object.keys(n.days)).sort();
  let day = scenario.startDay ?? explicitDays[0] ?? localDate(Date.now(), 'UTC');
  let requestCount = 0;
  const requestLog: SandboxRequest[] = [];
  let connectionCount = 0;
  const bodies = new ByteBoundedCache();
  const advertiserUsers = new AdvertiserUserStore();
  const tieredCommissions = new TieredCommissionStore();
  const templates = new Map<string, Buffer[]>();
  /** Template bodies sent once as parts (trendsBody). */
  const servedOnce = new Set<string>();

  function trendsBody(network: SandboxNetwork, networkId: number): Answer['body'] {
    const generator = network.generator;
    const cacheKey = `${network.id}|${day}`;
    const cached = bodies.get(cacheKey);
    if (cached) return cached;
    if (generator?.type === 'declining' && !network.days[day]?.entries) {
      // One template per size and day serves every network of that size: its parts are sent
      // with this network's id between them, not joined, so serving a fleet's bodies once each
      // costs the sandbox little (the benchmark shares its cores with the worker). A body asked
      // for again is joined and kept, as the others are: sending it whole is cheaper still.
      const templateKey = `${generator.pairs}|${generator.ispsPerDomain}|${day}`;
      let parts = templates.get(templateKey);
      if (!parts) {
        parts = decliningEntriesTemplate(generator.pairs, generator.ispsPerDomain, day).map(
          (part) => Buffer.from(part),
        );
        if (templates.size >= 4) templates.delete(templates.keys().next().value!);
        templates.set(templateKey, parts);
      }
      const body = withNetworkId(parts, networkId);
      if (!servedOnce.delete(cacheKey)) {
        servedOnce.add(cacheKey);
        return body;
      }
      const joined = Buffer.concat(body);
      bodies.set(cacheKey, joined);
      return joined;
    }
    let text: string;
    const explicit = network.days[day]?.entries;
    if (explicit) {
      text = JSON.stringify({ entries: explicitEntries(networkId, explicit) });
    } else if (generator?.type === 'realistic') {
      text = JSON.stringify({
        entries: realisticEntries(scenario.seed, networkId, generator, day),
      });
    } else {
      text = '{"entries":[]}';
    }
    const body = Buffer.from(text);
    bodies.set(cacheKey, body);
    return body;
  }

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/networks',
      endpoint: 'identity',
      handle: ({ network, networkId }) =>
        json(200, { network: { network_id: networkId, name: network.name ?? network.id } }),
    },
    {
      method: 'GET',
      path: '/networks/traffic/access',
      endpoint: 'access',
      handle: ({ network }) => {
        const on = premium.get(network.id) ?? false;
        return json(200, {
          is_enabled: true,
          has_premium: on,
          has_blacklist_monitoring: on,
          has_monitoring_alerts: on,
          has_third_party_domain_monitoring: on,
          has_external_proxy_domain: on,
          has_external_notifications: on,
          has_domain_assignment_management: on,
          premium_monitored_domain_quota: on ? 25 : 0,
        });
      },
    },
    {
      method: 'GET',
      path: '/networks/traffic/isptrends',
      endpoint: 'isptrends',
      handle: ({ network, networkId }) => {
        if (!premium.get(network.id)) return errorAnswer(403, PREMIUM_REQUIRED_MESSAGE);
        return { status: 200, body: trendsBody(network, networkId) };
      },
    },
    {
      method: 'POST',
      path: '/networks/billings/affiliates/summary',
      endpoint: 'summary',
      handle: ({ network, body }) => {
        const parsed = invoiceSummaryRequestSchema.safeParse(body);
        if (!parsed.success) return errorAnswer(400, 'filters.status must be a string');
        return json(200, invoiceSummary(scenario.seed, network, day, parsed.data.filters.status));
      },
    },
    {
      method: 'GET',
      path: '/affiliates/affiliate',
      endpoint: 'identity',
      handle: ({ networkId }) =>
        json(200, { affiliate: { network_affiliate_id: 1, network_id: networkId } }),
    },
    {
      method: 'GET',
      path: '/advertisers/advertiser',
      endpoint: 'identity',
      handle: ({ networkId }) =>
        json(200, { advertiser: { network_advertiser_id: 1, network_id: networkId } }),
    },
    {
      method: 'GET',
      path: '/partners/connections',
      endpoint: 'connections',
      handle: (ctx) =>
        connectionsPage(ctx.network, ctx.networkId, ctx.url, ctx.body, scenario.seed),
    },
    {
      method: 'POST',
      path: '/partners/connections/table',
      endpoint: 'connections',
      handle: (ctx) =>
        connectionsPage(ctx.network, ctx.networkId, ctx.url, ctx.body, scenario.seed),
    },
    {
      method: 'POST',
      path: /^\/networks\/advertisers\/([^/]+)\/users$/,
      endpoint: 'advertiser-users',
      handle: ({ network, networkId, url, body, params }) => {
        const advertiserId = Number(params[0]);
        if (!Number.isSafeInteger(advertiserId)) return errorAnswer(404, 'Advertiser not found');
        return advertiserUsers.create({ network: network.id, networkId, advertiserId, url, body });
      },
    },
    {
      method: 'POST',
      path: '/networks/tieredcommissions',
      endpoint: 'tiered-commissions',
      handle: ({ networkId, body }) => tieredCommissions.create({ networkId, day, body }),
    },
    {
      method: 'GET',
      path: /^\/networks\/creatives\/([^/]+)$/,
      endpoint: 'creatives',
      handle: ({ network, networkId, params }) => {
        const found = /^\d+$/.test(params[0] ?? '')
          ? creative(network, networkId, Number(params[0]))
          : undefined;
        return found ? json(200, found) : errorAnswer(404, 'Creative not found');
      },
    },
    {
      method: 'POST',
      path: '/networks/reporting/entity/table',
      endpoint: 'entity-report',
      handle: ({ network, body }) =>
        entityReportPage({ seed: scenario.seed, network: network.id, body }),
    },
  ];

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    requestCount += 1;
    const path = url.pathname.slice('/v1'.length).replace(/\/+$/, '') || '/';
    const header = req.headers['x-service-api-key'];
    const key = typeof header === 'string' ? keyIndex.get(header) : undefined;
    requestLog.push({
      method: req.method ?? '',
      path: path + url.search,
      ...(key ? { network: key.network } : {}),
    });
    if (requestLog.length > REQUEST_LOG_MAX) requestLog.shift();
    const portal = PORTAL_OF_PREFIX[path.split('/')[1] ?? ''];
    if (!portal) return sendAnswer(res, errorAnswer(404, 'Not Found'));
    if (!key) return sendAnswer(res, errorAnswer(401, 'No Authentication Method Found'));
    if (key.portal !== portal) return sendAnswer(res, errorAnswer(403, 'Out of realm'));
    let params: string[] | undefined;
    const route = routes.find(
      (r) => r.method === req.method && (params = matchRoute(r, path)) !== undefined,
    );
    if (!route || !params) {
      const other = routes.some((r) => matchRoute(r, path) !== undefined);
      return sendAnswer(
        res,
        other ? errorAnswer(405, 'Method Not Allowed') : errorAnswer(404, 'Not Found'),
      );
    }
    const entry = networks.get(key.network)!;
    let body: unknown;
    if (req.method === 'POST') {
      const text = await readRequestBody(req);
      if (text === undefined) return sendAnswer(res, errorAnswer(413, 'Payload Too Large'));
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        return sendAnswer(res, errorAnswer(400, 'Invalid JSON body'));
      }
    }
    const fault = faults.take(key.network, route.endpoint);
    if (fault)
      logger.debug({ network: key.network, endpoint: route.endpoint, fault }, 'sandbox fault');
    if (fault?.delayMs) {
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (res.destroyed) return;
    }
    if (fault?.hang) return; // never answered; close() ends the connection
    const answer = route.handle({
      network: entry.network,
      networkId: entry.networkId,
      key,
      url,
      body,
      params,
    });
    if (!fault) return sendAnswer(res, answer);
    return sendFaulty(res, answer, fault, route.endpoint, entry.networkId);
  }

  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.replace(/\/+$/, '');
    const text = req.method === 'POST' ? ((await readRequestBody(req)) ?? '') : '';
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      return sendAnswer(res, errorAnswer(400, 'Invalid JSON body'));
    }
    try {
      if (req.method === 'GET' && path === '/__sandbox') {
        return sendAnswer(
          res,
          json(200, { day, requests: requestCount, faults: faults.size, keys }),
        );
      }
      if (req.method === 'POST' && path === '/__sandbox/day') {
        sandbox.setDay(z.object({ date: z.string() }).parse(body).date);
        return sendAnswer(res, json(200, { ok: true, day }));
      }
      if (req.method === 'POST' && path === '/__sandbox/faults') {
        const list = z.union([faultSchema, z.array(faultSchema)]).safeParse(body);
        if (!list.success)
          return sendAnswer(
            res,
            errorAnswer(400, `invalid fault: ${list.error.issues[0]?.message ?? ''}`),
          );
        sandbox.injectFault(list.data);
        return sendAnswer(res, json(200, { ok: true, faults: faults.size }));
      }
      if (req.method === 'DELETE' && path === '/__sandbox/faults') {
        sandbox.clearFaults();
        return sendAnswer(res, json(200, { ok: true }));
      }
      if (req.method === 'POST' && path === '/__sandbox/premium') {
        const parsed = z.object({ network: z.string(), on: z.boolean() }).parse(body);
        sandbox.setPremium(parsed.network, parsed.on);
        return sendAnswer(res, json(200, { ok: true }));
      }
      return sendAnswer(res, errorAnswer(404, 'Not Found'));
    } catch (error) {
      const message =
        error instanceof z.ZodError ? error.issues[0]?.message : (error as Error).message;
      return sendAnswer(res, errorAnswer(400, message ?? 'bad request'));
    }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const work = url.pathname.startsWith('/__sandbox')
      ? handleControl(req, res, url)
      : url.pathname === '/v1' || url.pathname.startsWith('/v1/')
        ? handleApi(req, res, url)
        : Promise.resolve(sendAnswer(res, errorAnswer(404, 'Not Found')));
    work
      .then(() =>
        logger.debug(
          { method: req.method, path: url.pathname, status: res.statusCode },
          'sandbox request',
        ),
      )
      .catch((error: unknown) => {
        logger.error({ err: error }, 'sandbox handler failed');
        if (!res.headersSent) sendAnswer(res, errorAnswer(500, 'Internal Server Error'));
        else res.destroy();
      });
  });
  server.on('connection', () => {
    connectionCount += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const sandbox: Sandbox = {
    baseUrl: `${origin}/v1`,
    controlUrl: `${origin}/__sandbox`,
    keys,
    setDay(date: string) {
      if (!isIsoDate(date)) throw new UsageError(`sandbox day: "${date}" is not a date YYYY-MM-DD`);
      day = date;
    },
    day: () => day,
    setPremium(networkId: string, on: boolean) {
      if (!networks.has(networkId)) throw new UsageError(`sandbox: unknown network "${networkId}"`);
      premium.set(networkId, on);
    },
    injectFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    requests: () => requestCount,
    requestLog: () => [...requestLog],
    connections: () => connectionCount,
    notifications: () => advertiserUsers.notifications(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  logger.info({ baseUrl: sandbox.baseUrl, networks: networks.size, day }, 'sandbox listening');
  return sandbox;
}

async function readRequestBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > REQUEST_BODY_MAX) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendAnswer(
  res: ServerResponse,
  answer: Answer,
  extra: { retryAfter?: string; chunked?: boolean } = {},
): void {
  const headers: Record<string, string | number> = {
    'content-type': answer.contentType ?? 'application/json; charset=utf-8',
  };
  if (extra.retryAfter !== undefined) headers['retry-after'] = extra.retryAfter;
  if (Array.isArray(answer.body) && !extra.chunked) {
    const parts = answer.body as readonly Buffer[];
    headers['content-length'] = parts.reduce((sum, part) => sum + part.length, 0);
    res.writeHead(answer.status, headers);
    res.cork();
    for (const part of parts) res.write(part);
    res.uncork();
    res.end();
    return;
  }
  const body = bodyBytes(answer.body);
  if (!extra.chunked) {
    headers['content-length'] = body.length;
    res.writeHead(answer.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(answer.status, headers);
  for (let offset = 0; offset < body.length; offset += 16 * 1024) {
    res.write(body.subarray(offset, offset + 16 * 1024));
  }
  res.end();
}

/** The answer, bent by a fault (see faultSchema for what each does). */
function sendFaulty(
  res: ServerResponse,
  answer: Answer,
  fault: ParsedFault,
  endpoint: FaultEndpoint,
  networkId: number,
): void {
  const extra = {
    ...(fault.retryAfter !== undefined ? { retryAfter: String(fault.retryAfter) } : {}),
    ...(fault.chunked ? { chunked: true } : {}),
  };
  const status = fault.status;
  if (fault.dripMs !== undefined) return drip(res, answer, fault.dripMs, status);
  switch (fault.body) {
    case undefined:
      if (status === undefined) return sendAnswer(res, answer, extra);
      if (status < 400) return sendAnswer(res, { ...answer, status }, extra);
      return sendAnswer(res, errorAnswer(status, http.STATUS_CODES[status] ?? 'Error'), extra);
    case 'malformed-json':
      return sendAnswer(
        res,
        { status: status ?? 200, body: '{"entries":[{"network_id":1,"isp":' },
        extra,
      );
    case 'invalid-schema':
      return sendAnswer(
        res,
        { status: status ?? 200, body: corrupt(answer, endpoint, networkId) },
        extra,
      );
    case 'truncated':
    case 'stalled': {
      const body = bodyBytes(answer.body);
      res.writeHead(status ?? answer.status, {
        'content-type': 'application/json',
        'content-length': body.length,
      });
      const half = body.subarray(0, Math.floor(body.length / 2));
      // stalled: the rest never comes; close() ends the connection.
      res.write(half, () => (fault.body === 'truncated' ? res.socket?.destroy() : undefined));
      return;
    }
    default: {
      const looksJson = /^\s*[{[]/.test(fault.body);
      return sendAnswer(
        res,
        {
          status: status ?? 200,
          body: fault.body,
          contentType: looksJson ? 'application/json' : 'text/plain; charset=utf-8',
        },
        extra,
      );
    }
  }
}

/** The answer with its body sent one byte at a time; stops when the client goes away. */
function drip(res: ServerResponse, answer: Answer, everyMs: number, status?: number): void {
  const body = bodyBytes(answer.body);
  res.writeHead(status ?? answer.status, {
    'content-type': 'application/json',
    'content-length': body.length,
  });
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= body.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(body.subarray(sent, sent + 1));
    sent += 1;
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

/** The real body with one field mistyped, where the client must notice it. */
function corrupt(answer: Answer, endpoint: FaultEndpoint, networkId: number): string {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(bodyBytes(answer.body).toString()) as Record<string, unknown>;
  } catch {
    return '"invalid"';
  }
  if (endpoint === 'isptrends' && Array.isArray(value.entries)) {
    const entries = value.entries as Record<string, unknown>[];
    if (entries.length === 0)
      entries.push({ network_id: networkId, network_tracking_domain_id: 1, isp: 'Invalid' });
    const last = entries[entries.length - 1]!;
    last.yesterday_total_clicks = String(last.yesterday_total_clicks ?? 'n/a');
  } else if (endpoint === 'access') {
    value.has_premium = 'yes';
  } else if (endpoint === 'summary') {
    value.balance = 'n/a';
  } else if (value.paging && typeof value.paging === 'object') {
    (value.paging as Record<string, unknown>).total_count = 'many';
  } else {
    return '"invalid"';
  }
  return JSON.stringify(value);
}

/** A map of Buffers that drops its oldest entries when over a total size. */
class ByteBoundedCache {
  #map = new Map<string, Buffer>();
  #bytes = 0;

  get(key: string): Buffer | undefined {
    return this.#map.get(key);
  }

  set(key: string, value: Buffer): void {
    this.#map.set(key, value);
    this.#bytes += value.length;
    for (const [oldKey, old] of this.#map) {
      if (this.#bytes <= BODY_CACHE_BYTES || oldKey === key) break;
      this.#map.delete(oldKey);
      this.#bytes -= old.length;
    }
  }
}
