// Take-over with a fencing epoch: the home A is a real process (dist/server.mjs), killed with
// SIGKILL; members M and R run in this process on real ports with the thresholds shortened
// (silence 2 s instead of 15 minutes, "home alive" 8 s instead of 3 minutes), so the rules
// are the real ones on a shorter clock. M may not take over while the home answers, nor
// before it has itself seen the silence; R refuses while it heard the home lately; then M
// takes over at epoch 2 and R follows it. A, started again on its own data, still thinks it
// is the home at epoch 1: asking its members, it is shown the take-over, checks it and steps
// down, and from then on follows M like any member.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../testing/processes.js';
import {
  call,
  ledgerText,
  startInstall,
  stopAll,
  waitFor,
  type Install,
} from '../testing/keychain/installs.js';
import {
  api,
  closeMembers,
  eventsOf as events,
  inProcessMember,
} from '../testing/keychain/in-process.js';
import type { TestServer } from '../testing/test-server.js';

requireBundle();

type Json = Record<string, unknown>;

/**
 * Silence 2 s instead of 15 minutes, "home alive" 15 s instead of 3 minutes: room for a loaded
 * machine, where R must still count the home as heard when M has seen its 2 s and asks (at
 * 8 s, a whole-suite run once asked after R's window had passed).
 */
const SHORT = { pullEveryMs: 250, takeoverSilenceMs: 2000, homeAliveMs: 15_000 };

afterAll(async () => {
  await closeMembers();
  await stopAll();
});

