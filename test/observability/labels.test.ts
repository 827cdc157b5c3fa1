import { DelayedError, UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { credentialsMatch } from '../../src/observability/basic-auth.js';
import { escapeHtml, renderDashboard, type QueueView } from '../../src/observability/dashboard.js';
import { failedJobOutcome } from '../../src/jobs/job-metrics.js';
import { apiStatusLabel, endpointLabel } from '../../src/observability/metrics.js';

describe('metric labels', () => {
  it.each([
    ['/networks/traffic/access', 'access'],
    ['/networks/traffic/isptrends', 'isptrends'],
    ['/networks/traffic/isptrends/', 'isptrends'],
    ['/networks/billings/affiliates/summary', 'summary'],
    ['/networks/billings/affiliates/summary?x=1', 'summary'],
    ['/networks', 'other'],
    ['/networks/traffic/access/123', 'other'],
  ])('endpoint of %s is %s', (path, label) => {
    expect(endpointLabel(path)).toBe(label);
  });

  it.each([
    [{ status: 200 }, '200'],
    [{ status: 503, errorCode: 'THM_API_TRANSIENT' as const }, '503'],
    [{ status: 200, errorCode: 'THM_API_INVALID_RESPONSE' as const }, 'invalid'],
    [
      { errorCode: 'THM_API_TRANSIENT' as const, networkCode: 'UND_ERR_HEADERS_TIMEOUT' },
      'timeout',
    ],
    [{ errorCode: 'THM_API_TRANSIENT' as const, networkCode: 'UND_ERR_BODY_TIMEOUT' }, 'timeout'],
    [{ errorCode: 'THM_API_TRANSIENT' as const, networkCode: 'ETIMEDOUT' }, 'timeout'],
    [{ errorCode: 'THM_API_TRANSIENT' as const, networkCode: 'ECONNREFUSED' }, 'error'],
    [{ errorCode: 'THM_API_TRANSIENT' as const }, 'error'],
  ])('status of %j is %s', (event, label) => {
    expect(apiStatusLabel(event)).toBe(label);
  });

  it.each([
    [new DelayedError('later'), 0, 3, 'delayed'],
    [new UnrecoverableError('401'), 0, 3, 'failed'],
    [new Error('503'), 0, 3, 'retry'],
    [new Error('503'), 1, 3, 'retry'],
    [new Error('503'), 2, 3, 'failed'],
    [new Error('503'), 0, undefined, 'failed'],
  ] as const)('a job throwing %s after %i of %s attempts: %s', (error, made, attempts, label) => {
    expect(failedJobOutcome(error, { attemptsMade: made, opts: { attempts } })).toBe(label);
  });
});

describe('dashboard basic auth', () => {
  const header = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
  it.each([
    [header('ops:pw:with:colons'), true],
    [`basic ${Buffer.from('ops:pw:with:colons').toString('base64')}`, true],
    [header('ops:pw:with:colon'), false],
    [header('ops:pw:with:colons '), false],
    [header('Ops:pw:with:colons'), false],
    [header(''), false],
    ['Basic', false],
    ['Basic !!!', false],
    ['Bearer ops:pw:with:colons', false],
    [undefined, false],
  ])('%s -> %s', (value, ok) => {
    expect(credentialsMatch(value, 'ops:pw:with:colons')).toBe(ok);
  });
});

describe('dashboard page', () => {
  it('escapes everything that comes from Redis', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    const view: QueueView = {
      name: 'checks',
      counts: { waiting: 1, failed: 1 },
      schedulers: [{ id: 'traffic-check:acme', pattern: '0 6 * * *', tz: 'Europe/Berlin' }],
      active: [],
      delayed: [],
      failed: [
        {
          id: '7',
          name: '<img src=x onerror=alert(1)>',
          data: '{"networkId":"<b>"}',
          attemptsMade: 3,
          at: Date.UTC(2026, 10, 15, 6),
          failedReason: 'THM_API_AUTH: network acme: <script>',
        },
      ],
    };
    const html = renderDashboard([view], Date.UTC(2026, 10, 15, 7));
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('{&quot;networkId&quot;:&quot;&lt;b&gt;&quot;}');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('THM_API_AUTH: network acme: &lt;script&gt;');
    expect(html).toContain('traffic-check:acme');
    expect(html).toContain('2026-11-15T06:00:00.000Z');
  });
});
