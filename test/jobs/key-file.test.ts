import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { waitFor } from '../harness/ports.js';
import { completed, startJobStack, type JobStack } from './stack.js';

/**
 * A key rotated as an operator does it (a Docker secret or an apiKeyFile rewritten) while the
 * worker runs: the next run uses the new key, without a reload. Before, the worker kept the key
 * it had read at start, and after a key of the wrong portal was replaced, the next run still
 * failed with 403 Out of realm, while the problem e-mail said to run again.
 */
describe('a key file rewritten under a running worker', () => {
  let stack: JobStack;
  let keyFile: string;
  const log: string[] = [];

  beforeAll(async () => {
    keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'thm-key-')), 'acme.key');
    stack = await startJobStack(
      ['acme'],
      {},
      {
        rawNetworks: (sbx) => {
          // The advertiser portal's key: the API answers 403 Out of realm.
          writeFileSync(keyFile, `${sbx.key('acme', 'advertiser')}\n`);
          const { apiKeyEnv: _env, ...acme } = sbx.rawNetwork('acme', { name: 'Acme Network' });
          return [{ ...acme, apiKeyFile: keyFile }];
        },
      },
    );
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => log.push(c.toString()));
    await stack.startWorker({}, createLogger({ destination: stream, level: 'info' }));
  }, 60_000);
  afterAll(() => stack?.close());

  const toAcme = () =>
    stack.smtp.messages.filter((m) => m.envelope.to.includes('ops@acme.example'));

  it('a key of the wrong portal: the run fails with 403, and the problem e-mail says a rewritten file is read by the next run', async () => {
    stack.sbx.sandbox.setDay('2026-11-15');
    const result = await stack.run('traffic-check', 'acme', '2026-11-15');
    expect(result.state).toBe('failed');
    expect(result.state === 'failed' && result.error).toMatch(/Out of realm/);
    const problem = await waitFor(() =>
      toAcme().find((m) => /monitoring problem/.test(m.parsed.subject ?? '')),
    );
    expect(problem.parsed.text).toContain('Use a network API key.');
    expect(problem.parsed.text).toContain(
      'A key file (apiKeyFile) is read again by every run: rewrite it and run again.',
    );
  });

  it('the file rewritten with the network key: the next run uses it, no reload', async () => {
    writeFileSync(keyFile, stack.sbx.key('acme'));
    const outcome = completed(await stack.run('traffic-check', 'acme', '2026-11-15'));
    expect(outcome.outcome).toBe('ok');
    expect(outcome.counts?.new).toBeGreaterThan(0);
    await waitFor(() => toAcme().find((m) => /monitoring restored/.test(m.parsed.subject ?? '')));
    await waitFor(
      () =>
        log.some((l) =>
          l.includes(`the key in ${keyFile} has changed: this run uses the new one`),
        ) || undefined,
    );
  });

  it('the file emptied: the run fails with a config error naming the file, and no key is logged', async () => {
    writeFileSync(keyFile, '\n');
    stack.sbx.sandbox.setDay('2026-11-16');
    const result = await stack.run('traffic-check', 'acme', '2026-11-16');
    expect(result).toEqual({
      state: 'failed',
      error: expect.stringContaining(`network acme: apiKeyFile: ${keyFile} is empty`) as string,
    });
    const text = log.join('');
    expect(text).not.toContain(stack.sbx.key('acme'));
    expect(text).not.toContain(stack.sbx.key('acme', 'advertiser'));
  });
});
