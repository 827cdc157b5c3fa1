import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completed, startJobStack, type JobStack } from './stack.js';

/** invoice-snapshot through the real queue and worker, with invoices.notify on. */
describe('invoice-snapshot e-mail', () => {
  let stack: JobStack;

  beforeAll(async () => {
    stack = await startJobStack(['acme']);
    stack.config.networks[0]!.invoices.notify = true;
    await stack.startWorker();
  });
  afterAll(() => stack.close());

  it("a past-dated run: the subject carries the run's as-of date, the body says the totals are today's", async () => {
    completed(await stack.run('invoice-snapshot', 'acme', '2026-11-15'));
    const [mail] = await stack.smtp.waitForMessages(1);
    expect(mail?.parsed.subject).toMatch(
      /^\[Traffic Health\] Acme Network: invoices .*\(2026-11-15\)$/,
    );
    expect(mail?.parsed.text).toMatch(
      /Taken: .* UTC, the totals at that time, not as of 2026-11-15/,
    );
    expect(mail?.parsed.references).toBe('<thm-thread.acme.2026-11@thm.test>');
  });
});
