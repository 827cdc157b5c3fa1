import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The product's version: the `version` of its package.json, found from this module upward (the
 * sources in src/, the compiled dist/src/, the CLI's bundle in dist/cli/).
 */
export function productVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'traffic-health-monitor' && manifest.version) return manifest.version;
    } catch {
      // No package.json here: one level up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
