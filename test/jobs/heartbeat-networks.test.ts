import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { builtinScenario, type Scenario } from '../../src/sandbox/index.js';
import { waitFor } from '../harness/ports.js';
import { startReceiver, type TestReceiver } from '../harness/receiver.js';
import { completed, startJobStack, type JobStack } from './stack.js';

/**
 * Through the real worker: each network pings its own dead man's switch per job
 * kind (networks[].heartbeat.url / invoicesUrl), else the top-level heartbeat.url, so that one
 * network's failure is never masked by another's success. The heartbeat service is an HTTP
 * receiver on loopback; every URL has its own path on it.
 */
const ACME_CHECKS = '/ping/acme-checks-3f9c1e';
const ACME_INVOICES = '/ping/acme-invoices-7b20d4';
const GLOBEX_CHECKS = '/ping/globex-checks-c81a55';
const GLOBAL = '/ping/global-0d6e92';
const ALL = [ACME_CHECKS, ACME_INVOICES, GLOBEX_CHECKS, GLOBAL];

/** The demo story plus "initech", a third network with no heartbeat of its own. */
function scenario(): Scenario {
  const demo = builtinScenario('demo');
  const globex = demo.networks.find((n) => n.id === 'globex');
  if (!globex) throw new Error('the demo scenario has no globex');
  return {
    ...demo,
    networks: [...demo.networks, { ...globex, id: 'initech', networkId: 1003, name: 'Initech' }],
  } as Scenario;
}

