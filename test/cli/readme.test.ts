import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runThm } from '../harness/cli.js';

/**
 * The README's "CLI at a glance" against the real binary's help: every command the CLI has is
 * in the table, and every command and option the table names exists, so the front page neither
 * misses a command nor shows one that was renamed.
 */

/** A command's --help, asked once. */
const helps = new Map<string, string>();
function helpOf(path: string[]): string {
  const key = path.join(' ');
  if (!helps.has(key)) helps.set(key, runThm([...path, '--help']).stdout);
  return helps.get(key)!;
}

/** The subcommands a command's --help lists (`help` left out). */
function subcommands(path: string[]): string[] {
  const help = helpOf(path);
  const section = /\nCommands:\n([^]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

/** Every command path, e.g. ['run', 'traffic-check'], leaves only. */
function commandPaths(path: string[] = []): string[][] {
  const children = subcommands(path);
  if (children.length === 0) return [path];
  return children.flatMap((child) => commandPaths([...path, child]));
}

/** The `thm ...` snippets of the table's first column, one list per row. */
function tableSnippets(): string[][] {
  const readme = readFileSync('README.md', 'utf8');
  const section = /## The CLI at a glance\n([^]*?)\n## /.exec(readme)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `thm '))
    .map((line) =>
      [...(line.split(' | ')[0] ?? '').matchAll(/`(thm [^`]*)`/g)].map((match) =>
        match[1]!.replace(/\\\|/g, '|'),
      ),
    );
}

describe('README, "The CLI at a glance"', () => {
  const paths = commandPaths();
  const snippets = tableSnippets().flat();

  it('lists every command of the CLI', () => {
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) {
      const named = snippets.some((snippet) => `${snippet} `.startsWith(`thm ${path.join(' ')} `));
      expect(named, `thm ${path.join(' ')}`).toBe(true);
    }
  });

  it('names only commands and options that exist', () => {
    expect(snippets.length).toBeGreaterThan(10);
    for (const snippet of snippets) {
      const words = snippet.split(' ').slice(1);
      const path = paths.find((candidate) =>
        candidate.every((word, index) => words[index] === word),
      );
      expect(path, snippet).toBeDefined();
      const help = helpOf(path!);
      for (const option of snippet.match(/--[a-z][a-z-]*/g) ?? []) {
        expect(help, `${snippet}: ${option}`).toMatch(new RegExp(`\\s${option}\\b`));
      }
    }
  });
});
