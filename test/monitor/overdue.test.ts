import { describe, expect, it } from 'vitest';
import { latestRuns, overdueStatus } from '../../src/monitor/overdue.js';
import { parseConfig } from '../../src/config/load.js';
import type { RunRecord } from '../../src/monitor/types.js';

/** Overdue, the rule `thm status --check` exits 1 on: daily at 07:00 UTC, 120 minutes grace. */
describe('overdueStatus', () => {
  const [network] = parseConfig(
    {
      networks: [
        {
          id: 'acme',
          baseUrl: 'https://api.acme.example',
          apiKeyEnv: 'K',
          recipients: ['ops@acme.example'],
          timezone: 'UTC',
        },
      ],
    },
    { env: { K: 'key' } },
  ).networks;
  const at = (iso: string) => Date.parse(iso);
  const success = (finishedAt: string): RunRecord => ({
    networkId: 'acme',
    kind: 'traffic-check',
    asOf: finishedAt.slice(0, 10),
    outcome: 'ok',
    startedAt: at(finishedAt),
    finishedAt: at(finishedAt),
    notificationIds: [],
    runs: 1,
  });

  it('a success in the current period: not overdue', () => {
    const status = overdueStatus(
      network!,
      success('2026-11-22T07:01:00Z'),
      true,
      at('2026-11-22T12:00:00Z'),
    );
    expect(status.overdue).toBe(false);
  });

  it('no success since the last fire, grace passed: overdue, saying since when', () => {
    const status = overdueStatus(
      network!,
      success('2026-11-21T07:01:00Z'),
      true,
      at('2026-11-22T09:30:00Z'),
    );
    expect(status).toEqual({
      overdue: true,
      reason:
        'no successful traffic-check since 2026-11-22T07:00:00.000Z (last success 2026-11-21T07:01:00.000Z)',
    });
    // Within the grace it is not overdue yet.
    expect(
      overdueStatus(network!, success('2026-11-21T07:01:00Z'), true, at('2026-11-22T08:59:00Z'))
        .overdue,
    ).toBe(false);
  });

  it('never run: fine until the first run due after it was scheduled has had its grace', () => {
    const scheduled = at('2026-11-22T10:00:00Z'); // first due 2026-11-23T07:00Z, grace to 09:00Z
    expect(
      overdueStatus(network!, undefined, false, at('2026-11-23T08:59:00Z'), scheduled),
    ).toEqual({
      overdue: false,
      reason: 'never run yet',
    });
    expect(
      overdueStatus(network!, undefined, false, at('2026-11-23T09:01:00Z'), scheduled),
    ).toEqual({
      overdue: true,
      reason:
        'never run: first run was due 2026-11-23T07:00:00.000Z (scheduled since 2026-11-22T10:00:00.000Z)',
    });
  });

  it('never run and never scheduled by a worker: overdue at once (nothing monitors it)', () => {
    expect(overdueStatus(network!, undefined, false, at('2026-11-22T12:00:00Z'))).toEqual({
      overdue: true,
      reason: 'never run, and no worker has scheduled it yet',
    });
  });
});

describe('latestRuns: by finish time, whatever the as-of date', () => {
  const run = (
    kind: RunRecord['kind'],
    asOf: string,
    finishedAt: number,
    outcome: RunRecord['outcome'] = 'ok',
  ): RunRecord => ({
    networkId: 'acme',
    kind,
    asOf,
    outcome,
    startedAt: finishedAt - 1,
    finishedAt,
    notificationIds: [],
    runs: 1,
  });

  it('the latest traffic-check, the latest invoice snapshot and the last success', () => {
    const backfill = run('traffic-check', '2026-11-01', 300); // --date, run last
    const failed = run('traffic-check', '2026-11-22', 400, 'failed');
    const scheduled = run('traffic-check', '2026-11-22', 200);
    const invoice = run('invoice-snapshot', '2026-11-22', 250);
    expect(latestRuns([scheduled, failed, invoice, backfill])).toEqual({
      trafficCheck: failed,
      invoiceSnapshot: invoice,
      lastSuccess: backfill,
    });
  });

  it('nothing yet: nothing; only failures: no last success', () => {
    expect(latestRuns([])).toEqual({});
    const failed = run('traffic-check', '2026-11-22', 400, 'failed');
    expect(latestRuns([failed])).toEqual({ trafficCheck: failed });
  });
});
