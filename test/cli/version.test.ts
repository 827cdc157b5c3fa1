import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STORAGE_FORMAT } from '../../src/store/format.js';
import { runThm } from '../harness/cli.js';

describe('thm --version and thm version', () => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

  it('--version and -V print the version and the storage format, exit 0', () => {
    for (const flag of ['--version', '-V']) {
      const r = runThm([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`thm ${version} (storage format ${STORAGE_FORMAT})\n`);
    }
  });

  it('version --json: one document with the version, the storage format and Node.js', () => {
    const r = runThm(['version', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      version,
      storageFormat: STORAGE_FORMAT,
      node: process.version,
    });
    expect(runThm(['version']).stdout).toBe(
      `thm ${version} (storage format ${STORAGE_FORMAT}), Node.js ${process.version}\n`,
    );
  });
});
