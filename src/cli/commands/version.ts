import type { Command } from 'commander';
import { STORAGE_FORMAT } from '../../store/format.js';
import { productVersion } from '../../version.js';
import { printJson, printLine } from '../output.js';

/** What `thm --version` prints: the version and the storage format it writes. */
export function versionLine(): string {
  return `thm ${productVersion()} (storage format ${STORAGE_FORMAT})`;
}

/**
 * `thm version`: the same, and with --json one document a deploy script can compare (two
 * versions of different storage formats must not run side by side: docs/operations.md).
 */
export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description('the version, the storage format it writes, and the Node.js it runs on')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExamples:\n  $ thm --version\n  $ thm version --json')
    .action((options: { json?: boolean }) => {
      const doc = {
        version: productVersion(),
        storageFormat: STORAGE_FORMAT,
        node: process.version,
      };
      if (options.json) printJson(doc);
      else printLine(`${versionLine()}, Node.js ${doc.node}`);
    });
}
