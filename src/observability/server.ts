import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Queue } from 'bullmq';
import { ConfigError } from '../errors.js';
import type { ReloadResult } from '../config/changes.js';
import type { Logger } from '../log.js';
import { BASIC_REALM, isAuthorized } from './basic-auth.js';
import { loadQueueViews, renderDashboard } from './dashboard.js';
import type { HealthCheck } from './health.js';
import type { WorkerMetrics } from './metrics.js';
import { withTimeout } from '../with-timeout.js';

/**
 * The monitoring HTTP server (config section `monitoring`): one node:http server with
 *   GET /metrics     Prometheus text format
 *   GET /healthz     200 or 503, JSON {ok, problems, ...}; `config` says a failed reload
 *   GET /-/ready     the same deep check (Prometheus' name; Docker's HEALTHCHECK uses it)
 *   GET /-/healthy   200 while the process answers at all (liveness)
 *   POST /-/reload   read the config again: 200 {ok, changes}, 400/500 {ok:false, error}
 *   GET /queues      the read-only queue page, behind basic auth; 404 without dashboardAuth
 * Anything else is 404; a method a route does not take is 405.
 */
export interface MonitoringServerOptions {
  /** The port, already listening (listenMonitoring). */
  listener: MonitoringListener;
  metrics: WorkerMetrics;
  health: HealthCheck;
  /** "user:password"; absent: /queues answers 404. */
  dashboardAuth?: string;
  /** Queues shown on /queues. */
  queues: readonly Queue[];
  logger: Logger;
  /** POST /-/reload (absent: 404). */
  reload?: () => Promise<ReloadResult>;
  /** "config reload failed: ..." while the last reload failed; shown by /healthz. */
  configFailure?: () => string | undefined;
  /** Longest wait for Redis while building /queues. @defaultValue 3000 */
  redisTimeoutMs?: number;
  now?: () => number;
}

export interface MonitoringServer {
  /** e.g. http://127.0.0.1:9464 */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export function startMonitoringServer(options: MonitoringServerOptions): MonitoringServer {
  const { metrics, health, logger } = options;
  const now = options.now ?? Date.now;

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
    '/metrics': async (_req, res) => {
      const text = await metrics.render();
      send(res, 200, metrics.contentType, text);
    },
    '/healthz': (req, res) => deepCheck(req, res),
    '/-/ready': (req, res) => deepCheck(req, res),
    '/-/healthy': async (_req, res) => send(res, 200, 'text/plain; charset=utf-8', 'OK\n'),
    '/queues': async (req, res) => {
      const auth = options.dashboardAuth;
      if (!auth) return notFound(res);
      if (!isAuthorized(req, auth)) {
        res.setHeader('www-authenticate', BASIC_REALM);
        return send(res, 401, 'text/plain; charset=utf-8', 'authentication required\n');
      }
      let views;
      try {
        views = await withTimeout(
          loadQueueViews(options.queues),
          options.redisTimeoutMs ?? 3_000,
          'redis',
        );
      } catch (error) {
        return send(
          res,
          503,
          'text/plain; charset=utf-8',
          `queues unavailable: ${(error as Error).message}\n`,
        );
      }
      res.setHeader(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      );
      send(res, 200, 'text/html; charset=utf-8', renderDashboard(views, now()));
    },
  };

  // A failed reload is said, not counted as unhealthy: the worker goes on with the config
  // it had, and an orchestrator restarting it would not make the file any better.
  async function deepCheck(_req: IncomingMessage, res: ServerResponse): Promise<void> {
    const report = await health.check();
    const failure = options.configFailure?.();
    const body = failure === undefined ? report : { ...report, config: failure };
    send(res, report.ok ? 200 : 503, 'application/json', `${JSON.stringify(body)}\n`);
  }

  const postRoutes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>> =
    {};
  const reload = options.reload;
  if (reload) {
    postRoutes['/-/reload'] = async (_req, res) => {
      const result = await reload();
      const status = result.ok ? 200 : result.error.code === 'THM_CONFIG' ? 400 : 500;
      send(res, status, 'application/json', `${JSON.stringify(result)}\n`);
    };
  }

  options.listener.serve((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/(.)\/+$/, '$1');
    const post = postRoutes[path];
    const route = routes[path] ?? post;
    if (!route) return notFound(res);
    const allowed = post ? ['POST'] : ['GET', 'HEAD'];
    if (!allowed.includes(req.method ?? '')) {
      res.setHeader('allow', allowed.join(', '));
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    route(req, res).catch((error: Error) => {
      logger.warn({ path }, `monitoring request failed: ${error.message}`);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
  });
  return options.listener;
}

/**
 * The monitoring port, bound before the worker does anything else: a second worker on the same
 * host (the same port) fails here, with one line, before it has touched Redis or the
 * schedulers. Until `serve` hands it the routes it answers `/-/healthy` (the process is alive)
 * and 503 "starting" to everything else.
 */
export interface MonitoringListener {
  /** e.g. http://127.0.0.1:9464 */
  readonly url: string;
  readonly port: number;
  serve(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  close(): Promise<void>;
}

export async function listenMonitoring(options: {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  logger: Logger;
}): Promise<MonitoringListener> {
  const { logger } = options;
  let handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/-/healthy') send(res, 200, 'text/plain; charset=utf-8', 'OK\n');
    else send(res, 503, 'text/plain; charset=utf-8', 'starting\n');
  };
  const server = createServer((req, res) => handler(req, res));
  // Scrapers keep connections open; they must not hold up a shutdown.
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          `monitoring.port: cannot listen on ${options.host}:${options.port} (${error.code ?? error.message}${error.code === 'EADDRINUSE' ? ': another process, another worker on this host?' : ''})`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => logger.warn(`monitoring server: ${error.message}`));
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  logger.info({ host: options.host, port }, 'monitoring server listening');

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    serve(next) {
      handler = next;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(body),
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function notFound(res: ServerResponse): void {
  send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
}
