import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyBytes, type Answer } from './answers.js';

/** How the sandbox reads a request's body and writes an answer to the socket. */

const REQUEST_BODY_MAX = 1024 * 1024;

/** The body as text; undefined when it is larger than REQUEST_BODY_MAX. */
export async function readRequestBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > REQUEST_BODY_MAX) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes an answer: whole, or in 16 KiB chunks without a length (`chunked`). */
export function sendAnswer(
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
