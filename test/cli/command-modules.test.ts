import { describe, expect, it } from 'vitest';
import { buildProgram, COMMAND_MODULES, namedCommand } from '../../src/cli/main.js';
import { runThm } from '../harness/cli.js';

/**
 * A command line that names a command loads that command's module alone (src/cli/main.ts); one
 * that names none registers them all, for help and for commander's "did you mean".
 */
describe('the CLI loads the module of the command it runs', () => {
  const names = async (argv: string[]) =>
    (await buildProgram(argv)).commands.map((command) => command.name());

  it('the table names every top-level command, in the order help lists them', async () => {
    expect(await names([])).toEqual(COMMAND_MODULES.map(([name]) => name));
  });

  it('each command, named, is registered as the whole program registers it', async () => {
    const whole = await buildProgram([]);
    for (const [name] of COMMAND_MODULES) {
      const alone = await buildProgram([name, '--help']);
      expect(alone.commands.map((c) => c.name())).toContain(name);
      expect(alone.commands.find((c) => c.name() === name)?.helpInformation()).toBe(
        whole.commands.find((c) => c.name() === name)?.helpInformation(),
      );
    }
    // history.ts registers invoices too.
    expect(await names(['invoices'])).toEqual(['history', 'invoices']);
  });

  it('the command is the first word that is neither an option nor the config file', () => {
    expect(namedCommand(['status'])).toBe('status');
    expect(namedCommand(['-c', 'thm.yaml', 'status', '--json'])).toBe('status');
    expect(namedCommand(['--config', 'run', 'run', 'traffic-check'])).toBe('run');
    expect(namedCommand(['--config=thm.yaml', 'silence', 'list'])).toBe('silence');
    expect(namedCommand(['--help'])).toBeUndefined();
    expect(namedCommand([])).toBeUndefined();
  });

  it('help lists every command; a misspelt one is still told the right one', () => {
    const help = runThm(['--help']);
    expect(help.code).toBe(0);
    for (const [name] of COMMAND_MODULES)
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const typo = runThm(['statsu']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'statsu'");
    expect(typo.stderr).toContain('(Did you mean status?)');
  });
});
