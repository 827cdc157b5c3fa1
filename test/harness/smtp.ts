import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { freePort, waitFor } from './ports.js';

/**
 * A real SMTP server on loopback. Every accepted message is parsed with mailparser. Faults are
 * injected for real: a reply code for the next N messages, a dropped connection mid-DATA, or a
 * slow acceptance.
 */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
}

export type SmtpFault =
  | { type: 'reply'; code: number; message: string }
  | { type: 'drop' }
  /** Accept the message, but only after `ms` (a slow server: a send stays in flight). */
  | { type: 'delay'; ms: number };

export interface TestSmtp {
  port: number;
  url: string;
  messages: ReceivedMail[];
  /** Faults applied to the next messages, one per message, in order. */
  faults: SmtpFault[];
  /** How many DATA commands were started (accepted or not). */
  attempts: number;
  /** How many AUTH commands the server was sent (right or wrong credentials). */
  logins: number;
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtp(
  options: { auth?: { user: string; pass: string } } = {},
): Promise<TestSmtp> {
  const port = await freePort();
  const state: TestSmtp = {
    port,
    url: options.auth
      ? `smtp://${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@127.0.0.1:${port}`
      : `smtp://127.0.0.1:${port}`,
    messages: [],
    faults: [],
    attempts: 0,
    logins: 0,
    waitForMessages: (count, timeoutMs = 10_000) =>
      waitFor(() => (state.messages.length >= count ? state.messages : undefined), {
        timeoutMs,
        what: `${count} e-mail(s) (have ${state.messages.length})`,
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      state.logins += 1;
      if (
        options.auth &&
        auth.username === options.auth.user &&
        auth.password === options.auth.pass
      ) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      state.attempts += 1;
      const fault = state.faults.shift();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (fault?.type === 'drop') {
          // Cut the TCP connection in the middle of DATA, before any reply.
          connectionSocket(server, session)?.destroy();
        }
      });
      stream.on('end', () => {
        if (fault?.type === 'drop') return;
        if (fault?.type === 'reply') {
          const error = Object.assign(new Error(fault.message), { responseCode: fault.code });
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const delay = fault?.type === 'delay' ? fault.ms : 0;
        new Promise((resolve) => setTimeout(resolve, delay))
          .then(() => simpleParser(raw))
          .then((parsed) => {
            state.messages.push({
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              raw,
              parsed,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return state;
}

/**
 * The TCP socket behind an SMTP session. smtp-server does not expose it on the session; its
 * connection objects (one per client, in `server.connections`) hold it as `_socket`.
 */
function connectionSocket(
  server: SMTPServer,
  session: SMTPServerSession,
): { destroy(): void } | undefined {
  const connections = (
    server as unknown as { connections: Set<{ id: string; _socket: { destroy(): void } }> }
  ).connections;
  for (const connection of connections) {
    if (connection.id === session.id) return connection._socket;
  }
  return undefined;
}
