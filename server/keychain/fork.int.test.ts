// Two take-overs at one epoch (design/keychain.md §2.7, test plan 11): the home A (a real
// process) is killed with SIGKILL, and its members M and R (in this process, on real ports,
// the keychain's clocks shortened) cannot reach each other either: each, with force, takes
// the home at epoch 2. When they reach each other again, each home asks the other which
// epoch it follows, is shown the other's log, and the take-over record with the lower hash
// wins on both: one home, one member, one log, and `keychain.fork_resolved` on the loser.
// In the second case one claimant missed the old home's last record (the other's joining):
// the logs part before the claims, and the winner, if it is the one that missed it, adopts
// that member before the loser follows, so no one is left out of the keychain.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../testing/processes.js';
import {
  call,
  startInstall,
  stopAll,
  waitFor,
  type Install,
} from '../testing/keychain/installs.js';
import { api, closeMembers, eventsOf, inProcessMember } from '../testing/keychain/in-process.js';
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

/**
 * Take over once the silence is long enough, with force (nobody else can be asked). A member
 * that does not pull by itself is made to, so that it sees the home fail.
 */
async function forceTakeOver(s: TestServer): Promise<Json> {
  const taken = await waitFor(
    'the silence to be long enough',
    async () => {
      await api(s, 'POST', '/v1/keychain/pull');
      const tried = await api(s, 'POST', '/v1/keychain/take-over', { force: true });
      return tried.status === 200 ? tried.body : null;
    },
    20_000,
  );
  return taken;
}

interface Side {
  readonly s: TestServer;
  readonly port: number;
}

/**
 * A home and two members, M and R. With `mMissesR`, M pulls only when it joins, so it never
 * sees R's joining; otherwise both hold the whole log before the partition.
 */
async function keychainOfThree(name: string, secret: string, mMissesR: boolean) {
  const a = await startInstall(`${name}-a`, secret);
  expect((await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' })).status).toBe(200);
  const keys = (await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['m', 'r'] })).body[
    'keys'
  ] as { key: string }[];
  const isMember = async (x: Side) =>
    (await api(x.s, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null;
  const m = await inProcessMember(
    `${name}-m`,
    a.url,
    keys[0]?.key ?? '',
    mMissesR ? { ...SHORT, pullEveryMs: 3_600_000 } : SHORT,
  );
  await waitFor('M a member', () => isMember(m));
  const r = await inProcessMember(`${name}-r`, a.url, keys[1]?.key ?? '', SHORT);
  await waitFor('R a member', () => isMember(r));
  const logOf = (x: Side) => x.s.runtime.keychainStore.log();
  // Genesis, M's joining, R's joining: R holds all three; M all three or only two.
  await waitFor('R to hold the whole log', async () => (logOf(r).length === 3 ? true : null));
  await waitFor('M to hold its log', async () => {
    if (!mMissesR) await api(m.s, 'POST', '/v1/keychain/pull');
    return logOf(m).length === (mMissesR ? 2 : 3) ? true : null;
  });
  return { a, m, r };
}

/** The partition in three and its healing; what must hold whichever claim wins. */
async function forkAndHeal(a: Install, m: Side, r: Side) {
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
  const claim = (s: TestServer): LogRecord | null =>
    s.runtime.keychainStore.log().find((x) => x.type === 'takeover') ?? null;
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
    async () => ((await api(loser, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null),
    20_000,
  );
  const w = (await api(winner, 'GET', '/v1/keychain')).body;
  const l = (await api(loser, 'GET', '/v1/keychain')).body;
  expect(w).toMatchObject({ role: 'home', home_fp: winnerFp, epoch: 2 });
  expect(l).toMatchObject({ role: 'member', home_fp: winnerFp, epoch: 2 });
  expect(l['head']).toBe(w['head']);
  expect(eventsOf(loser, 'keychain.fork_resolved')).toEqual([
    expect.objectContaining({
      epoch: 2,
      winner: winnerFp,
      winner_hash: recordHash(winner === m.s ? mClaim : rClaim),
      loser: loser.runtime.keyFingerprint,
    }),
  ]);
  // The loser kept its own policy, set as a home, in its divergent copy before following.
  const [copy] = eventsOf(loser, 'keychain.divergent_saved') as { file?: string }[];
  expect(copy).toMatchObject({ epoch: 2, new_home: winnerFp });
  const kept = readFileSync(join(loser.runtime.config.dataDir, String(copy?.file)), 'utf8');
  expect(kept).toContain(`"window_s": ${loser === m.s ? '111' : '222'}`);
  // Both are on the winner's roster, and the loser's pulls reach it and keep it the home;
  // the winner's policy replaces the one the loser set as a home (its event named in the sync).
  const rosterOf = (body: Json) =>
    (body['members'] as { fingerprint: string }[]).map((x) => x.fingerprint).sort();
  expect(rosterOf(w)).toEqual(expect.arrayContaining([m.s, r.s].map((x) => x.runtime.keyFingerprint))); // prettier-ignore
  expect((await api(loser, 'POST', '/v1/keychain/pull')).status).toBe(200);
  expect((await api(winner, 'GET', '/v1/keychain')).body['role']).toBe('home');
  const policyOf = async (s: TestServer) =>
    JSON.stringify(((await api(s, 'GET', '/v1/policy')).body['policy'] as Json)['grouping']);
  expect(await policyOf(loser)).toBe(await policyOf(winner));
  const synced = eventsOf(loser, 'keychain.part_synced')
    .reverse()
    .find((d) => d['part'] === 'policy');
  const replaced = synced?.['replaced'] as { actor?: string } | undefined;
  expect(replaced?.actor).toBeDefined();
  expect(replaced?.actor).not.toMatch(/^keychain:/);
  return { winner, loser };
}

describe('two take-overs at one epoch', () => {
  let three: Awaited<ReturnType<typeof keychainOfThree>>;
  beforeAll(async () => {
    three = await keychainOfThree('fk', 'f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2', false);
  }, 90_000);

  it('ends with one home: the take-over whose record hash is lower, on both sides', async () => {
    const { winner } = await forkAndHeal(three.a, three.m, three.r);
    // Nothing was missed, so nothing was adopted.
    expect(eventsOf(winner, 'keychain.member_added').filter((d) => d['via'] === 'fork')).toEqual(
      [],
    );
  }, 90_000);
});

describe('two take-overs at one epoch, one claimant having missed the other joining', () => {
  let three: Awaited<ReturnType<typeof keychainOfThree>>;
  beforeAll(async () => {
    three = await keychainOfThree('fm', 'f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3', true);
  }, 90_000);

  it('still ends with one home, and the member only the loser knew stays in the keychain', async () => {
    const { m, r } = three;
    const { winner } = await forkAndHeal(three.a, m, r);
    const adopted = eventsOf(m.s, 'keychain.member_added').filter((d) => d['via'] === 'fork');
    // Which claim wins is the hashes' choice: when M (which missed R) wins, it adopts R's
    // joining before R follows; when R wins, M's own joining is in R's log already.
    if (winner === m.s)
      expect(adopted).toEqual([
        expect.objectContaining({ fingerprint: r.s.runtime.keyFingerprint }),
      ]);
    else expect(adopted).toEqual([]);
    const log = m.s.runtime.keychainStore.log();
    expect(log.map((x) => x.type)).toContain('member_add');
    expect(r.s.runtime.keychainStore.log().map((x) => recordHash(x))).toEqual(
      log.map((x) => recordHash(x)),
    );
  }, 90_000);
});
