import { PassThrough } from 'node:stream';
import { inspect } from 'node:util';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { ispTrendSchema } from '../../src/api/schemas.js';
import { Secret } from '../../src/config/secret.js';
import { ApiError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { TEST_HTTP, startTestSandbox, type TestSandbox } from '../harness/sandbox.js';
import { apiFailure } from '../harness/api.js';

/**
 * The client against the sandbox over real loopback HTTP (the demo scenario: acme has premium,
 * globex has not).
 */

let sbx: TestSandbox;
const clients: ApiClient[] = [];
const logLines: string[] = [];
const logStream = new PassThrough();
logStream.on('data', (chunk: Buffer) => logLines.push(chunk.toString()));
const logger = createLogger({ destination: logStream, level: 'debug' });

function client(
  overrides: Omit<Partial<ApiClientOptions>, 'http'> & {
    http?: Partial<ApiClientOptions['http']>;
  } = {},
) {
  const { http, ...rest } = overrides;
  const c = createApiClient({
    baseUrl: sbx.baseUrl,
    apiKey: sbx.apiKey('acme'),
    networkId: 'acme',
    logger,
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
    ...rest,
    http: { ...TEST_HTTP, ...http },
  });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterEach(() => sbx.sandbox.clearFaults());
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sbx.close();
});

describe('successful calls', () => {
  it('reads the access object of a premium and a non-premium network', async () => {
    expect((await client().getTrafficAccess()).has_premium).toBe(true);
    const globex = client({ apiKey: sbx.apiKey('globex'), networkId: 'globex' });
    const access = await globex.getTrafficAccess();
    expect(access).toMatchObject({ is_enabled: true, has_premium: false });
  });

  it('reads ISP trends whose every entry is a valid, declining pair', async () => {
    sbx.sandbox.setDay('2026-11-17');
    const { entries } = await client().getIspTrends();
    expect(entries.length).toBeGreaterThan(10);
    for (const entry of entries) {
      expect(ispTrendSchema.safeParse(entry).success).toBe(true);
      expect(entry.yesterday_total_clicks).toBeLessThan(entry.seven_days_ago_total_clicks);
      expect(entry.yesterday_total_clicks).toBeLessThan(entry.thirty_days_ago_total_clicks);
    }
    expect(entries.filter((e) => e.network_tracking_domain_id === 102)).toHaveLength(10);
  });

  it('reads the invoice summary for a status, and it changes from day to day', async () => {
    const c = client();
    sbx.sandbox.setDay('2026-11-14');
    const first = await c.getInvoiceSummary('unpaid');
    sbx.sandbox.setDay('2026-11-15');
    const second = await c.getInvoiceSummary('unpaid');
    expect(first).toMatchObject({ total_count: expect.any(Number), balance: expect.any(Number) });
    expect(second.billed).not.toBe(first.billed);
    expect(first.balance).toBeCloseTo(first.billed - first.paid, 2);
  });
});

