import http, { type ServerResponse } from 'node:http';
import { bodyBytes, errorAnswer, type Answer } from './answers.js';
import { sendAnswer } from './respond.js';
import type { FaultEndpoint, ParsedFault } from './scenario.js';

/** The answer, bent by a fault (see faultSchema for what each does). */
export function sendFaulty(
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
