import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readListingFile } from '../../src/replay/listing-file.js';
import { listingEntries } from '../../src/store/listing-codec.js';
import { runThmAsync } from '../harness/cli.js';
import { CRIT, WARN, entry } from '../monitor/fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'thm-listings-'));
let files = 0;
function file(content: string | Buffer): string {
  const name = path.join(dir, `listings-${++files}.jsonl`);
  writeFileSync(name, content);
  return name;
}

const line = (asOf: string, entries: unknown[] = [entry(1, 'Comcast', WARN)]) =>
  JSON.stringify({ asOf, entries });
const MAX = 64 * 1024;

describe('a listing file', () => {
  it('reads each line as the API answer it is, in order; blank lines, CRLF and a BOM are fine', async () => {
    const entries = [entry(1, 'Comcast', WARN), entry(2, 'Verizon', CRIT)];
    const name = file(
      `\ufeff${line('2026-11-20', entries)}\r\n\n${line('2026-11-21', [])}\r\n${line('2026-11-23')}`,
    );
    const days = await readListingFile(name, MAX);
    expect(days.map((d) => d.asOf)).toEqual(['2026-11-20', '2026-11-21', '2026-11-23']);
    expect(listingEntries(days[0]!.listing).map((e) => [e.isp, e.yesterday_total_clicks])).toEqual([
      ['Comcast', 700],
      ['Verizon', 200],
    ]);
    expect(listingEntries(days[1]!.listing)).toEqual([]);
  });

  const mistyped = { ...entry(1, 'Comcast', WARN), yesterday_total_clicks: '700' };
  const hostile: Array<[string, string | Buffer, RegExp]> = [
    [
      'bad JSON',
      `${line('2026-11-20')}\n{"asOf": "2026-11-21", "entries": [`,
      /^line 2: not valid JSON \(/,
    ],
    [
      'a line longer than an API answer may be',
      `${line('2026-11-20')}\n${line('2026-11-21')}\n${line('2026-11-22', Array(400).fill(entry(1, 'x', WARN)))}\n`,
      /^line 3: longer than 65536 bytes \(api\.maxResponseBytes\)$/,
    ],
    [
      'wrong types in an entry',
      `${line('2026-11-20', [entry(1, 'a', WARN), mistyped])}`,
      /^line 1: entries\[1\]\.yesterday_total_clicks: expected number, received string$/,
    ],
    ['a bad date', line('2026-02-30'), /^line 1: asOf: must be a date YYYY-MM-DD$/],
    [
      'no date',
      JSON.stringify({ entries: [] }),
      /^line 1: asOf: expected string, received undefined$/,
    ],
    [
      'entries not a list',
      JSON.stringify({ asOf: '2026-11-20', entries: {} }),
      /^line 1: entries: expected array, received object$/,
    ],
    [
      'a line that is no object',
      `${line('2026-11-20')}\n[1, 2]`,
      /^line 2: expected object, received array$/,
    ],
    [
      'dates out of order',
      `${line('2026-11-21')}\n${line('2026-11-20')}`,
      /^line 2: asOf 2026-11-20 does not come after the line before's \(2026-11-21\)/,
    ],
    [
      'a date repeated',
      `${line('2026-11-20')}\n\n${line('2026-11-20')}`,
      /^line 3: asOf 2026-11-20 does not come after/,
    ],
    ['nothing in it', '\n\n', /^holds no listing$/],
  ];

  it.each(hostile)('%s: one line naming the line at fault', async (_name, content, message) => {
    const name = file(content);
    const error = await readListingFile(name, MAX).then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(error?.code).toBe('THM_USAGE');
    expect(error?.message.startsWith(`--listings ${name}: `)).toBe(true);
    expect(error?.message.slice(`--listings ${name}: `.length)).toMatch(message);
    expect(error?.message).not.toContain('\n');
  });

  it('a huge line is refused as soon as it passes the limit, not read whole', async () => {
    const name = file(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const before = process.memoryUsage().rss;
    await expect(readListingFile(name, MAX)).rejects.toThrow(/line 1: longer than 65536 bytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('a file that is not there', async () => {
    await expect(readListingFile(path.join(dir, 'nope.jsonl'), MAX)).rejects.toThrow(
      /^--listings .*nope\.jsonl: cannot be read \(ENOENT\)$/,
    );
  });

  it('through the CLI: exit 2, one line on stderr, nothing on stdout (--json: the failure document)', async () => {
    const config = path.join(dir, 'thm.json');
    writeFileSync(
      config,
      JSON.stringify({
        redis: { url: 'redis://127.0.0.1:1' },
        api: { maxResponseBytes: 4096 },
        networks: [
          {
            id: 'acme',
            baseUrl: 'https://api.example.com/v1',
            apiKeyEnv: 'ACME_KEY',
            recipients: ['ops@acme.example'],
          },
        ],
      }),
    );
    const bad = file(`${line('2026-11-20')}\n${line('2026-11-21', [mistyped])}\n`);
    const thm = (...args: string[]) =>
      runThmAsync(['--config', config, 'replay', '--network', 'acme', ...args], {
        env: { ACME_KEY: 'k' },
      });
    const r = await thm('--listings', bad);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `thm: --listings ${bad}: line 2: entries[0].yesterday_total_clicks: expected number, received string\n`,
    );
    const json = await thm('--listings', bad, '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: { code: 'THM_USAGE', message: expect.stringMatching(/line 2: entries\[0\]/) },
    });
    const long = file(`${line('2026-11-20', Array(40).fill(entry(1, 'x', WARN)))}\n`);
    const r2 = await thm('--listings', long);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/^thm: --listings .*: line 1: longer than 4096 bytes/);
  });
});