describe('taking over from a lost home', () => {
  let a: Install;
  let m: TestServer;
  let r: TestServer;
  let aFp: string;
  let mFp: string;

  beforeAll(async () => {
    a = await startInstall('to-a', 'd1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1');
    aFp = String(
      (await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' })).body['fingerprint'],
    );
    expect((await call(a, 'PUT', '/v1/policy', { grouping: { window_s: 210, by: ['alertname'] } })).status).toBe(200); // prettier-ignore
    const keys = (await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['m', 'r'] })).body[
      'keys'
    ] as { key: string }[];
    m = (await inProcessMember('to-m', a.url, keys[0]?.key ?? '', SHORT)).s;
    r = (await inProcessMember('to-r', a.url, keys[1]?.key ?? '', SHORT)).s;
    for (const s of [m, r])
      await waitFor('a member', async () =>
        (await api(s, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null,
      );
    mFp = String((await api(m, 'GET', '/v1/keychain')).body['fingerprint']);
  }, 90_000);

  it('is refused while the home answers', async () => {
    const refused = await api(m, 'POST', '/v1/keychain/take-over', {});
    expect(refused.status).toBe(409);
    expect(refused.body['error']).toBe('home_not_silent');
    expect(String(refused.body['message'])).toContain('down does not count');
    const onHome = await call(a, 'POST', '/v1/keychain/take-over');
    expect(onHome.status).toBe(409);
    expect(onHome.body['error']).toBe('not_member');
  });

  it('after kill -9 of the home: refused by a member that heard it lately, then taken at epoch 2', async () => {
    a.child.kill('SIGKILL');
    await new Promise((res) => a.child.once('exit', res));
    // M has seen 2 s of silence, but R heard the home less than 8 s ago.
    await waitFor('M to see the silence', async () => {
      const tried = await api(m, 'POST', '/v1/keychain/take-over', {});
      return tried.body['error'] === 'home_not_silent' ? null : tried;
    }).then((tried) => {
      expect(tried.status).toBe(409);
      expect(tried.body['error']).toBe('home_alive');
    });
    expect(events(r, 'keychain.takeover_rejected')).toEqual([
      expect.objectContaining({ claimant: mFp, reason: 'home_alive' }),
    ]);
    expect((await api(m, 'GET', '/v1/keychain')).body).toMatchObject({ role: 'member', epoch: 1 });

    const taken = await waitFor(
      'R to stop vouching for the home',
      async () => {
        const tried = await api(m, 'POST', '/v1/keychain/take-over', {});
        return tried.status === 200 ? tried : null;
      },
      30_000,
    );
    expect(taken.body).toMatchObject({ role: 'home', home_fp: mFp, epoch: 2 });
    expect(events(m, 'keychain.took_over')).toEqual([
      expect.objectContaining({ from: aFp, epoch: 2, accepted: 1, force: false }),
    ]);
    const follower = (await api(r, 'GET', '/v1/keychain')).body;
    expect(follower).toMatchObject({ role: 'member', home_fp: mFp, epoch: 2 });
    expect(follower['head']).toBe(taken.body['head']);
    // The new home carries on what the old one carried.
    expect((await api(m, 'PUT', '/v1/policy', { grouping: { window_s: 420, by: ['alertname'] } })).status).toBe(200); // prettier-ignore
    expect((await api(r, 'POST', '/v1/keychain/pull')).status).toBe(200);
    expect(JSON.stringify((await api(r, 'GET', '/v1/policy')).body)).toContain('420');
  }, 60_000);

  it('makes the old home step down when it comes back, and follow the new one', async () => {
    a = await startInstall('to-a', 'd1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1', {}, a.dir);
    expect((await call(a, 'GET', '/v1/keychain')).body).toMatchObject({ role: 'home', epoch: 1 });
    // Believing itself the home, A changes the policy: a change the new home never sees.
    expect((await call(a, 'PUT', '/v1/policy', { grouping: { window_s: 777, by: ['alertname'] } })).status).toBe(200); // prettier-ignore
    // Its copy of the parts cannot be written (a file where the folder goes, as a full disk
    // would refuse it): it stays the home this round, and says why.
    const folder = join(a.dir, 'data', 'keychain', 'divergent');
    mkdirSync(join(folder, '..'), { recursive: true });
    writeFileSync(folder, 'in the way');
    await call(a, 'POST', '/v1/keychain/pull');
    expect((await call(a, 'GET', '/v1/keychain')).body).toMatchObject({ role: 'home', epoch: 1 });
    expect(await ledgerText(a)).toMatch(/keychain\.divergent_failed .*"error":"E[A-Z]+"/);
    // Said once, however often it is tried; and a full disk is no sign of a forged take-over.
    await call(a, 'POST', '/v1/keychain/pull');
    expect((await ledgerText(a)).match(/keychain\.divergent_failed /g)).toHaveLength(1);
    expect(await ledgerText(a)).not.toMatch(/keychain\.takeover_invalid/);
    rmSync(folder);
    // Sync now on a home asks its members which epoch they follow.
    await call(a, 'POST', '/v1/keychain/pull');
    const after = (await call(a, 'GET', '/v1/keychain')).body;
    expect(after).toMatchObject({ role: 'member', home_fp: mFp, epoch: 2 });
    // Told by R, which accepted the claim: the claimant's own word is not enough while
    // another member exists (M is asked first, as it joined first).
    const rFp = String((await api(r, 'GET', '/v1/keychain')).body['fingerprint']);
    expect(await ledgerText(a)).toMatch(
      new RegExp(`keychain\\.home_superseded .*"epoch":2.*"told_by":"${rFp}"`),
    );
    // Its own copy of the parts it carried, its change in it, kept in a file before the new
    // home's replace them: never merged, never in a ledger.
    const saved = /keychain\.divergent_saved (\{.*\})/.exec(await ledgerText(a));
    const copy = JSON.parse(saved?.[1] ?? '{}') as { file: string; parts: string[]; epoch: number };
    expect(copy).toMatchObject({ epoch: 2, new_home: mFp });
    expect(copy.parts).toContain('policy');
    const path = join(a.dir, 'data', copy.file);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(readFileSync(path, 'utf8')) as {
      parts: { policy: { document: unknown } };
    };
    expect(JSON.stringify(kept.parts.policy.document)).toContain('777');
    expect(await ledgerText(a)).not.toMatch(/divergent_saved .*777/);
    // It can no longer act as a home, and it takes the new home's parts.
    const keys = await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['x'] });
    expect(keys.body['error']).toBe('not_home');
    expect((await call(a, 'POST', '/v1/keychain/pull')).status).toBe(200);
    expect(JSON.stringify((await call(a, 'GET', '/v1/policy')).body)).toContain('420');
    const roster = (await api(m, 'GET', '/v1/keychain')).body['members'] as Json[];
    expect(roster.find((x) => x['fingerprint'] === aFp)).toMatchObject({ role: 'member' });
  }, 60_000);
});
