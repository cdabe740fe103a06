// Handing the home over between three real installs (dist/server.mjs processes on loopback):
// A the home, B and C members joined with site keys. A offers the home to B; a wrong code
// typed on B voids the offer; the right code makes B the home at epoch 2 and A a member of
// it in the same step; C learns it from A at its next pull and follows; the new home's
// changes reach both; the old home can no longer act as one; the code never reaches a ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../testing/processes.js';
import {
  call,
  ledgerText,
  startInstall,
  stopAll,
  waitFor,
  type Install,
  type Json,
} from '../testing/keychain/installs.js';

requireBundle();

afterAll(async () => {
  await stopAll();
});

type Offer = { offer_id: string; to: string; state: string; code: string | null };

const view = async (i: Install) => (await call(i, 'GET', '/v1/keychain')).body;
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('handing the home over', () => {
  let a: Install;
  let b: Install;
  let c: Install;
  let aFp: string;
  let bFp: string;
  const codes: string[] = [];

  beforeAll(async () => {
    a = await startInstall('ho-a', 'c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1');
    const home = await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' });
    aFp = String(home.body['fingerprint']);
    const made = await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['b', 'c'] });
    const keys = made.body['keys'] as { key: string }[];
    [b, c] = await Promise.all([
      startInstall('ho-b', 'c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2', {
        SVC_KEYCHAIN_JOIN: a.url,
        SVC_KEYCHAIN_SITE_KEY: keys[0]?.key ?? '',
      }),
      startInstall('ho-c', 'c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3', {
        SVC_KEYCHAIN_JOIN: a.url,
        SVC_KEYCHAIN_SITE_KEY: keys[1]?.key ?? '',
      }),
    ]);
    for (const i of [b, c])
      await waitFor(`${i.name} to enrol`, async () =>
        (await view(i))['role'] === 'member' ? true : null,
      );
    bFp = String((await view(b))['fingerprint']);
    // The policy the home carries, so that the new home has something to carry on.
    expect(
      (await call(a, 'PUT', '/v1/policy', { grouping: { window_s: 200, by: ['alertname'] } }))
        .status,
    ).toBe(200);
    for (const i of [b, c]) expect((await call(i, 'POST', '/v1/keychain/pull')).status).toBe(200);
  }, 90_000);

  it('lets a member rename only itself, through its home', async () => {
    const cFp = String((await view(c))['fingerprint']);
    const renamed = await call(c, 'POST', '/v1/keychain/rename', { label: 'DC C east' });
    expect(renamed.status).toBe(200);
    expect(renamed.body['label']).toBe('DC C east');
    const onHome = (await view(a))['members'] as Json[];
    expect(onHome.find((m) => m['fingerprint'] === cFp)?.['label']).toBe('DC C east');
    expect(await ledgerText(a)).toMatch(/keychain\.member_renamed .*"label":"DC C east"/);
    const other = await call(c, 'POST', '/v1/keychain/rename', { label: 'x', fingerprint: bFp });
    expect(other.status).toBe(409);
    expect(other.body['error']).toBe('not_home');
  });

  it('offers the home to a member only, with a code shown on the home alone', async () => {
    const toSelf = await call(a, 'POST', '/v1/keychain/handover', { fingerprint: aFp });
    expect(toSelf.status).toBe(404);
    expect(toSelf.body['field']).toBe('fingerprint');
    const fromMember = await call(b, 'POST', '/v1/keychain/handover', { fingerprint: bFp });
    expect(fromMember.status).toBe(409);
    expect(fromMember.body['error']).toBe('not_home');

    const offered = await call(a, 'POST', '/v1/keychain/handover', { fingerprint: bFp });
    expect(offered.status).toBe(200);
    const offer = offered.body['handover'] as Offer;
    expect(offer).toMatchObject({ to: bFp, state: 'open' });
    expect(offer.code).toMatch(/^\d{6}$/);
    codes.push(offer.code ?? '');
    // The member learns of it at its pull, without the code.
    const seen = (await call(b, 'POST', '/v1/keychain/pull')).body['handover'] as Offer;
    expect(seen).toMatchObject({ offer_id: offer.offer_id, state: 'offered', code: null });
    expect((await view(c))['handover']).toBeNull();
  });

  it('voids the offer at a wrong code typed on the member', async () => {
    const offer = (await view(a))['handover'] as Offer;
    const miss = await call(b, 'POST', '/v1/keychain/handover/accept', {
      code: wrong(offer.code ?? ''),
    });
    expect(miss.status).toBe(409);
    expect(miss.body['error']).toBe('code_mismatch');
    expect((await view(a))['handover']).toMatchObject({
      offer_id: offer.offer_id,
      state: 'cancelled',
      reason: 'wrong code',
      code: null,
    });
    expect((await view(a))['role']).toBe('home');
    // The right code no longer helps: that offer is over.
    const late = await call(b, 'POST', '/v1/keychain/handover/accept', { code: offer.code });
    expect(late.status).toBe(409);
  });

  it('moves the home at the right code: B the home at epoch 2, A its member, C follows', async () => {
    const offer = (await call(a, 'POST', '/v1/keychain/handover', { fingerprint: bFp })).body[
      'handover'
    ] as Offer;
    codes.push(offer.code ?? '');
    const accepted = await call(b, 'POST', '/v1/keychain/handover/accept', { code: offer.code });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ role: 'home', home_fp: bFp, epoch: 2 });

    const old = await view(a);
    expect(old).toMatchObject({ role: 'member', home_fp: bFp, epoch: 2 });
    expect(old['head']).toBe(accepted.body['head']);
    const siteKeys = await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['x'] });
    expect(siteKeys.status).toBe(409);
    expect(siteKeys.body['error']).toBe('not_home');

    // C still pulls from A: it is told where the home went (signed by A) and follows.
    const followed = await call(c, 'POST', '/v1/keychain/pull');
    expect(followed.status).toBe(200);
    expect(followed.body).toMatchObject({ role: 'member', home_fp: bFp, epoch: 2 });
    expect(followed.body['head']).toBe(accepted.body['head']);
    // A pulls from its new home like any member; the new home hears both.
    expect((await call(a, 'POST', '/v1/keychain/pull')).status).toBe(200);
    const roster = (await view(b))['members'] as Json[];
    expect(roster.map((m) => [m['fingerprint'], m['role']])).toEqual(
      expect.arrayContaining([
        [bFp, 'home'],
        [aFp, 'member'],
      ]),
    );
    expect(await ledgerText(a)).toContain('keychain.home_handed_over');
    expect(await ledgerText(b)).toMatch(/keychain\.home_changed .*"role":"home"/);
    expect(await ledgerText(c)).toMatch(/keychain\.home_changed .*"role":"member"/);
  }, 60_000);

  it("carries the new home's changes to both members; the old home's copy is managed now", async () => {
    expect(
      (await call(b, 'PUT', '/v1/policy', { grouping: { window_s: 330, by: ['alertname'] } }))
        .status,
    ).toBe(200);
    for (const i of [a, c]) {
      expect((await call(i, 'POST', '/v1/keychain/pull')).status).toBe(200);
      const policy = await call(i, 'GET', '/v1/policy');
      expect(JSON.stringify(policy.body)).toContain('330');
    }
    const refused = await call(a, 'PUT', '/v1/policy', {
      grouping: { window_s: 100, by: ['alertname'] },
    });
    expect(refused.status).toBe(409);
    expect(refused.body['error']).toBe('keychain_managed');
  });

  it('keeps the codes out of every ledger', async () => {
    for (const i of [a, b, c]) {
      const text = await ledgerText(i);
      for (const code of codes) expect(text).not.toMatch(new RegExp(`"code":"?${code}`));
      expect(text).not.toContain('"code":');
    }
  });
});
