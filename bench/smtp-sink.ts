import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';

/**
 * A real SMTP server on loopback that accepts every message and counts them by their
 * X-THM-Notification header (the notification id): P3's "no e-mail lost or doubled" is read
 * from what the mail server received, not from the worker's own bookkeeping.
 */
export interface SmtpSink {
  url: string;
  /** Messages received per notification id. */
  received: Map<string, number>;
  messages(): number;
  close(): Promise<void>;
}

const ID_HEADER = /^X-THM-Notification:\s*(\S+)/im;

export async function startSmtpSink(): Promise<SmtpSink> {
  const received = new Map<string, number>();
  let count = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    size: 64 * 1024 * 1024,
    onData(stream: SMTPServerDataStream, _session, callback) {
      // The header block is in the first chunk(s): keep the first 16 KiB, drop the rest.
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 16_384) head += chunk.toString('latin1', 0, 16_384);
      });
      stream.on('end', () => {
        const id = ID_HEADER.exec(head.slice(0, head.search(/\r?\n\r?\n/) + 1 || undefined))?.[1];
        count += 1;
        if (id !== undefined) received.set(id, (received.get(id) ?? 0) + 1);
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    messages: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
