import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/dates.js';
import { createLogger } from '../../src/log.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { runThmAsync } from '../harness/cli.js';
import { waitFor } from '../harness/ports.js';
import { completed, startJobStack, type JobStack } from '../jobs/stack.js';

/**
 * One network's state corrupted by hand (redis-cli, as an operator or a bad script would): the
 * others are still read and reported, the broken one is named with its key and field, its own
 * run fails with a clear THM_STORE error and its problem e-mail still goes out; junk in the
 * outbox is logged once, moved aside and listed by `thm notify failed`.
 */
describe('corrupted per-network state and outbox junk (redis-cli, the real binary)', () => {
  let stack: JobStack;
  let env: NodeJS.ProcessEnv;
  let store: RedisStore;
  const logLines: string[] = [];
  const today = localDate(Date.now(), 'UTC');
  const thm = (...args: string[]) => runThmAsync(args, { env });
  const redisCli = (...args: string[]) => {
    const r = spawnSync('redis-cli', ['-p', String(stack.redis.port), ...args], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    return r.stdout.trim();
  };

  beforeAll(async () => {
    stack = await startJobStack(['acme', 'globex']);
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n')));
    await stack.startWorker({}, createLogger({ destination: stream, level: 'info' }));
    stack.sbx.sandbox.setDay('2026-11-15');
    for (const id of ['acme', 'globex']) completed(await stack.run('traffic-check', id, today));
    await stack.smtp.waitForMessages(2);
    store = new RedisStore(stack.redis.client(), stack.config.redis.prefix);
    const dir = mkdtempSync(path.join(tmpdir(), 'thm-corrupt-'));
    const file = path.join(dir, 'thm.json');
    writeFileSync(
      file,
      JSON.stringify({
        redis: { url: stack.redis.url, prefix: stack.config.redis.prefix },
        networks: ['acme', 'globex'].map((id) => stack.sbx.rawNetwork(id)),
      }),
    );
    env = { ...stack.sbx.env, THM_CONFIG: file };
    expect(
      (
        await thm(
          'silence',
          'add',
          '--network',
          'globex',
          '--domain',
          '7',
          '--for',
          '7d',
          '--reason',
          'x',
        )
      ).code,
    ).toBe(0);
  });
  afterAll(() => stack.close());

  it('garbage JSON in acme silences: status, --json, --check and silence list report globex and name acme', async () => {
    const key = store.keys.network('acme');
    redisCli('HSET', key, 'silences', '{not json');

    const text = await thm('status');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('globex (globex)');
    expect(text.stdout).toMatch(/acme \(acme\) {2}\[STATE UNREADABLE\]/);
    expect(text.stdout).toContain(
      `network acme: stored state unreadable at key ${key} field silences: stored silence is not JSON`,
    );

    const json = await thm('status', '--json');
    const doc = JSON.parse(json.stdout) as {
      networks: Array<{
        id: string;
        unreadable?: { key: string; field?: string };
        lastRuns: object;
      }>;
      healthy: boolean;
    };
    expect(doc.networks.find((n) => n.id === 'acme')?.unreadable).toMatchObject({
      key,
      field: 'silences',
    });
    const globex = doc.networks.find((n) => n.id === 'globex');
    expect(globex?.unreadable).toBeUndefined();
    expect(globex?.lastRuns).toHaveProperty('trafficCheck.asOf', today);
    expect(doc.healthy).toBe(false);

    expect((await thm('status', '--check')).code).toBe(1);

    const silences = await thm('silence', 'list', '--json');
    expect(silences.code).toBe(1);
    const listed = JSON.parse(silences.stdout) as { silences: Array<{ networkId: string }> };
    expect(listed.silences.map((s) => s.networkId)).toEqual(['globex']);
    expect(silences.stderr).toContain(
      `network acme: stored state unreadable at key ${key} field silences`,
    );
  });

  it("acme's own run fails with a clear THM_STORE error, and its problem e-mail is still sent", async () => {
    const before = stack.smtp.messages.length;
    const result = await stack.run('traffic-check', 'acme', today, { force: true });
    expect(result.state).toBe('failed');
    expect(result.state === 'failed' ? result.error : '').toContain(
      `THM_STORE: network acme: stored state unreadable at key ${store.keys.network('acme')} field silences`,
    );
    const mails = await stack.smtp.waitForMessages(before + 1);
    const problem = mails.at(-1);
    expect(problem?.parsed.subject).toMatch(/acme.*problem/i);
    expect(problem?.parsed.text).toContain('field silences');
  });

  it('one problem notice per episode, not per as-of date; repaired: one restored; broken again: a new notice', async () => {
    const key = store.keys.network('acme');
    const admin = stack.redis.client();
    const outboxTotal = async () => {
      const c = await store.outboxCounts();
      return c.pending + c.sent + c.failed;
    };
    const entries = await outboxTotal();
    const mails = stack.smtp.messages.length;

    // Still unreadable: another as-of date fails too, and adds nothing to the outbox.
    const yesterday = await stack.run('traffic-check', 'acme', addDays(today, -1));
    expect(yesterday.state).toBe('failed');
    expect(await outboxTotal()).toBe(entries);
    expect(logLines.some((l) => l.includes('its problem notice went out already'))).toBe(true);
    expect(await admin.hexists(store.keys.unreadableEpisodes, 'acme')).toBe(1);

    // Repaired by hand: the sweep hands the episode over to acme's own state ...
    redisCli('HDEL', key, 'silences');
    await waitFor(
      async () =>
        (await admin.hexists(store.keys.unreadableEpisodes, 'acme')) === 0 ? true : undefined,
      { what: 'the episode handed over' },
    );
    expect(JSON.parse((await admin.hget(key, 'problem')) ?? '{}')).toMatchObject({
      code: 'THM_STORE',
    });
    // ... and the next success closes it with one "restored".
    const ok = completed(await stack.run('traffic-check', 'acme', today, { force: true }));
    expect(ok.notifications.map((n) => n.kind)).toEqual(['restored']);
    const restored = await stack.smtp.waitForMessages(mails + 1);
    expect(restored.at(-1)?.parsed.subject).toMatch(/acme.*restored/i);
    expect(await admin.hexists(key, 'problem')).toBe(0);

    // Broken again: a new episode, a new notice.
    redisCli('HSET', key, 'silences', '{not json');
    const again = await stack.run('traffic-check', 'acme', addDays(today, -2));
    expect(again.state).toBe('failed');
    expect(await outboxTotal()).toBe(entries + 2);
    const problem = await stack.smtp.waitForMessages(mails + 2);
    expect(problem.at(-1)?.parsed.subject).toMatch(/acme.*problem/i);
  });

  it('a key of the wrong type is named too (WRONGTYPE), and globex is still reported', async () => {
    const key = store.keys.network('acme');
    redisCli('DEL', key);
    redisCli('SET', key, 'a string, not a hash');
    const json = await thm('status', '--json');
    const doc = JSON.parse(json.stdout) as {
      networks: Array<{ id: string; unreadable?: { key: string; message: string } }>;
    };
    expect(doc.networks.find((n) => n.id === 'acme')?.unreadable?.message).toContain(
      `key ${key}: holds another Redis type than the hash the store writes (WRONGTYPE)`,
    );
    expect(doc.networks.find((n) => n.id === 'globex')?.unreadable).toBeUndefined();
    const result = await stack.run('traffic-check', 'acme', today, { force: true });
    expect(result.state === 'failed' ? result.error : '').toContain('WRONGTYPE');
  });

  it('junk in the outbox is logged once, moved aside, and listed by thm notify failed', async () => {
    const k = store.keys;
    redisCli('ZADD', k.outboxPending, '0', 'junkidwithoutbody');
    redisCli('HSET', k.outboxBody, 'junkidgarbage', 'garbage{');
    redisCli('ZADD', k.outboxPending, '0', 'junkidgarbage');
    const admin = stack.redis.client();
    await waitFor(async () => ((await admin.zcard(k.outboxPending)) === 0 ? true : undefined), {
      what: 'the junk moved out of pending',
    });
    // Several sweeps (every 200 ms) pass: still one line each.
    await new Promise((r) => setTimeout(r, 1_000));
    for (const id of ['junkidwithoutbody', 'junkidgarbage'])
      expect(logLines.filter((l) => l.includes(id))).toHaveLength(1);
    const failed = await thm('notify', 'failed', '--json');
    const rows = (JSON.parse(failed.stdout) as { failed: Array<{ id: string; error: string }> })
      .failed;
    expect(rows.find((r) => r.id === 'junkidwithoutbody')?.error).toContain(
      'pending without a notification',
    );
    expect(rows.find((r) => r.id === 'junkidgarbage')?.error).toContain(
      'unreadable outbox entry: stored notification is not JSON',
    );
  });
});