describe('errors that retrying cannot fix (each one request, not retried)', () => {
  it('401 with a key the API does not know: THM_API_AUTH with the API message', async () => {
    const before = sbx.sandbox.requests();
    const error = await apiFailure(
      client({ apiKey: new Secret('sbx_not_a_real_key_0000') }).getTrafficAccess(),
    );
    expect(error).toMatchObject({ code: 'THM_API_AUTH', status: 401, retryable: false });
    expect(error.remoteMessage).toBe('No Authentication Method Found');
    expect(error.message).toContain('network acme: GET /networks/traffic/access');
    expect(sbx.sandbox.requests() - before).toBe(1);
  });

  it('403 with a key of another portal: THM_API_REALM', async () => {
    const error = await apiFailure(
      client({ apiKey: sbx.apiKey('acme', 'affiliate') }).getTrafficAccess(),
    );
    expect(error).toMatchObject({
      code: 'THM_API_REALM',
      status: 403,
      remoteMessage: 'Out of realm',
    });
  });

  it('isptrends without premium: THM_API_PREMIUM_REQUIRED', async () => {
    const globex = client({ apiKey: sbx.apiKey('globex'), networkId: 'globex' });
    const error = await apiFailure(globex.getIspTrends());
    expect(error).toMatchObject({
      code: 'THM_API_PREMIUM_REQUIRED',
      status: 403,
      retryable: false,
    });
    expect(error.remoteMessage).toMatch(/premium/i);
  });

  it('premium switched off and on at the sandbox', async () => {
    sbx.sandbox.setPremium('acme', false);
    try {
      expect((await apiFailure(client().getIspTrends())).code).toBe('THM_API_PREMIUM_REQUIRED');
    } finally {
      sbx.sandbox.setPremium('acme', true);
    }
    await expect(client().getIspTrends()).resolves.toHaveProperty('entries');
  });

  it('a schema violation names the field and the entry index', async () => {
    sbx.sandbox.setDay('2026-11-17');
    const c = client();
    const { entries } = await c.getIspTrends();
    sbx.sandbox.injectFault({ endpoint: 'isptrends', body: 'invalid-schema' });
    const before = sbx.sandbox.requests();
    const error = await apiFailure(c.getIspTrends());
    expect(error.code).toBe('THM_API_INVALID_RESPONSE');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(
      `entries[${entries.length - 1}].yesterday_total_clicks: expected number, received string`,
    );
    expect(sbx.sandbox.requests() - before).toBe(1);
  });

  it('a schema violation in a small object names the field', async () => {
    sbx.sandbox.injectFault({ endpoint: 'summary', body: 'invalid-schema' });
    const error = await apiFailure(client().getInvoiceSummary('unpaid'));
    expect(error.code).toBe('THM_API_INVALID_RESPONSE');
    expect(error.message).toContain('balance: expected number, received string');
  });

  it('malformed JSON: THM_API_INVALID_RESPONSE', async () => {
    sbx.sandbox.injectFault({ endpoint: 'isptrends', body: 'malformed-json' });
    const error = await apiFailure(client().getIspTrends());
    expect(error.code).toBe('THM_API_INVALID_RESPONSE');
    expect(error.message).toMatch(/invalid response: not JSON/);
  });

  it('a body over api.maxResponseBytes is refused, by Content-Length and while streaming', async () => {
    const small = client({ http: { maxResponseBytes: 2048 } });
    const declared = await apiFailure(small.getIspTrends());
    expect(declared.code).toBe('THM_API_INVALID_RESPONSE');
    expect(declared.message).toContain('larger than api.maxResponseBytes (2048 bytes)');
    sbx.sandbox.injectFault({ endpoint: 'isptrends', chunked: true });
    const streamed = await apiFailure(small.getIspTrends());
    expect(streamed.message).toContain('larger than api.maxResponseBytes');
    // The same client still works for small bodies afterwards.
    await expect(small.getInvoiceSummary('unpaid')).resolves.toHaveProperty('paid');
  });

  it('isptrends answered with a 2xx other than 200 is invalid, even with a valid body', async () => {
    // An empty list would clear every pair: only the 200 the spec states may do that.
    sbx.sandbox.injectFault({ endpoint: 'isptrends', status: 206, body: '{"entries":[]}' });
    const error = await apiFailure(client().getIspTrends());
    expect(error).toMatchObject({ code: 'THM_API_INVALID_RESPONSE', status: 206 });
    expect(error.message).toContain('status 206, expected 200');
    // Where the spec shows no status, any 2xx with a valid body is a success.
    const access = JSON.stringify(await client().getTrafficAccess());
    sbx.sandbox.injectFault({ endpoint: 'access', status: 203, body: access });
    expect((await client().getTrafficAccess()).has_premium).toBe(true);
  });

  it('another 4xx: THM_API_HTTP with the text body as the remote message', async () => {
    sbx.sandbox.injectFault({
      endpoint: 'access',
      status: 409,
      body: 'conflict: try something else',
    });
    const error = await apiFailure(client().getTrafficAccess());
    expect(error).toMatchObject({ code: 'THM_API_HTTP', status: 409, retryable: false });
    expect(error.remoteMessage).toBe('conflict: try something else');
  });

  it('an unknown path under a known portal is a 404 THM_API_HTTP', async () => {
    const error = await apiFailure(client().request('GET', '/networks/nothing-here'));
    expect(error).toMatchObject({ code: 'THM_API_HTTP', status: 404 });
  });
});

