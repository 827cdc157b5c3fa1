import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP receiver on loopback for channel tests (webhooks, Slack): records every request
 * with its raw body, and answers as the test says, by default 200 "ok". `answer` decides per
 * request; it may also hang, drip, or drop the connection, to inject faults for real.
 */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The raw body, exactly as received (what a signature is computed over). */
  raw: Buffer;
  body: string;
}

export type Answer =
  | { status: number; body?: string; headers?: Record<string, string> }
  | { hang: true }
  | { destroy: true };

export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Decides the answer to each request (after it is recorded); default: 200 "ok". */
  answer: (request: ReceivedRequest, index: number) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  const sockets = new Set<Socket>();
  const receiver: TestReceiver = {
    url: '',
    requests: [],
    answer: () => ({ status: 200, body: 'ok' }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body: raw.toString('utf8'),
      };
      const index = receiver.requests.push(request) - 1;
      void Promise.resolve(receiver.answer(request, index)).then((answer) => {
        if ('hang' in answer) return;
        if ('destroy' in answer) {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
