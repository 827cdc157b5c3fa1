import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import {
  REUSE_FROM_BYTES,
  dropFreeBuffers,
  freeBufferBytes,
} from '../../src/api/receive-buffer.js';
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