describe('transient errors and retries', () => {
  it('503, 503, then 200: succeeds on the third attempt and logs the retries', async () => {
    sbx.sandbox.injectFault({ endpoint: 'access', status: 503, times: 2 });
    const before = sbx.sandbox.requests();
    const logsBefore = logLines.length;
    await expect(client().getTrafficAccess()).resolves.toHaveProperty('has_premium', true);
    expect(sbx.sandbox.requests() - before).toBe(3);
    const retries = logLines
      .slice(logsBefore)
      .filter((l) => l.includes('transient API failure, retrying'));
    expect(retries).toHaveLength(2);
  });

  it('503 on every attempt: THM_API_TRANSIENT, retryable, after api.attempts requests', async () => {
    sbx.sandbox.injectFault({ endpoint: 'access', status: 503, times: 5 });
    const before = sbx.sandbox.requests();
    const error = await apiFailure(client({ http: { attempts: 3 } }).getTrafficAccess());
    expect(error).toMatchObject({ code: 'THM_API_TRANSIENT', status: 503, retryable: true });
    expect(sbx.sandbox.requests() - before).toBe(3);
  });

  it('429 with Retry-After: 1 waits about a second, then succeeds', async () => {
    sbx.sandbox.injectFault({ endpoint: 'summary', status: 429, retryAfter: 1 });
    const started = Date.now();
    await expect(client().getInvoiceSummary('unpaid')).resolves.toHaveProperty('billed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('Retry-After beyond the retry budget: THM_API_RETRY_LATER with retryAt, no waiting', async () => {
    sbx.sandbox.injectFault({ endpoint: 'isptrends', status: 429, retryAfter: 120 });
    const before = sbx.sandbox.requests();
    const error = await apiFailure(client().getIspTrends());
    expect(error.code).toBe('THM_API_RETRY_LATER');
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(429);
    const inSeconds = (error.retryAt!.getTime() - Date.now()) / 1000;
    expect(inSeconds).toBeGreaterThan(110);
    expect(inSeconds).toBeLessThanOrEqual(120);
    expect(sbx.sandbox.requests() - before).toBe(1);
  });

  it('Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 3_600_000);
    sbx.sandbox.injectFault({ endpoint: 'access', status: 503, retryAfter: at.toUTCString() });
    const error = await apiFailure(client().getTrafficAccess());
    expect(error.code).toBe('THM_API_RETRY_LATER');
    expect(Math.abs(error.retryAt!.getTime() - at.getTime())).toBeLessThan(2_000);
  });

  it('a server that never answers: headers timeout, THM_API_TRANSIENT', async () => {
    sbx.sandbox.injectFault({ endpoint: 'access', hang: true });
    const error = await apiFailure(
      client({ http: { headersTimeoutMs: 300, attempts: 1 } }).getTrafficAccess(),
    );
    expect(error).toMatchObject({ code: 'THM_API_TRANSIENT', retryable: true });
    expect(error.message).toContain('timed out waiting for the response headers');
    expect((error.cause as { code?: string }).code).toBe('UND_ERR_HEADERS_TIMEOUT');
  });

  it('a hang is retried like any transient error', async () => {
    sbx.sandbox.injectFault({ endpoint: 'access', hang: true });
    const c = client({ http: { headersTimeoutMs: 300, attempts: 2 } });
    await expect(c.getTrafficAccess()).resolves.toHaveProperty('is_enabled', true);
  });

  it('an answer delayed beyond the headers timeout is a transient failure', async () => {
    // undici checks its timers on a ~0.5 s tick, so a 200 ms timeout fires within about 1 s:
    // the answer must come well after that (it did not, once, at 1 s on a loaded machine).
    sbx.sandbox.injectFault({ endpoint: 'summary', delayMs: 3_000 });
    const error = await apiFailure(
      client({ http: { headersTimeoutMs: 200, attempts: 1 } }).getInvoiceSummary('unpaid'),
    );
    expect(error.code).toBe('THM_API_TRANSIENT');
  });

  it('a body that stops halfway: body timeout, THM_API_TRANSIENT', async () => {
    sbx.sandbox.injectFault({ endpoint: 'isptrends', body: 'stalled' });
    const c = client({ http: { bodyTimeoutMs: 300, attempts: 1 } });
    const error = await apiFailure(c.getIspTrends());
    expect(error).toMatchObject({ code: 'THM_API_TRANSIENT', retryable: true });
    expect(error.message).toContain('timed out reading the response body');
    expect((error.cause as { code?: string }).code).toBe('UND_ERR_BODY_TIMEOUT');
  });

  it('a body cut off halfway is transient, and the retry gets the whole body', async () => {
    sbx.sandbox.injectFault({ endpoint: 'isptrends', body: 'truncated' });
    const before = sbx.sandbox.requests();
    await expect(client().getIspTrends()).resolves.toHaveProperty('entries');
    expect(sbx.sandbox.requests() - before).toBe(2);
  });

  it('connection refused is transient', async () => {
    const closed = await startTestSandbox();
    const url = closed.baseUrl;
    await closed.close();
    const error = await apiFailure(
      client({ baseUrl: url, http: { attempts: 1 } }).getTrafficAccess(),
    );
    expect(error).toMatchObject({ code: 'THM_API_TRANSIENT', retryable: true });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a non-idempotent POST is not retried', async () => {
    sbx.sandbox.injectFault({ endpoint: 'summary', status: 503, times: 3 });
    const before = sbx.sandbox.requests();
    const error = await apiFailure(
      client().request('POST', '/networks/billings/affiliates/summary', {
        body: { filters: { status: 'unpaid' } },
      }),
    );
    expect(error.code).toBe('THM_API_TRANSIENT');
    expect(sbx.sandbox.requests() - before).toBe(1);
  });
});

