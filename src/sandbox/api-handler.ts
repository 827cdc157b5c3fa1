import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import { errorAnswer } from './answers.js';
import { sendFaulty } from './fault-answers.js';
import { PORTAL_OF_PREFIX } from './keys.js';
import { readRequestBody, sendAnswer } from './respond.js';
import { matchRoute, type Route } from './route.js';
import type { SandboxState } from './state.js';

/**
 * Answers a request under /v1 as the API does: the path's prefix picks the portal; no or an
 * unknown key is 401, a key of another portal 403; then the route (404 for an unknown path,
 * 405 for a known one with another method), the JSON body of a POST, and the first queued
 * fault for the network and endpoint, which may delay, withhold or bend the route's answer.
 */
export function createApiHandler(
  state: SandboxState,
  routes: readonly Route[],
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  return async (req, res, url) => {
    const path = url.pathname.slice('/v1'.length).replace(/\/+$/, '') || '/';
    const key = state.keyOf(req.headers['x-service-api-key']);
    state.logRequest({
      method: req.method ?? '',
      path: path + url.search,
      ...(key ? { network: key.network } : {}),
    });
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
    const { network, networkId } = state.networks.get(key.network)!;
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
    const fault = state.faults.take(key.network, route.endpoint);
    if (fault)
      logger.debug({ network: key.network, endpoint: route.endpoint, fault }, 'sandbox fault');
    if (fault?.delayMs) {
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (res.destroyed) return;
    }
    if (fault?.hang) return; // never answered; close() ends the connection
    const answer = route.handle({ network, networkId, key, url, body, params });
    if (!fault) return sendAnswer(res, answer);
    return sendFaulty(res, answer, fault, route.endpoint, networkId);
  };
}
