import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/demo/private-redis.js';

const RANGE = '/proc/sys/net/ipv4/ip_local_port_range';

describe('freePort', () => {
  it.runIf(existsSync(RANGE))(
    'is below the ephemeral range, where no outgoing connection can take it',
    async () => {
      const low = Number(readFileSync(RANGE, 'utf8').split(/\s/)[0]);
      const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
      for (const port of ports) {
        expect(port).toBeGreaterThanOrEqual(10_000);
        expect(port).toBeLessThan(low);
      }
    },
  );

  it('is a port a server can listen on', async () => {
    const port = await freePort();
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
