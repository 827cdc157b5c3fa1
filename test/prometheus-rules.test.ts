import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

/**
 * deploy/prometheus/thm-alerts.yml, the alert rules the README points to: valid rules for
 * `promtool check rules`, and the behaviour `promtool test rules` checks with synthetic series
 * (an overdue network, the series gone after a Redis data loss, schedulers missing, no worker,
 * the outbox failing ...). promtool comes with Debian's `prometheus` package, which .ci/run
 * installs; without it these are skipped with a notice, except in CI, where they fail.
 */
const RULES = 'deploy/prometheus/thm-alerts.yml';
const TESTS = 'deploy/prometheus/thm-alerts.test.yml';
const PROMTOOL = process.env.THM_PROMTOOL ?? 'promtool';

const available = spawnSync(PROMTOOL, ['--version']).status === 0;
if (!available && !process.env.CI) {
  console.warn(
    `\n  NOTICE: alert rule checks SKIPPED: no ${PROMTOOL} (Debian: apt-get install -y prometheus; or set THM_PROMTOOL)\n`,
  );
}

function promtool(...args: string[]): { code: number | null; output: string } {
  const r = spawnSync(PROMTOOL, args, { encoding: 'utf8' });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe.skipIf(!available && !process.env.CI)('the alert rules (promtool)', () => {
  it('promtool check rules: every rule valid', () => {
    const r = promtool('check', 'rules', RULES);
    expect(r.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(r.code, r.output).toBe(0);
  });

  it('promtool test rules: every alert fires when it should, and only then', () => {
    const r = promtool('test', 'rules', TESTS);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
  });

  it('every rule has a test, and every metric a rule reads is one the worker serves', () => {
    const rules = (
      parseYaml(readFileSync(RULES, 'utf8')) as {
        groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
      }
    ).groups.flatMap((g) => g.rules);
    const tests = readFileSync(TESTS, 'utf8');
    for (const rule of rules) expect(tests, rule.alert).toContain(`alertname: ${rule.alert}\n`);
    const served = readFileSync('src/observability/metrics.ts', 'utf8');
    for (const name of new Set(rules.flatMap((r) => r.expr.match(/thm_[a-z_]+/g) ?? [])))
      expect(served, name).toContain(`'${name}'`);
  });
});