describe('the overall deadline (api.requestTimeoutMs)', () => {
  it('a server dripping one byte every 200 ms trips no step timeout, but the deadline ends it', async () => {
    // Every gap between bytes is far below bodyTimeoutMs, so only the overall deadline can end
    // this exchange (the whole access body would take about 20 s at this pace).
    sbx.sandbox.injectFault({ endpoint: 'access', dripMs: 200, times: 5 });
    const before = sbx.sandbox.requests();
    const started = performance.now();
    const error = await apiFailure(
      client({ http: { requestTimeoutMs: 1_500, bodyTimeoutMs: 3_000 } }).getTrafficAccess(),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(error).toMatchObject({ code: 'THM_API_TRANSIENT', retryable: true });
    expect(error.message).toContain('no complete answer within api.requestTimeoutMs (1500 ms)');
    expect((error.cause as { code?: string }).code).toBe('THM_DEADLINE_TIMEOUT');
    // The deadline covers the retries too: one attempt used it all, none followed.
    expect(sbx.sandbox.requests() - before).toBe(1);
    expect(seconds).toBeLessThan(15);
  });

  it("the caller's own deadline ends a request first, with the caller's words", async () => {
    sbx.sandbox.injectFault({ endpoint: 'isptrends', dripMs: 200 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the run ran out of time')), 500);
    const error = await apiFailure(client().getIspTrends({ signal: controller.signal }));
    expect(error.code).toBe('THM_API_TRANSIENT');
    expect(error.message).toContain('the run ran out of time');
  });

  it('a retry wait that would end past the deadline is not taken', async () => {
    sbx.sandbox.injectFault({ endpoint: 'access', status: 503, retryAfter: 2, times: 3 });
    const error = await apiFailure(
      client({ http: { requestTimeoutMs: 1_000 } }).getTrafficAccess(),
    );
    // Retry-After 2 s fits the retry budget (5 s) but not the deadline: the job layer retries.
    expect(error.code).toBe('THM_API_RETRY_LATER');
    expect(error.retryAt).toBeInstanceOf(Date);
  });
});

describe('connections and bodies', () => {
  it('error bodies are consumed: one kept-alive connection serves many error answers', async () => {
    // One connection at most: a body left unread would block the next request on it.
    const dispatcher = new Agent({ connections: 1 });
    try {
      const wrongKey = client({ apiKey: new Secret('sbx_not_a_real_key_0000'), dispatcher });
      const globex = client({ apiKey: sbx.apiKey('globex'), networkId: 'globex', dispatcher });
      await apiFailure(wrongKey.getTrafficAccess()); // opens the connection
      const before = sbx.sandbox.connections();
      for (let i = 0; i < 5; i += 1) {
        expect((await apiFailure(wrongKey.getTrafficAccess())).code).toBe('THM_API_AUTH');
        expect((await apiFailure(globex.getIspTrends())).code).toBe('THM_API_PREMIUM_REQUIRED');
        sbx.sandbox.injectFault({ endpoint: 'access', status: 409, body: 'x'.repeat(20_000) });
        expect((await apiFailure(globex.getTrafficAccess())).code).toBe('THM_API_HTTP');
      }
      expect(sbx.sandbox.connections() - before).toBe(0);
    } finally {
      await dispatcher.close();
    }
  });

  it('a body over the cap is cut off: the connection is dropped, not drained', async () => {
    const c = client({ http: { maxResponseBytes: 2048 } });
    sbx.sandbox.injectFault({ endpoint: 'isptrends', chunked: true });
    await apiFailure(c.getIspTrends());
    const before = sbx.sandbox.connections();
    await c.getTrafficAccess();
    expect(sbx.sandbox.connections() - before).toBe(1);
  });
});

describe('the key never leaks', () => {
  it('is absent from every error (message, properties, cause) and every log line', async () => {
    const key = sbx.key('acme');
    const globexKey = sbx.key('globex');
    const affiliateKey = sbx.key('acme', 'affiliate');
    const logsBefore = logLines.length;
    const c = client({ http: { headersTimeoutMs: 300, attempts: 2 } });
    const errors: unknown[] = [];
    const attempt = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (error) {
        errors.push(error);
      }
    };

    sbx.sandbox.injectFault({ endpoint: 'isptrends', body: 'invalid-schema' });
    await attempt(c.getIspTrends());
    sbx.sandbox.injectFault({ endpoint: 'access', status: 503, times: 2 });
    await attempt(c.getTrafficAccess());
    sbx.sandbox.injectFault({ endpoint: 'access', hang: true, times: 2 });
    await attempt(c.getTrafficAccess());
    sbx.sandbox.injectFault({ endpoint: 'access', status: 429, retryAfter: 600 });
    await attempt(c.getTrafficAccess());
    sbx.sandbox.injectFault({ endpoint: 'summary', body: 'malformed-json' });
    await attempt(c.getInvoiceSummary('unpaid'));
    // The API echoing the key back in its error text.
    sbx.sandbox.injectFault({
      endpoint: 'access',
      status: 400,
      body: JSON.stringify({ error: `bad key ${key}` }),
    });
    await attempt(c.getTrafficAccess());
    sbx.sandbox.injectFault({ endpoint: 'isptrends', status: 200, body: `not json ${key}` });
    await attempt(c.getIspTrends());
    await attempt(client({ apiKey: new Secret(globexKey), networkId: 'globex' }).getIspTrends());
    await attempt(client({ apiKey: new Secret(affiliateKey) }).getTrafficAccess());
    const closed = await startTestSandbox();
    await closed.close();
    await attempt(client({ baseUrl: closed.baseUrl, http: { attempts: 1 } }).getTrafficAccess());

    expect(errors).toHaveLength(10);
    const echoed = errors[5] as ApiError;
    expect(echoed.remoteMessage).toBe('bad key [redacted]');

    const texts = errors.flatMap((error) => [
      JSON.stringify(error),
      JSON.stringify((error as Error).cause ?? null),
      inspect(error, { depth: 10, showHidden: true }),
      String(error),
      (error as Error).stack ?? '',
    ]);
    const logs = logLines.slice(logsBefore).join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [key, globexKey, affiliateKey]) {
      // The probe itself can see a key where one is.
      expect(JSON.stringify({ k: secret })).toContain(secret);
      for (const text of texts) expect(text).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });

  it('the client object itself does not hold the key in plain sight', () => {
    const c = client();
    expect(inspect(c, { depth: 10, showHidden: true })).not.toContain(sbx.key('acme'));
  });
});
