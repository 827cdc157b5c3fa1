import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { completed, startJobStack, type JobStack } from './jobs/stack.js';
import { dumpRedis } from './harness/dump-redis.js';
import { waitFor } from './harness/ports.js';

const SMTP_PASSWORD = 'smtp-pass-5ecret-9f3a';

/**
 * The API key and the SMTP password (in SMTP_URL) never reach logs, job data, Redis, e-mails or error
 * messages: a whole working day, a failure and a retry, then grep everything for them.
 */
describe('secrets never leak', () => {
  let stack: JobStack;
  let logs = '';

  beforeAll(async () => {
    stack = await startJobStack(['acme'], {}, { smtpAuth: { user: 'thm', pass: SMTP_PASSWORD } });
    const stream = new PassThrough();
    stream.on('data', (d: Buffer) => (logs += d.toString()));
    await stack.startWorker({}, createLogger({ destination: stream, level: 'trace' }));
  });
  afterAll(() => stack.close());

  it('not in logs, Redis (history, outbox, job data, events), e-mails or failure messages', async () => {
    const key = stack.sbx.key('acme');
    stack.sbx.sandbox.setDay('2026-11-15');
    completed(await stack.run('invoice-snapshot', 'acme', '2026-11-15'));
    completed(await stack.run('traffic-check', 'acme', '2026-11-15'));
    stack.sbx.sandbox.injectFault({
      network: 'acme',
      endpoint: 'isptrends',
      status: 503,
      times: 1,
    });
    stack.sbx.sandbox.setDay('2026-11-16');
    completed(await stack.run('traffic-check', 'acme', '2026-11-16'));
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'access', status: 401, times: 3 });
    const failed = await stack.run('traffic-check', 'acme', '2026-11-17');
    expect(failed.state).toBe('failed');
    await waitFor(() => stack.smtp.messages.length >= 3 || undefined);

    const redisText = await dumpRedis(stack.redis.client());
    expect(redisText).toContain('acme'); // the dump did read the state
    const mails = stack.smtp.messages.map((m) => m.raw).join('\n');
    const everything = [logs, redisText, mails, failed.state === 'failed' ? failed.error : ''].join(
      '\n',
    );
    expect(logs.length).toBeGreaterThan(1000);
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(key.slice(-12));
    expect(everything).not.toContain(SMTP_PASSWORD);
    expect(stack.config.mail.url?.reveal()).toContain(SMTP_PASSWORD); // it was in use
  });
});