describe('heartbeats per network and job kind, through the worker', () => {
  let stack: JobStack;
  let receiver: TestReceiver;

  /** What one heartbeat URL received, as the suffix after it: '/start', '' (success), '/fail'. */
  const pingsOf = (base: string) =>
    receiver.requests
      .map((r) => r.path)
      .filter((p) => p === base || p.startsWith(`${base}/`))
      .map((p) => p.slice(base.length));
  const allPings = () => receiver.requests.map((r) => r.path);
  /** Waits until every URL has at least the pings expected, then a little for strays. */
  const settle = async (expected: Record<string, string[]>) => {
    await waitFor(
      () => Object.entries(expected).every(([url, want]) => pingsOf(url).length >= want.length),
      { what: `pings ${JSON.stringify(expected)}; got ${JSON.stringify(allPings())}` },
    );
    await new Promise((r) => setTimeout(r, 300));
  };
  /** Every URL received exactly what is listed (nothing when not listed), and nothing else came. */
  const expectPings = (expected: Record<string, string[]>) => {
    for (const url of ALL) expect(pingsOf(url), url).toEqual(expected[url] ?? []);
    expect(allPings().filter((p) => !ALL.some((u) => p === u || p.startsWith(`${u}/`)))).toEqual(
      [],
    );
    expect(receiver.requests.every((r) => r.method === 'GET')).toBe(true);
  };
  const accessRequests = (network: string) =>
    stack.sbx.sandbox
      .requestLog()
      .filter((r) => r.network === network && r.path === '/networks/traffic/access').length;

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startJobStack(
      [],
      { heartbeat: { url: `${receiver.url}${GLOBAL}` } },
      {
        scenario: scenario(),
        rawNetworks: (sbx) => [
          sbx.rawNetwork('acme', {
            name: 'Acme Network',
            heartbeat: {
              url: `${receiver.url}${ACME_CHECKS}`,
              invoicesUrl: `${receiver.url}${ACME_INVOICES}`,
            },
          }),
          sbx.rawNetwork('globex', {
            name: 'Globex Partners',
            heartbeat: { url: `${receiver.url}${GLOBEX_CHECKS}/` },
          }),
          sbx.rawNetwork('initech', { name: 'Initech' }),
        ],
      },
    );
    await stack.startWorker();
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    stack.sbx.sandbox.clearFaults();
  });

  it('the config resolves each network to its own URLs', () => {
    const [acme, globex, initech] = stack.config.networks;
    expect(acme?.heartbeat.url?.reveal()).toBe(`${receiver.url}${ACME_CHECKS}`);
    expect(acme?.heartbeat.invoicesUrl?.reveal()).toBe(`${receiver.url}${ACME_INVOICES}`);
    expect(globex?.heartbeat.url?.reveal()).toBe(`${receiver.url}${GLOBEX_CHECKS}/`);
    expect(globex?.heartbeat.invoicesUrl).toBeUndefined();
    expect(initech?.heartbeat.url).toBeUndefined();
    expect(stack.config.heartbeat.url?.reveal()).toBe(`${receiver.url}${GLOBAL}`);
  });

  it("acme's traffic-check fails for good while globex's succeeds: each URL tells its own story", async () => {
    stack.sbx.sandbox.setDay('2026-11-16');
    // 401 is not retried (src/jobs/failures.ts): the first attempt is the last.
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'access', status: 401, times: 1 });
    const acmeAccessBefore = accessRequests('acme');
    const [acme, globex] = await Promise.all([
      stack.run('traffic-check', 'acme', '2026-11-16'),
      stack.run('traffic-check', 'globex', '2026-11-16'),
    ]);
    expect(acme.state).toBe('failed');
    expect(acme.state === 'failed' && acme.error).toMatch(/401|authentication/i);
    expect(accessRequests('acme') - acmeAccessBefore).toBe(1);
    expect(completed(globex).status).toBe('done');
    const expected = { [ACME_CHECKS]: ['/start', '/fail'], [GLOBEX_CHECKS]: ['/start', ''] };
    await settle(expected);
    expectPings(expected);
  });

  it('globex fails only after every attempt: one /start per attempt, then one /fail', async () => {
    stack.sbx.sandbox.setDay('2026-11-17');
    stack.sbx.sandbox.injectFault({
      network: 'globex',
      endpoint: 'access',
      status: 503,
      times: 1_000,
    });
    const before = accessRequests('globex');
    const [globex, acme] = await Promise.all([
      stack.run('traffic-check', 'globex', '2026-11-17', { timeoutMs: 30_000 }),
      stack.run('traffic-check', 'acme', '2026-11-17'),
    ]);
    stack.sbx.sandbox.clearFaults();
    expect(globex.state).toBe('failed');
    // Every job attempt made every API attempt: it really failed for good, not on the first.
    expect(accessRequests('globex') - before).toBe(
      stack.config.worker.attempts * stack.config.api.attempts,
    );
    expect(completed(acme).status).toBe('done');
    const starts = Array.from({ length: stack.config.worker.attempts }, () => '/start');
    const expected = { [GLOBEX_CHECKS]: [...starts, '/fail'], [ACME_CHECKS]: ['/start', ''] };
    await settle(expected);
    expectPings(expected);
  }, 40_000);

  it('a network without a URL of its own pings the top-level heartbeat.url, and only it', async () => {
    stack.sbx.sandbox.setDay('2026-11-18');
    expect(completed(await stack.run('traffic-check', 'initech', '2026-11-18')).status).toBe(
      'done',
    );
    const expected = { [GLOBAL]: ['/start', ''] };
    await settle(expected);
    expectPings(expected);
  });

  it('the fallback fails too: a failing network without its own URL pings the global /fail', async () => {
    stack.sbx.sandbox.setDay('2026-11-19');
    stack.sbx.sandbox.injectFault({ network: 'initech', endpoint: 'access', status: 401 });
    const [initech, acme] = await Promise.all([
      stack.run('traffic-check', 'initech', '2026-11-19'),
      stack.run('traffic-check', 'acme', '2026-11-19'),
    ]);
    expect(initech.state).toBe('failed');
    expect(completed(acme).status).toBe('done');
    const expected = { [GLOBAL]: ['/start', '/fail'], [ACME_CHECKS]: ['/start', ''] };
    await settle(expected);
    expectPings(expected);
  });

  it("invoice snapshots ping the network's invoicesUrl, not its traffic URL; without one, the global URL", async () => {
    stack.sbx.sandbox.setDay('2026-11-18');
    const [acme, globex] = await Promise.all([
      stack.run('invoice-snapshot', 'acme', '2026-11-18'),
      stack.run('invoice-snapshot', 'globex', '2026-11-18'),
    ]);
    expect(completed(acme).status).toBe('done');
    expect(completed(globex).status).toBe('done');
    const expected = { [ACME_INVOICES]: ['/start', ''], [GLOBAL]: ['/start', ''] };
    await settle(expected);
    expectPings(expected);
  });

  it("a failed invoice snapshot pings the invoices URL's /fail while a traffic-check of the same network succeeds", async () => {
    stack.sbx.sandbox.setDay('2026-11-20');
    stack.sbx.sandbox.injectFault({ network: 'acme', endpoint: 'summary', status: 401 });
    const [invoices, checks] = await Promise.all([
      stack.run('invoice-snapshot', 'acme', '2026-11-20'),
      stack.run('traffic-check', 'acme', '2026-11-20'),
    ]);
    expect(invoices.state).toBe('failed');
    expect(completed(checks).status).toBe('done');
    const expected = { [ACME_INVOICES]: ['/start', '/fail'], [ACME_CHECKS]: ['/start', ''] };
    await settle(expected);
    expectPings(expected);
  });
});
