import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listingFileText, writeListingFiles } from '../../bench/quality/listings.js';
import { SIM_DAYS } from '../../bench/quality/model.js';
import { DEFAULT_OPTIONS, seedNetworks, simulateNetwork } from '../../bench/quality/simulate.js';
import { alertsSchema } from '../../src/config/schema.js';
import { isoDateOfDay } from '../../src/dates.js';
import { pairKey } from '../../src/monitor/pair-key.js';
import { readListingFile } from '../../src/replay/listing-file.js';
import { replayDays } from '../../src/replay/replay.js';
import { listingEntries } from '../../src/store/listing-codec.js';
import { runThmAsync } from '../harness/cli.js';

/**
 * `npm run quality -- --listings DIR` writes the simulated days as listing files; replaying one
 * (`thm replay --listings`) gives the e-mails the simulation sent, day by day, pair by pair.
 */
describe('replay of the simulation', () => {
  const settings = alertsSchema.parse({});
  const networks = [1, 2].flatMap((seed) =>
    seedNetworks(seed, DEFAULT_OPTIONS).map((network) => ({ seed, network })),
  );

  it.each(networks.map((n) => [`seed ${n.seed} ${n.network.name}`, n] as const))(
    '%s: the same e-mails as the simulation',
    async (_name, { network }) => {
      const simulated = simulateNetwork(network, settings, undefined).map((email) => ({
        asOf: isoDateOfDay(network.day0 + email.asOf),
        events: email.events.map((e) => `${e.pairClass} ${e.key}`).sort(),
      }));
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'thm-sim-')), 'days.jsonl');
      writeFileSync(file, listingFileText(network));
      const days = await readListingFile(file, 256 * 1024 * 1024);
      expect(days).toHaveLength(SIM_DAYS);
      const replayed = [
        ...replayDays(
          { id: network.name, name: network.name },
          [{ label: 'x', alerts: settings }],
          days.map((d) => ({
            asOf: d.asOf,
            entries: () => listingEntries(d.listing),
          })),
        ),
      ].flatMap((day) => {
        const email = day.runs[0]!.email;
        return email
          ? [
              {
                asOf: day.asOf,
                events: [
                  ...email.pairs.map((p) => `${p.class} ${pairKey(p.domainId, p.isp)}`),
                  // The simulation counts a domain's common drop as one event of the domain.
                  ...email.drops
                    .filter((d) => d.scope === 'domain')
                    .map((d) => `${d.class} ${d.domainId}:*`),
                ].sort(),
              },
            ]
          : [];
      });
      // A network without incidents sends nothing, replayed or not.
      if (network.incidents.length > 0) expect(simulated.length).toBeGreaterThan(0);
      expect(replayed).toEqual(simulated);
    },
  );

  it('the files `npm run quality -- --listings` writes replay through the CLI', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-sim-'));
    const files = writeListingFiles(dir, { ...DEFAULT_OPTIONS, seeds: [3] });
    expect(files.map((f) => path.basename(f))).toEqual([
      'seed-3-net1.jsonl',
      'seed-3-net2.jsonl',
      'seed-3-net3.jsonl',
    ]);
    const network = seedNetworks(3, DEFAULT_OPTIONS)[0]!;
    const emails = simulateNetwork(network, settings, undefined);
    const config = path.join(dir, 'thm.json');
    writeFileSync(
      config,
      JSON.stringify({
        // Never reached: a file is replayed without Redis.
        redis: { url: 'redis://127.0.0.1:1' },
        networks: [
          {
            id: 'net1',
            baseUrl: 'https://api.example.com/v1',
            apiKeyEnv: 'NET1_KEY',
            recipients: ['ops@net1.example'],
          },
        ],
      }),
    );
    const result = await runThmAsync(
      ['--config', config, 'replay', '--network', 'net1', '--listings', files[0]!, '--json'],
      { env: { NET1_KEY: 'k' } },
    );
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      days: Array<{ asOf: string; email: { subject: string } | null }>;
      summary: { emails: number; sent: unknown };
    };
    expect(doc.days).toHaveLength(SIM_DAYS);
    expect(doc.days.filter((d) => d.email).map((d) => d.asOf)).toEqual(
      emails.map((e) => isoDateOfDay(network.day0 + e.asOf)),
    );
    expect(doc.summary).toMatchObject({ emails: emails.length, sent: null });
  });
});
