import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Secret } from '../src/config/secret.js';
import { createdOnFirstUse, createLogger } from '../src/log.js';

describe('logger redaction', () => {
  it('keeps keys and passwords out of every line, by field name or by Secret', async () => {
    const stream = new PassThrough();
    let out = '';
    stream.on('data', (d: Buffer) => (out += d.toString()));
    const log = createLogger({ destination: stream, level: 'debug' });
    log.info(
      { apiKey: 'k-top', key: 'k-plain', password: 'p-top', smtp: { pass: 'p-nested' } },
      'fields',
    );
    log.info({ network: { id: 'acme', apiKey: new Secret('k-secret-obj') } }, 'secret object');
    log.info({ headers: { 'x-service-api-key': 'k-header' } }, 'headers');
    log.info({ anything: new Secret('k-anywhere') }, 'any field');
    await new Promise((r) => setTimeout(r, 20));
    for (const secret of [
      'k-top',
      'k-plain',
      'p-top',
      'p-nested',
      'k-secret-obj',
      'k-header',
      'k-anywhere',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[redacted]');
    expect(out.trim().split('\n')).toHaveLength(4);
  });
});

describe('a logger made on first use', () => {
  it('is made when first used, once, and then logs, children included, as the logger itself', async () => {
    const stream = new PassThrough();
    let out = '';
    stream.on('data', (d: Buffer) => (out += d.toString()));
    let made = 0;
    const log = createdOnFirstUse(() => {
      made += 1;
      return createLogger({ destination: stream, level: 'info' });
    });
    expect(made).toBe(0);
    log.info({ apiKey: 'k-lazy' }, 'first');
    log.child({ network: 'acme' }).warn('from a child');
    log.level = 'warn';
    log.info('not written: below the level set through the wrapper');
    expect(made).toBe(1);
    expect(log.level).toBe('warn');
    await new Promise((r) => setTimeout(r, 20));
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual(['first', 'from a child']);
    expect(lines[1]).toMatchObject({ network: 'acme', level: 40 });
    expect(out).not.toContain('k-lazy');
  });
});
