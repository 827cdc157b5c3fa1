import net from 'node:net';

/**
 * A minimal SMTP speaker that really cuts the TCP connection in the middle of DATA for the
 * first `drops` messages, then accepts, so a test can cut several times in a row on a fresh
 * server (the shared harness's `drop` fault cuts one message per fault). Enough protocol for
 * nodemailer: greeting, EHLO, MAIL, RCPT, DATA, RSET, QUIT.
 */
export interface DroppingSmtp {
  url: string;
  /** DATA commands started. */
  attempts: number;
  /** Raw messages accepted. */
  accepted: string[];
  close(): Promise<void>;
}

export async function startDroppingSmtp(drops: number): Promise<DroppingSmtp> {
  const sockets = new Set<net.Socket>();
  const state = { attempts: 0, accepted: [] as string[] };
  let remainingDrops = drops;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.write('220 dropping.test ESMTP\r\n');
    let buffer = '';
    let inData = false;
    let message = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (inData) {
        if (remainingDrops > 0) {
          remainingDrops -= 1;
          socket.destroy(); // the cut, before any reply
          return;
        }
        const end = buffer.indexOf('\r\n.\r\n');
        if (end === -1) return;
        message = buffer.slice(0, end);
        buffer = buffer.slice(end + 5);
        inData = false;
        state.accepted.push(message);
        socket.write('250 2.0.0 queued\r\n');
      }
      let newline: number;
      while (!inData && (newline = buffer.indexOf('\r\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-dropping.test\r\n250 8BITMIME\r\n');
        else if (
          verb === 'HELO' ||
          verb === 'MAIL' ||
          verb === 'RCPT' ||
          verb === 'RSET' ||
          verb === 'NOOP'
        )
          socket.write('250 OK\r\n');
        else if (verb === 'DATA') {
          state.attempts += 1;
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('502 not implemented\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    get attempts() {
      return state.attempts;
    },
    accepted: state.accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
