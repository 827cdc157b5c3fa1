import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import {
  REUSE_FROM_BYTES,
  dropFreeBuffers,
  freeBufferBytes,
} from '../../src/api/receive-buffer.js';
import { Secret } from '../../src/config/secret.js';
import { builtinScenario } from '../../src/sandbox/index.js';
import { TEST_HTTP, startTestSandbox, type TestSandbox } from '../harness/sandbox.js';

/**
 * Large bodies are received into a reused buffer (src/api/receive-buffer.ts): what the client
 * returns is what the server sent, whether the buffer is new or reused, one per read at once.
 */
let sbx: TestSandbox;

beforeAll(async () => {
  // bench-1: 4,000 pairs, a body of ~3 MB.
  sbx = await startTestSandbox(
    builtinScenario('bench', { networks: 1, pairsPerNetwork: 4_000, startDay: '2026-11-21' }),
  );
});
afterAll(async () => {
  dropFreeBuffers();
  await sbx.close();
});

async function direct(): Promise<{ entries: unknown[]; bytes: number }> {
  const response = await request(`${sbx.baseUrl}/networks/traffic/isptrends`, {
    headers: { 'x-service-api-key': sbx.key('bench-1'), accept: 'application/json' },
  });
  const text = await response.body.text();
  return { ...(JSON.parse(text) as { entries: unknown[] }), bytes: Buffer.byteLength(text) };
}

describe('receiving a large body into a reused buffer', () => {
  it('gives the entries as sent, into a fresh buffer and again into the reused one', async () => {
    dropFreeBuffers();
    const client = createApiClient({
      baseUrl: sbx.baseUrl,
      apiKey: sbx.apiKey('bench-1'),
      networkId: 'bench-1',
      http: TEST_HTTP,
    });
    try {
      const expected = await direct();
      expect(expected.bytes).toBeGreaterThan(REUSE_FROM_BYTES);
      const first = await client.getIspTrends();
      expect(first.entries).toEqual(expected.entries);
      // The buffer went back to the pool, and the next read takes it again.
      const held = freeBufferBytes();
      expect(held).toBeGreaterThanOrEqual(expected.bytes);
      const again = await client.getIspTrends();
      expect(again.entries).toEqual(expected.entries);
      expect(freeBufferBytes()).toBe(held);

      // Reads at once each get a buffer of their own.
      const [a, b] = await Promise.all([client.getIspTrends(), client.getIspTrends()]);
      expect(a.entries).toEqual(expected.entries);
      expect(b.entries).toEqual(expected.entries);
      expect(freeBufferBytes()).toBe(2 * held);

      // Released when idle (the timer's action, called directly).
      dropFreeBuffers();
      expect(freeBufferBytes()).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe('receiving a large body of unknown length (chunked transfer)', () => {
  /** ~5 MB of entries, sent in 64 KB writes without a Content-Length. */
  const text = JSON.stringify({
    entries: Array.from({ length: 20_000 }, (_, i) => ({ isp: `ISP ${i}`, pad: 'x'.repeat(230) })),
  });
  const size = Buffer.byteLength(text);
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let at = 0; at < text.length; at += 64 * 1024) res.write(text.slice(at, at + 64 * 1024));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    dropFreeBuffers();
    await new Promise((resolve) => server.close(resolve));
  });

  it('moves into a buffer that grows, keeps only the last, and the next body reuses it', async () => {
    dropFreeBuffers();
    const client = createApiClient({
      baseUrl,
      apiKey: new Secret('chunked-test-key'),
      networkId: 'chunked',
      http: TEST_HTTP,
    });
    try {
      // Past the first buffer (two to three times REUSE_FROM_BYTES), so it grows at least once.
      expect(size).toBeGreaterThan(4 * REUSE_FROM_BYTES);
      const first = await client.request('GET', '/entries');
      expect(first).toEqual(JSON.parse(text));
      // One buffer kept, of at least the body's size: not the ones it outgrew on the way
      // (those would add a half of it or more).
      const held = freeBufferBytes();
      expect(held).toBeGreaterThanOrEqual(size);
      expect(held).toBeLessThan(1.7 * size);
      const again = await client.request('GET', '/entries');
      expect(again).toEqual(JSON.parse(text));
      expect(freeBufferBytes()).toBe(held);
    } finally {
      await client.close();
    }
  });
});
