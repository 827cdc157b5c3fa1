import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { errorAnswer, json } from './answers.js';
import { readRequestBody, sendAnswer } from './respond.js';
import { faultSchema } from './scenario.js';
import type { SandboxState } from './state.js';

/**
 * The control surface outside /v1, for a sandbox run as its own process (tests, the demo): no
 * key, a loopback tool. A body that does not fit is 400 with the first problem.
 */
export function createControlHandler(
  state: SandboxState,
): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  return async (req, res, url) => {
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
        const { day, requestCount: requests, faults, keys } = state;
        return sendAnswer(res, json(200, { day, requests, faults: faults.size, keys }));
      }
      if (req.method === 'POST' && path === '/__sandbox/day') {
        state.setDay(z.object({ date: z.string() }).parse(body).date);
        return sendAnswer(res, json(200, { ok: true, day: state.day }));
      }
      if (req.method === 'POST' && path === '/__sandbox/faults') {
        const list = z.union([faultSchema, z.array(faultSchema)]).safeParse(body);
        if (!list.success)
          return sendAnswer(
            res,
            errorAnswer(400, `invalid fault: ${list.error.issues[0]?.message ?? ''}`),
          );
        state.faults.add(list.data);
        return sendAnswer(res, json(200, { ok: true, faults: state.faults.size }));
      }
      if (req.method === 'DELETE' && path === '/__sandbox/faults') {
        state.faults.clear();
        return sendAnswer(res, json(200, { ok: true }));
      }
      if (req.method === 'POST' && path === '/__sandbox/premium') {
        const parsed = z.object({ network: z.string(), on: z.boolean() }).parse(body);
        state.setPremium(parsed.network, parsed.on);
        return sendAnswer(res, json(200, { ok: true }));
      }
      return sendAnswer(res, errorAnswer(404, 'Not Found'));
    } catch (error) {
      const message =
        error instanceof z.ZodError ? error.issues[0]?.message : (error as Error).message;
      return sendAnswer(res, errorAnswer(400, message ?? 'bad request'));
    }
  };
}
