import { describe, expect, it } from 'vitest';
import {
  errorForNetworkFailure,
  errorForStatus,
  remoteMessageOf,
  scrub,
} from '../../src/api/error-mapping.js';
import { parseRetryAfter, retryWait } from '../../src/api/retry.js';

const ctx = (premium: boolean) => ({
  endpoint: 'GET /networks/traffic/isptrends',
  label: 'network acme: GET /networks/traffic/isptrends',
  premium,
});

describe('errorForStatus', () => {
  it.each([
    // status, remote message, premium endpoint, code
    [401, 'No Authentication Method Found', true, 'THM_API_AUTH'],
    [401, undefined, true, 'THM_API_AUTH'],
    [401, 'No Authentication Method Found', false, 'THM_API_AUTH'],
    [401, 'Premium package required', false, 'THM_API_PREMIUM_REQUIRED'],
    [401, 'Not authorized for this feature', true, 'THM_API_PREMIUM_REQUIRED'],
    [401, 'Not authorized for this feature', false, 'THM_API_AUTH'],
    [403, 'Out of realm', true, 'THM_API_REALM'],
    [403, 'Out of realm.', false, 'THM_API_REALM'],
    [403, 'Traffic Health Premium package is required', true, 'THM_API_PREMIUM_REQUIRED'],
    [403, 'Forbidden', true, 'THM_API_PREMIUM_REQUIRED'],
    [403, 'Forbidden', false, 'THM_API_HTTP'],
    [403, undefined, true, 'THM_API_HTTP'],
    [402, undefined, true, 'THM_API_PREMIUM_REQUIRED'],
    [402, undefined, false, 'THM_API_HTTP'],
    [404, 'premium', false, 'THM_API_HTTP'],
    [408, undefined, false, 'THM_API_TRANSIENT'],
    [429, 'slow down', false, 'THM_API_TRANSIENT'],
    [500, undefined, false, 'THM_API_TRANSIENT'],
    [503, undefined, true, 'THM_API_TRANSIENT'],
    [400, 'bad', false, 'THM_API_HTTP'],
    [302, undefined, false, 'THM_API_HTTP'],
  ] as const)('%i %s (premium endpoint: %s) -> %s', (status, remote, premium, code) => {
    const error = errorForStatus(status, remote, ctx(premium));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(code === 'THM_API_TRANSIENT');
    expect(error.status).toBe(status);
    expect(error.endpoint).toBe('GET /networks/traffic/isptrends');
    expect(error.message).toContain('network acme: GET /networks/traffic/isptrends');
    if (remote) expect(error.remoteMessage).toBe(remote);
  });
});

describe('remoteMessageOf', () => {
  it.each([
    ['{"error":"Out of realm"}', 'Out of realm'],
    ['{"Error":"No Authentication Method Found"}', 'No Authentication Method Found'],
    ['{"message":"Too many requests"}', 'Too many requests'],
    ['{"error":{"message":"nested text"}}', 'nested text'],
    ['{"other":1}', '{"other":1}'],
    ['<html>\n  <body>Bad   gateway</body>\n</html>', '<html> <body>Bad gateway</body> </html>'],
    ['', undefined],
    ['   ', undefined],
  ])('%j -> %j', (body, expected) => {
    expect(remoteMessageOf(body)).toBe(expected);
  });

  it('cuts long texts short', () => {
    const message = remoteMessageOf('x'.repeat(5_000))!;
    expect(message.length).toBe(200);
    expect(message.endsWith('…')).toBe(true);
  });

  it('scrubs the key', () => {
    expect(remoteMessageOf('{"error":"key sbx_secret_123 refused"}', 'sbx_secret_123')).toBe(
      'key [redacted] refused',
    );
    expect(scrub('a sbx_secret_123 b sbx_secret_123', 'sbx_secret_123')).toBe(
      'a [redacted] b [redacted]',
    );
  });
});

describe('errorForNetworkFailure', () => {
  it('wraps an undici error in a sanitised copy', () => {
    const original = Object.assign(new Error('socket hang up key=sbx_secret_123'), {
      code: 'UND_ERR_SOCKET',
      headers: { 'x-service-api-key': 'sbx_secret_123' },
    });
    const error = errorForNetworkFailure(original, ctx(false), 'sbx_secret_123');
    expect(error).toMatchObject({ code: 'THM_API_TRANSIENT', retryable: true });
    expect(error.message).toContain('connection closed by the server (UND_ERR_SOCKET)');
    expect(error.cause).not.toBe(original);
    expect((error.cause as Error).message).toBe('socket hang up key=[redacted]');
    expect(JSON.stringify(error.cause)).not.toContain('sbx_secret_123');
    expect(Object.keys(error.cause as object)).not.toContain('headers');
  });
});

describe('Retry-After and backoff', () => {
  const now = Date.parse('2026-11-21T07:00:00Z');
  it.each([
    ['120', 120_000],
    ['0', 0],
    ['1.5', 1_500],
    [' 7 ', 7_000],
    ['Sat, 21 Nov 2026 07:02:00 GMT', 120_000],
    ['Sat, 21 Nov 2026 06:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    [undefined, undefined],
  ])('Retry-After %j -> %j ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it('full jitter within an exponentially growing, capped ceiling', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(retryWait(1, policy, () => 0.999)).toBe(99);
    expect(retryWait(3, policy, () => 0.999)).toBe(399);
    expect(retryWait(10, policy, () => 0.999)).toBe(999);
    expect(retryWait(4, policy, () => 0)).toBe(0);
  });
});
