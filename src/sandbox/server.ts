import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../log.js';
import type { SandboxNotification } from './advertiser-users.js';
import { errorAnswer } from './answers.js';
import { createApiHandler } from './api-handler.js';
import { createControlHandler } from './control.js';
import type { SandboxKey } from './keys.js';
import { sendAnswer } from './respond.js';
import { billingRoutes } from './routes/billing.js';
import { identityRoutes } from './routes/identity.js';
import { networkResourceRoutes } from './routes/network-resources.js';
import { partnerRoutes } from './routes/partners.js';
import { trafficRoutes } from './routes/traffic.js';
import { parseScenario, type Fault, type ParsedScenario, type Scenario } from './scenario.js';
import { SandboxState, type SandboxRequest } from './state.js';

/*
 * The sandbox: a real HTTP server that answers as the partner API does (docs/api-notes.md)
 * for every endpoint of the spec's summary table, from a scenario. Not a mock of the client: it knows
 * nothing of it, and the client talks to it over real sockets exactly as to the real API.
 *
 * Under /v1 (the API; api-handler.ts, the routes by family in routes/):
 *   - the URL prefix selects the portal: /networks, /affiliates, /advertisers, /partners;
 *   - no or an unknown X-Service-Api-Key: 401 {"error":"No Authentication Method Found"};
 *     a key of another portal: 403 {"error":"Out of realm"};
 *   - GET  /networks                              the key's network (identity; spec: not shown)
 *   - GET  /networks/traffic/access               the Traffic Health access object
 *   - GET  /networks/traffic/isptrends            entries of the current as-of date; for a
 *        network without premium: 403 {"error":"Traffic Health Premium package is required"}
 *        (the API's documentation leaves this status and text unstated: docs/api-notes.md; 403
 *        is our pick, the client recognises any of 401/402/403, see src/api/error-mapping.ts)
 *   - POST /networks/billings/affiliates/summary  body {"filters":{"status":...}}
 *   - GET  /affiliates/affiliate, GET /advertisers/advertiser   identity (realm examples)
 *   - POST /partners/connections/table, GET /partners/connections   marketplace connections,
 *        paged by query page/page_size (default 1 and 50, page_size capped at 200 and the cap
 *        reported in paging.page_size; the API allows endpoints a cap below 2,000); see
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
 * no key, loopback tool; control.ts):
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

export type { Fault, SandboxKey, SandboxNotification, SandboxRequest };

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const state = new SandboxState(parseScenario(options.scenario));
  const logger = (options.logger ?? silentLogger).child({ component: 'sandbox' });
  const host = options.host ?? '127.0.0.1';
  const handleApi = createApiHandler(
    state,
    [
      ...identityRoutes(),
      ...trafficRoutes(state),
      ...billingRoutes(state),
      ...partnerRoutes(state),
      ...networkResourceRoutes(state),
    ],
    logger,
  );
  const handleControl = createControlHandler(state);

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
    state.connectionCount += 1;
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
    keys: state.keys,
    setDay: (date) => state.setDay(date),
    day: () => state.day,
    setPremium: (networkId, on) => state.setPremium(networkId, on),
    injectFault: (fault) => state.faults.add(fault),
    clearFaults: () => state.faults.clear(),
    requests: () => state.requestCount,
    requestLog: () => state.requestLog(),
    connections: () => state.connectionCount,
    notifications: () => state.advertiserUsers.notifications(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  logger.info(
    { baseUrl: sandbox.baseUrl, networks: state.networks.size, day: state.day },
    'sandbox listening',
  );
  return sandbox;
}
