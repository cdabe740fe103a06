// Two take-overs at one epoch (design/keychain.md §2.7, test plan 11): the home A (a real
// process) is killed with SIGKILL, and its members M and R (in this process, on real ports,
// the keychain's clocks shortened) cannot reach each other either: each, with force, takes
// the home at epoch 2. When they reach each other again, each home asks the other which
// epoch it follows, is shown the other's log, and the take-over record with the lower hash
// wins on both: one home, one member, one log, and `keychain.fork_resolved` on the loser.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../testing/processes.js';
import {
  call,
  startInstall,
  stopAll,
  waitFor,
  type Install,
} from '../testing/keychain/installs.js';
import { api, closeMembers, inProcessMember } from '../testing/keychain/in-process.js';
import type { TestServer } from '../testing/test-server.js';
import { recordHash, type LogRecord } from './authority-log.js';

requireBundle();

type Json = Record<string, unknown>;

const SHORT = { pullEveryMs: 250, healthEveryMs: 500, takeoverSilenceMs: 1500, homeAliveMs: 3000 };

afterAll(async () => {
  await closeMembers();
  await stopAll();
});

/** Cut an install off (nothing reaches it) or let it be reached again, on the same port. */
async function cut(server: Server): Promise<void> {
  await new Promise<void>((res) => {
    server.close(() => {
      res();
    });
    server.closeAllConnections();
  });
}
async function mend(server: Server, port: number): Promise<void> {
  await new Promise<void>((res) => {
    server.listen(port, '127.0.0.1', res);
  });
}

/** Take over once the silence is long enough, with force (nobody else can be asked). */
async function forceTakeOver(s: TestServer): Promise<Json> {
  const taken = await waitFor(
    'the silence to be long enough',
    async () => {
      const tried = await api(s, 'POST', '/v1/keychain/take-over', { force: true });
      return tried.status === 200 ? tried.body : null;
    },
    20_000,
  );
  return taken;
}

describe('two take-overs at one epoch', () => {
  let a: Install;
  let m: { s: TestServer; port: number };
  let r: { s: TestServer; port: number };

  beforeAll(async () => {
    a = await startInstall('fk-a', 'f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2');
    expect((await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' })).status).toBe(200);
    const keys = (await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['m', 'r'] })).body[
      'keys'
    ] as { key: string }[];
    m = await inProcessMember('fk-m', a.url, keys[0]?.key ?? '', SHORT);
    r = await inProcessMember('fk-r', a.url, keys[1]?.key ?? '', SHORT);
    for (const x of [m, r])
      await waitFor('a member', async () =>
        (await api(x.s, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null,
      );
    // Both have the whole roster before the partition.
    await api(m.s, 'POST', '/v1/keychain/pull');
    await api(r.s, 'POST', '/v1/keychain/pull');
  }, 90_000);

  it('ends with one home: the take-over whose record hash is lower, on both sides', async () => {
    a.child.kill('SIGKILL');
    await new Promise((res) => a.child.once('exit', res));
    // A partition in three: M takes over while R cannot be reached, then R while M cannot.
    await cut(r.s.app.server);
    const byM = await forceTakeOver(m.s);
    expect(byM).toMatchObject({ role: 'home', epoch: 2 });
    // Each side changes the policy while it believes it is the home.
    expect((await api(m.s, 'PUT', '/v1/policy', { grouping: { window_s: 111, by: [] } })).status).toBe(200); // prettier-ignore
    await cut(m.s.app.server);
    await mend(r.s.app.server, r.port);
    const byR = await forceTakeOver(r.s);
    expect(byR).toMatchObject({ role: 'home', epoch: 2 });
    expect((await api(r.s, 'PUT', '/v1/policy', { grouping: { window_s: 222, by: [] } })).status).toBe(200); // prettier-ignore
    expect(byR['head']).not.toBe(byM['head']);
    const claim = (s: TestServer): LogRecord | null => s.runtime.keychainStore.log().at(-1) ?? null;
    const mClaim = claim(m.s);
    const rClaim = claim(r.s);
    if (mClaim === null || rClaim === null) throw new Error('no take-over record');
    const [winner, loser] = recordHash(mClaim) < recordHash(rClaim) ? [m.s, r.s] : [r.s, m.s];
    const winnerFp = winner.runtime.keyFingerprint;

    // The partition heals: each home asks the other (at once here; every 0.5 s anyway).
    await mend(m.s.app.server, m.port);
    await api(m.s, 'POST', '/v1/keychain/pull');
    await api(r.s, 'POST', '/v1/keychain/pull');
    await waitFor(
      'one home',
      async () =>
        (await api(loser, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null,
      20_000,
    );
    const w = (await api(winner, 'GET', '/v1/keychain')).body;
    const l = (await api(loser, 'GET', '/v1/keychain')).body;
    expect(w).toMatchObject({ role: 'home', home_fp: winnerFp, epoch: 2 });
    expect(l).toMatchObject({ role: 'member', home_fp: winnerFp, epoch: 2 });
    expect(l['head']).toBe(w['head']);
    const resolved = loser.runtime.reader
      .list({ type: 'keychain.fork_resolved', order: 'asc' })
      .events.map((e) => e.data);
    expect(resolved).toEqual([
      expect.objectContaining({
        epoch: 2,
        winner: winnerFp,
        loser: loser.runtime.keyFingerprint,
      }),
    ]);
    // The loser's pulls now reach the winner, and keep it as the home; the winner's policy
    // replaces the one the loser set as a home (its event named in the sync).
    expect((await api(loser, 'POST', '/v1/keychain/pull')).status).toBe(200);
    expect((await api(winner, 'GET', '/v1/keychain')).body['role']).toBe('home');
    const policyOf = async (s: TestServer) =>
      JSON.stringify(((await api(s, 'GET', '/v1/policy')).body['policy'] as Json)['grouping']);
    expect(await policyOf(loser)).toBe(await policyOf(winner));
    const synced = loser.runtime.reader
      .list({ type: 'keychain.part_synced', order: 'desc' })
      .events.map((e) => e.data as Json)
      .find((d) => d['part'] === 'policy');
    const replaced = synced?.['replaced'] as { actor?: string } | undefined;
    expect(replaced?.actor).toBeDefined();
    expect(replaced?.actor).not.toMatch(/^keychain:/);
  }, 90_000);
});
