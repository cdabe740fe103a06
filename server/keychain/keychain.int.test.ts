// The keychain between real installs (dist/server.mjs processes on loopback, each its own
// data folder and install key): a home, site keys shown once, a new site that joins with
// SVC_KEYCHAIN_JOIN + SVC_KEYCHAIN_SITE_KEY, a site whose key pins another home, and the
// peer endpoints under attack: a replayed, an altered, a late, a misaddressed and an
// oversized request, a site key used twice or guessed, and a flood of hellos.
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../testing/processes.js';
import {
  call,
  craftedSite,
  enrolRequest,
  freshAddress,
  hello,
  installs,
  ledgerText,
  send,
  splitKey,
  startInstall,
  stopAll,
  temps,
  waitFor,
  type Install,
  type Json,
} from '../testing/keychain/installs.js';
import { importSigPub } from './authority-log.js';
import { signRequest, verifyResponse } from './crypto/peer-signature.js';
import { importAgreementPublic, openSealed, sealTo } from './crypto/sealed-box.js';
import { aadFor, ENROL_AAD, PARTS_AAD, PEER_BODY_LIMIT, ROSTER_AAD } from './peer.routes.js';
import { PULL_BURST } from './pull-bucket.js';

requireBundle();

/** A mail password the home carries to its members: it must never show anywhere else. */
const MAIL_PASSWORD = `smtp-${randomBytes(9).toString('base64url')}`;
const CONNECTION_TOKEN = `bearer-${randomBytes(9).toString('base64url')}`;
const SSO_SECRET = `oidc-${randomBytes(9).toString('base64url')}`;

/** Nonces the home keeps (read from its file: the table is this domain's). */
function nonceCount(i: Install): number {
  const db = new Database(join(i.dir, 'data', 'svc.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM keychain_nonces').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

afterAll(async () => {
  await stopAll();
});

/**
 * Sync now on a member, as a person presses it: the home gives each member PULL_BURST pulls
 * at once, then one per 5 s, and this file asks for more than that; a throttled one is asked
 * again after the wait the home named.
 */
async function syncNow(i: Install) {
  for (let attempt = 0; ; attempt++) {
    const r = await call(i, 'POST', '/v1/keychain/pull');
    const wait = /pulls faster than one every 5 s; retry in (\d+) s/.exec(String(r.body['why']));
    if (attempt === 3 || wait === null) return r;
    await new Promise((done) => setTimeout(done, Number(wait[1]) * 1000 + 200));
  }
}

/** The latest `keychain.part_published` of a part in an install's ledger. */
async function lastPublished(
  i: Install,
  part: string,
): Promise<{ version: number; sha256: string }> {
  const lines = (await ledgerText(i))
    .split('\n')
    .filter((l) => l.startsWith('keychain.part_published '));
  const data = lines
    .map(
      (l) =>
        JSON.parse(l.slice(l.indexOf(' ') + 1)) as {
          part: string;
          version: number;
          sha256: string;
        },
    )
    .filter((d) => d.part === part);
  const last = data.at(-1);
  if (last === undefined) throw new Error(`${i.name} never published ${part}`);
  return last;
}

describe('a keychain of real installs on loopback', () => {
  let a: Install;
  let b: Install;
  let keys: { id: string; label: string; key: string }[];

  beforeAll(async () => {
    a = await startInstall('dc-a', 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1');
  }, 60_000);

  it('is in no keychain until it is made the home; then epoch 1, itself the only member', async () => {
    const before = await call(a, 'GET', '/v1/keychain');
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      role: 'none',
      keychain_id: null,
      members: [],
      site_keys: [],
    });
    expect(String(before.body['fingerprint'])).toMatch(/^[A-Z2-7]{52}$/);

    const made = await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      role: 'home',
      epoch: 1,
      label: 'DC A',
      home_fp: before.body['fingerprint'],
    });
    expect(String(made.body['keychain_id'])).toMatch(/^kc_[a-z2-7]{26}$/);
    expect(made.body['members']).toEqual([
      expect.objectContaining({
        label: 'DC A',
        role: 'home',
        this: true,
        health: 'ok',
        quiet_s: 0,
      }),
    ]);
    const again = await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' });
    expect(again).toMatchObject({ status: 409, body: { error: 'already_in_keychain' } });
    expect(await call(a, 'POST', '/v1/keychain/home', { label: '' })).toMatchObject({
      status: 400,
      body: { field: 'label' },
    });
  });

  it('makes site keys shown once, each pinning the home, and never shows a secret again', async () => {
    const bad = await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['x'], hours: 169 });
    expect(bad).toMatchObject({ status: 400, body: { field: 'hours' } });
    const made = await call(a, 'POST', '/v1/keychain/site-keys', {
      labels: ['dc-b', 'spare', 'guessed', 'revoked'],
      hours: 2,
    });
    expect(made.status).toBe(200);
    keys = made.body['keys'] as typeof keys;
    expect(keys).toHaveLength(4);
    const view = await call(a, 'GET', '/v1/keychain');
    for (const k of keys) {
      expect(k.key).toMatch(
        new RegExp(`^skc1\\.${k.id}\\.[A-Z2-7]{32}\\.${String(view.body['home_fp'])}$`),
      );
      expect(JSON.stringify(view.body)).not.toContain(splitKey(k.key).secret);
    }
    expect(view.body['site_keys']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: keys[0]?.id, status: 'open', used_by: null }),
      ]),
    );
    const revoked = await call(a, 'POST', '/v1/keychain/site-keys/revoke', { id: keys[3]?.id });
    expect(revoked.status).toBe(200);
    expect(
      await call(a, 'POST', '/v1/keychain/site-keys/revoke', { id: 'NOSUCHID' }),
    ).toMatchObject({ status: 404 });
  });

  it('takes a new site set up with SVC_KEYCHAIN_JOIN and its site key; both see the same roster', async () => {
    b = await startInstall('dc-b', 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2', {
      SVC_KEYCHAIN_JOIN: a.url,
      SVC_KEYCHAIN_SITE_KEY: keys[0]?.key ?? '',
    });
    const joined = await waitFor('B to enrol', async () => {
      const v = await call(b, 'GET', '/v1/keychain');
      return v.body['role'] === 'member' ? v.body : null;
    });
    const home = await call(a, 'GET', '/v1/keychain');
    expect(joined).toMatchObject({
      keychain_id: home.body['keychain_id'],
      home_fp: home.body['home_fp'],
      epoch: 1,
    });
    expect(joined['head']).toBe(home.body['head']);
    const bFp = String(joined['fingerprint']);
    expect(home.body['members']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          fingerprint: bFp,
          label: 'dc-b',
          role: 'member',
          health: 'ok',
          via: `site_key:${keys[0]?.id ?? ''}`,
        }),
      ]),
    );
    expect(home.body['site_keys']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: keys[0]?.id, status: 'used', used_by: bFp }),
      ]),
    );
    // Sync now: the member pulls, the home hears it.
    const pulled = await syncNow(b);
    expect(pulled.status).toBe(200);
    expect((pulled.body['members'] as Json[]).map((m) => m['fingerprint']).sort()).toEqual(
      [String(home.body['home_fp']), bFp].sort(),
    );
    expect(await ledgerText(b)).toContain('keychain.enrolled');
    expect(await ledgerText(a)).toMatch(/keychain\.member_added .*"fingerprint":"[A-Z2-7]{52}"/);
  }, 60_000);

  it('carries the policy and branding from the home; a member refuses its own change (keychain_managed)', async () => {
    const policy = { grouping: { window_s: 240, by: ['alertname', 'dc'] } };
    expect((await call(a, 'PUT', '/v1/policy', policy)).status).toBe(200);
    expect((await call(a, 'PUT', '/v1/branding', { name: 'Acme Operations' })).status).toBe(200);
    const pulled = await syncNow(b);
    expect(pulled.status).toBe(200);
    expect(pulled.body['carried']).toEqual([
      'licence',
      'connections',
      'mail',
      'signin',
      'people',
      'policy',
      'branding',
      'numbers',
    ]);
    const bPolicy = await call(b, 'GET', '/v1/policy');
    expect(bPolicy.body['policy']).toMatchObject({
      grouping: { window_s: 240, by: ['alertname', 'dc'] },
    });
    expect((await call(b, 'GET', '/v1/branding')).body).toMatchObject({ name: 'Acme Operations' });
    const refused = await call(b, 'PUT', '/v1/policy', { grouping: { window_s: 60, by: [] } });
    expect(refused).toMatchObject({ status: 409, body: { error: 'keychain_managed' } });
    expect(String(refused.body['message'])).toContain('DC A');
    expect((await call(b, 'PUT', '/v1/branding', { name: 'Mine' })).status).toBe(409);
    // The home changes again: the member takes version 2, and says so in its ledger.
    expect(
      (await call(a, 'PUT', '/v1/policy', { grouping: { window_s: 300, by: ['alertname'] } }))
        .status,
    ).toBe(200);
    await syncNow(b);
    expect((await call(b, 'GET', '/v1/policy')).body['policy']).toMatchObject({
      grouping: { window_s: 300 },
    });
    expect(await ledgerText(b)).toMatch(/keychain\.part_synced .*"part":"policy".*"version":2/);
    expect(await ledgerText(b)).toMatch(/policy\.set .*/);
    // The home itself stays free to change what it carries.
    expect((await call(a, 'PUT', '/v1/branding', { name: 'Acme Ops' })).status).toBe(200);
  }, 30_000);

  it('carries connections, mail and the impact figures, their secrets sealed to the member alone', async () => {
    const figures = {
      currency: 'EUR',
      engineer_hour: 95,
      triage_min: 12,
      fix_min: 30,
      manual_resolve_min: 55,
      downtime_hour: 4000,
      callout: 150,
      annual_cost: 20000,
    };
    expect((await call(a, 'PUT', '/v1/impact', figures)).status).toBe(200);
    const mail = {
      transport: 'smtp',
      smtp: {
        host: 'mail.example.net',
        port: 587,
        security: 'starttls',
        username: 'svc',
        password: { value: MAIL_PASSWORD },
        from: 'Incidents <incidents@example.net>',
      },
      timeout_s: 20,
    };
    expect((await call(a, 'PUT', '/v1/settings/mail', mail)).status).toBe(200);
    // What travels between the two is sealed: the answer to a pull never holds the password.
    const pulled = await syncNow(b);
    expect(pulled.status).toBe(200);
    expect(JSON.stringify(pulled.body)).not.toContain(MAIL_PASSWORD);
    expect((await call(b, 'GET', '/v1/impact')).body['figures']).toEqual(figures);
    const bMail = await call(b, 'GET', '/v1/settings/mail');
    expect(bMail.body).toMatchObject({
      configured: true,
      settings: { transport: 'smtp', smtp: { host: 'mail.example.net', username: 'svc' } },
    });
    expect(JSON.stringify(bMail.body)).not.toContain(MAIL_PASSWORD);
    // The member keeps the password in a secret file of its own (0600), apart from any typed in there.
    const file = join(b.dir, 'data', 'secrets', 'keychain-mail-smtp-password');
    expect(readFileSync(file, 'utf8')).toBe(MAIL_PASSWORD);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await call(b, 'PUT', '/v1/impact', { ...figures, callout: 1 })).body).toMatchObject({
      error: 'keychain_managed',
    });
    expect((await call(b, 'PUT', '/v1/settings/mail', mail)).body).toMatchObject({
      error: 'keychain_managed',
    });
    // A new password on the home reaches the member at its next pull.
    const rotated = { ...mail, smtp: { ...mail.smtp, password: { value: `${MAIL_PASSWORD}-2` } } };
    expect((await call(a, 'PUT', '/v1/settings/mail', rotated)).status).toBe(200);
    await syncNow(b);
    expect(readFileSync(file, 'utf8')).toBe(`${MAIL_PASSWORD}-2`);
    expect(await ledgerText(b)).toMatch(/keychain\.part_synced .*"part":"mail".*"version":2/);

    // Connections: B keeps its own for a while (own), with a token typed in on B...
    await call(b, 'POST', '/v1/keychain/own', { part: 'connections', own: true });
    const mine = {
      kind: 'prometheus',
      settings: { url: 'http://127.0.0.1:9', bearer_token: { value: `${CONNECTION_TOKEN}-b` } },
    };
    expect((await call(b, 'PUT', '/v1/connectors/mine', mine)).status).toBe(200);
    const prom = {
      kind: 'prometheus',
      settings: { url: 'http://127.0.0.1:9', bearer_token: { value: CONNECTION_TOKEN } },
    };
    expect((await call(a, 'PUT', '/v1/connectors/prom', prom)).status).toBe(200);
    await syncNow(b);
    const names = async () =>
      ((await call(b, 'GET', '/v1/connectors')).body['connectors'] as Json[]).map((c) => c['name']);
    expect(await names()).toEqual(['mine']);
    // ...then takes the home's again: the home's connections, the token in a file of its own;
    // B's typed-in token is left where it was.
    await call(b, 'POST', '/v1/keychain/own', { part: 'connections', own: false });
    expect((await syncNow(b)).status).toBe(200);
    expect(await names()).toEqual(['prom']);
    const secrets = join(b.dir, 'data', 'secrets');
    expect(readFileSync(join(secrets, 'keychain-connector-prom-bearer_token'), 'utf8')).toBe(
      CONNECTION_TOKEN,
    );
    expect(readFileSync(join(secrets, 'connector-mine-bearer_token'), 'utf8')).toBe(
      `${CONNECTION_TOKEN}-b`,
    );
    expect(JSON.stringify((await call(b, 'GET', '/v1/connectors')).body)).not.toContain(
      CONNECTION_TOKEN,
    );
    expect((await call(b, 'PUT', '/v1/connectors/mine', mine)).body).toMatchObject({
      error: 'keychain_managed',
    });
    expect((await call(b, 'DELETE', '/v1/connectors/prom')).status).toBe(409);
    expect(await ledgerText(b)).toMatch(/keychain\.part_synced .*"part":"connections"/);
    // The home drops the connection: its token goes from the member's disk too.
    expect((await call(a, 'DELETE', '/v1/connectors/prom')).status).toBe(200);
    await syncNow(b);
    expect(await names()).toEqual([]);
    expect(existsSync(join(secrets, 'keychain-connector-prom-bearer_token'))).toBe(false);
    expect(existsSync(join(secrets, 'connector-mine-bearer_token'))).toBe(true);
  }, 30_000);

  it('carries sign-in (single sign-on with its client secret, who may sign in); each member keeps its own callback', async () => {
    const callback = (i: Install) => `${i.url}/v1/auth/sso/callback`;
    // Before the home sets sign-in up, B sets its own callback: a field that never travels.
    const bOwn = { issuer: '', client_id: '', redirect_uri: callback(b), enabled: false };
    expect((await call(b, 'PUT', '/v1/settings/sso', bOwn)).status).toBe(200);
    // A callback alone is no sign-in of B's own: the home's (none yet) is taken without a refusal.
    const signinEvents = async () =>
      ((await ledgerText(b)).match(/keychain\.part_(synced|rejected) .*"part":"signin"/g) ?? [])
        .length;
    const quiet = await signinEvents();
    // (One pull: each member has PULL_BURST of them before the home throttles it.)
    expect((await syncNow(b)).status).toBe(200);
    expect(await signinEvents()).toBe(quiet);
    const sso = {
      issuer: 'https://idp.example.net/realms/ops',
      client_id: 'svc-console',
      client_secret: { value: SSO_SECRET },
      redirect_uri: callback(a),
      groups_claim: 'roles',
      enabled: true,
    };
    expect((await call(a, 'PUT', '/v1/settings/sso', sso)).status).toBe(200);
    const access = { domains: ['example.net'], sso_groups: ['ops'], default_role: 'responder' };
    expect((await call(a, 'PUT', '/v1/settings/access', access)).status).toBe(200);
    const pulled = await syncNow(b);
    expect(pulled.status).toBe(200);
    expect(pulled.body['carried']).toContain('signin');
    expect(JSON.stringify(pulled.body)).not.toContain(SSO_SECRET);
    const bSso = await call(b, 'GET', '/v1/settings/sso');
    const secretFile = join(b.dir, 'data', 'secrets', 'keychain-sso-client_secret');
    expect(bSso.body).toMatchObject({
      issuer: sso.issuer,
      client_id: sso.client_id,
      groups_claim: 'roles',
      enabled: true,
      redirect_uri: callback(b),
      client_secret: { file: secretFile },
    });
    expect(readFileSync(secretFile, 'utf8')).toBe(SSO_SECRET);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect((await call(b, 'GET', '/v1/settings/access')).body).toMatchObject({
      domains: ['example.net'],
      sso_groups: ['ops'],
      default_role: 'responder',
    });
    // A carried field changed on B is refused; its own callback alone is not.
    const carriedNow = {
      issuer: sso.issuer,
      client_id: sso.client_id,
      groups_claim: 'roles',
      enabled: true,
    };
    expect(
      await call(b, 'PUT', '/v1/settings/sso', {
        ...carriedNow,
        client_id: 'other',
        redirect_uri: callback(b),
      }),
    ).toMatchObject({ status: 409, body: { error: 'keychain_managed' } });
    expect(await call(b, 'PUT', '/v1/settings/access', { domains: ['b.example'] })).toMatchObject({
      status: 409,
      body: { error: 'keychain_managed' },
    });
    const moved = `${b.url}/sso/callback`;
    expect(
      await call(b, 'PUT', '/v1/settings/sso', { ...carriedNow, redirect_uri: moved }),
    ).toMatchObject({ status: 200, body: { redirect_uri: moved, client_id: sso.client_id } });
    // A new secret on the home replaces B's file at the next pull; B's callback stays.
    const rotated = { ...sso, client_secret: { value: `${SSO_SECRET}-2` } };
    expect((await call(a, 'PUT', '/v1/settings/sso', rotated)).status).toBe(200);
    await syncNow(b);
    expect(readFileSync(secretFile, 'utf8')).toBe(`${SSO_SECRET}-2`);
    expect((await call(b, 'GET', '/v1/settings/sso')).body['redirect_uri']).toBe(moved);
    expect(await ledgerText(b)).toMatch(/keychain\.part_synced .*"part":"signin".*"version":2/);
  }, 30_000);

  it('carries people and teams by e-mail: roles follow the home, a person deleted there is disabled, the member keeps its own', async () => {
    // B's own admin, made while B kept its own people: joining never locks it out.
    await call(b, 'POST', '/v1/keychain/own', { part: 'people', own: true });
    const dana = { email: 'dana@b.example', name: 'Dana', role: 'admin' };
    expect(await call(b, 'POST', '/v1/users', dana)).toMatchObject({ status: 201 });
    await call(b, 'POST', '/v1/keychain/own', { part: 'people', own: false });
    const made = async (body: Json) => {
      const r = await call(a, 'POST', '/v1/users', body);
      expect(r.status).toBe(201);
      return r.body;
    };
    const alice = await made({ email: 'alice@example.net', name: 'Alice', role: 'responder' });
    const erin = await made({ email: 'erin@example.net', name: 'Erin', role: 'admin' });
    const team = await call(a, 'POST', '/v1/teams', {
      name: 'ops',
      leads: [erin['id']],
      members: [alice['id']],
    });
    expect(team.status).toBe(201);
    expect((await syncNow(b)).body['carried']).toContain('people');
    const bUsers = async () =>
      new Map(
        ((await call(b, 'GET', '/v1/users')).body['users'] as Json[]).map((u) => [
          String(u['email']),
          u,
        ]),
      );
    let onB = await bUsers();
    expect(onB.get('alice@example.net')).toMatchObject({ name: 'Alice', role: 'responder' });
    expect(onB.get('erin@example.net')).toMatchObject({ role: 'admin', disabled: false });
    expect(onB.get('dana@b.example')).toMatchObject({ role: 'admin', disabled: false });
    // Ids are each install's own; the team names B's.
    expect(onB.get('alice@example.net')?.['id']).not.toBe(alice['id']);
    const bTeam = ((await call(b, 'GET', '/v1/teams')).body['teams'] as Json[]).find(
      (t) => t['name'] === 'ops',
    );
    expect(bTeam).toMatchObject({
      leads: [onB.get('erin@example.net')?.['id']],
      members: [onB.get('alice@example.net')?.['id'], onB.get('erin@example.net')?.['id']].sort(),
    });
    // On B, people and teams are the home's to change.
    const aliceOnB = String(onB.get('alice@example.net')?.['id']);
    for (const [method, path, body] of [
      ['POST', '/v1/users', { email: 'mallory@b.example', role: 'owner' }],
      ['PUT', `/v1/users/${aliceOnB}`, { role: 'owner' }],
      ['DELETE', `/v1/users/${aliceOnB}`, undefined],
      ['POST', '/v1/teams', { name: 'mine' }],
    ] as const)
      expect(await call(b, method, path, body)).toMatchObject({
        status: 409,
        body: { error: 'keychain_managed' },
      });
    // The home promotes Alice and deletes Erin: B follows, and disables Erin (never deletes).
    expect(
      (await call(a, 'PUT', `/v1/users/${String(alice['id'])}`, { role: 'admin' })).status,
    ).toBe(200);
    expect((await call(a, 'DELETE', `/v1/users/${String(erin['id'])}`)).status).toBe(200);
    await syncNow(b);
    onB = await bUsers();
    expect(onB.get('alice@example.net')).toMatchObject({ role: 'admin', disabled: false });
    expect(onB.get('erin@example.net')).toMatchObject({ disabled: true });
    expect(onB.get('dana@b.example')).toMatchObject({ role: 'admin', disabled: false });
    expect(await ledgerText(b)).toMatch(/keychain\.part_synced .*"part":"people".*"version":2/);
  }, 30_000);

  it("lets the home skip a part and a member keep its own copy, then take the home's again", async () => {
    const synced = async () => ((await ledgerText(b)).match(/keychain\.part_synced/g) ?? []).length;
    // Pulling again changes nothing: no part is applied twice.
    await syncNow(b);
    const before = await synced();
    await syncNow(b);
    expect(await synced()).toBe(before);
    // own: B keeps its branding while the home changes its own.
    expect(
      (await call(b, 'POST', '/v1/keychain/own', { part: 'branding', own: true })).body['owned'],
    ).toEqual(['branding']);
    expect((await call(b, 'PUT', '/v1/branding', { name: 'B own' })).status).toBe(200);
    expect((await call(a, 'PUT', '/v1/branding', { name: 'Acme Ops' })).status).toBe(200);
    await syncNow(b);
    expect((await call(b, 'GET', '/v1/branding')).body).toMatchObject({ name: 'B own' });
    // released: the home's version is taken at the next pull.
    await call(b, 'POST', '/v1/keychain/own', { part: 'branding', own: false });
    await syncNow(b);
    expect((await call(b, 'GET', '/v1/branding')).body).toMatchObject({ name: 'Acme Ops' });
    // B's own copy is not lost: the sync names the event that holds it.
    const syncs = (await call(b, 'GET', '/v1/ledger?type=keychain.part_synced&order=desc&limit=20'))
      .body['events'] as { data: { part: string; replaced?: { seq: number; actor: string } } }[];
    const replaced = syncs.find((e) => e.data.part === 'branding')?.data.replaced;
    expect(replaced?.actor).not.toMatch(/^keychain:/);
    const holder = (
      await call(
        b,
        'GET',
        `/v1/ledger?order=asc&limit=1&after_seq=${String((replaced?.seq ?? 1) - 1)}`,
      )
    ).body['events'] as { type: string; data: { branding?: { name?: string } } }[];
    expect(holder[0]).toMatchObject({
      type: 'config.branding_set',
      data: { branding: { name: 'B own' } },
    });
    expect(
      (await call(a, 'POST', '/v1/keychain/own', { part: 'policy', own: true })).body['error'],
    ).toBe('not_member');
    expect(await call(b, 'POST', '/v1/keychain/own', { part: 'colours', own: true })).toMatchObject(
      { status: 400, body: { field: 'part' } },
    );
    // scope: the home stops carrying the policy; B may change it; carried again, B takes the home's.
    expect(
      (await call(a, 'POST', '/v1/keychain/scope', { skip: ['policy'] })).body['carried'],
    ).toEqual(['licence', 'connections', 'mail', 'signin', 'people', 'branding', 'numbers']);
    await syncNow(b);
    expect((await call(b, 'GET', '/v1/keychain')).body['carried']).toEqual([
      'licence',
      'connections',
      'mail',
      'signin',
      'people',
      'branding',
      'numbers',
    ]);
    expect(
      (await call(b, 'PUT', '/v1/policy', { grouping: { window_s: 30, by: [] } })).status,
    ).toBe(200);
    await call(a, 'POST', '/v1/keychain/scope', { skip: [] });
    await syncNow(b);
    expect((await call(b, 'GET', '/v1/policy')).body['policy']).toMatchObject({
      grouping: { window_s: 300 },
    });
    expect(await call(a, 'POST', '/v1/keychain/scope', { skip: ['nothing'] })).toMatchObject({
      status: 400,
      body: { field: 'skip' },
    });
  }, 30_000);

  it('refuses a used, a revoked and a guessed site key; five wrong secrets lock it', async () => {
    const h = await hello(a);
    const used = await send(
      a,
      '/v1/keychain/peer/enrol',
      enrolRequest(h, craftedSite(), splitKey(keys[0]?.key ?? '')),
    );
    expect(used).toMatchObject({ status: 409, body: { error: 'site_key_used' } });
    const revoked = await send(
      a,
      '/v1/keychain/peer/enrol',
      enrolRequest(h, craftedSite(), splitKey(keys[3]?.key ?? '')),
    );
    expect(revoked).toMatchObject({ status: 409, body: { error: 'site_key_revoked' } });
    const guessed = splitKey(keys[2]?.key ?? '');
    for (let i = 0; i < 5; i++) {
      const wrong = await send(
        a,
        '/v1/keychain/peer/enrol',
        enrolRequest(h, craftedSite(), { id: guessed.id, secret: 'A'.repeat(32) }),
      );
      expect(wrong).toMatchObject({ status: 401, body: { error: 'site_key_rejected' } });
    }
    const right = await send(a, '/v1/keychain/peer/enrol', enrolRequest(h, craftedSite(), guessed));
    expect(right).toMatchObject({
      status: 409,
      body: { error: 'site_key_revoked', why: 'locked' },
    });
    const view = await call(a, 'GET', '/v1/keychain');
    expect(view.body['site_keys']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: guessed.id, status: 'locked', failed_attempts: 5 }),
      ]),
    );
  }, 30_000);

  it('takes a site once, answers its retry the same, and signs and seals what it answers', async () => {
    const h = await hello(a);
    const site = craftedSite();
    const spare = splitKey(keys[1]?.key ?? '');
    const first = enrolRequest(h, site, spare);
    const res = await send(a, '/v1/keychain/peer/enrol', first);
    expect(res.status).toBe(200);
    const nonce = /nonce="([^"]+)"/.exec(first.headers['signature-input'] ?? '')?.[1] ?? '';
    const checked = verifyResponse({
      status: res.status,
      headers: res.headers,
      body: res.raw,
      now: Date.now(),
      expect: { from: h.home_fp, to: site.fp, requestNonce: nonce },
      key: importSigPub(h.home_sig_pub)!,
    });
    expect(checked.ok).toBe(true);
    const roster = JSON.parse(
      openSealed(
        site.kxKey,
        res.body['sealed'],
        aadFor(ROSTER_AAD, h.keychain_id, site.fp),
      ).toString(),
    ) as Json;
    expect((roster['members'] as Json[]).some((m) => m['fingerprint'] === site.fp)).toBe(true);
    // The same request again is a replay; a fresh request by the same site is answered the same.
    expect(await send(a, '/v1/keychain/peer/enrol', first)).toMatchObject({
      status: 401,
      body: { error: 'replay' },
    });
    const retry = await send(a, '/v1/keychain/peer/enrol', enrolRequest(h, site, spare));
    expect(retry.status).toBe(200);
    // A pull: each part's manifest in the clear, the documents (the mail password among
    // them) only in the box sealed to this member.
    const body = Buffer.from('{}');
    /** A pull signed by this crafted member, as its install would make it. */
    const pull = () =>
      send(a, '/v1/keychain/peer/pull', {
        body,
        headers: signRequest({
          method: 'POST',
          path: '/v1/keychain/peer/pull',
          query: '',
          body,
          keychainId: h.keychain_id,
          from: site.fp,
          to: h.home_fp,
          epoch: h.epoch,
          head: h.head,
          key: site.sigKey,
          keyid: site.fp,
          now: Date.now(),
        }),
      });
    const pulled = await pull();
    expect(pulled.status).toBe(200);
    expect(pulled.raw.toString()).not.toContain(MAIL_PASSWORD);
    const manifests = pulled.body['parts'] as Json[];
    expect(manifests.map((p) => p['part'])).toContain('mail');
    expect(manifests.every((p) => !('doc' in p))).toBe(true);
    const opened = JSON.parse(
      openSealed(
        site.kxKey,
        pulled.body['sealed_parts'],
        aadFor(PARTS_AAD, h.keychain_id, site.fp),
      ).toString(),
    ) as { docs: { mail: { smtp: { password: unknown } } } };
    expect(opened.docs.mail.smtp.password).toEqual({ value: `${MAIL_PASSWORD}-2` });
    // A member that keeps pulling faster than one every 5 s is refused (429, Retry-After).
    const statuses: number[] = [];
    let throttled: Awaited<ReturnType<typeof send>> | null = null;
    for (let i = 0; i < PULL_BURST + 1; i++) {
      const again = await pull();
      statuses.push(again.status);
      if (again.status === 429) throttled = again;
    }
    expect(statuses.slice(0, PULL_BURST - 1).every((x) => x === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(throttled?.body).toMatchObject({ error: 'throttled' });
    expect(Number(throttled?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('refuses an altered, a late, a misaddressed, an oversized and an unknown peer request', async () => {
    const h = await hello(a);
    const key = { id: 'AAAAAAAA', secret: 'A'.repeat(32) };
    const noncesBefore = nonceCount(a);
    const altered = enrolRequest(h, craftedSite(), key);
    const flipped = Buffer.from(altered.body);
    const inCiphertext = flipped.indexOf('"ct":"') + 10;
    flipped[inCiphertext] = flipped[inCiphertext] === 0x41 ? 0x42 : 0x41;
    expect(await send(a, '/v1/keychain/peer/enrol', { ...altered, body: flipped })).toMatchObject({
      status: 401,
      body: { error: 'digest_mismatch' },
    });
    const late = enrolRequest(h, craftedSite(), key, { createdAt: Date.now() - 301_000 });
    const lateRes = await send(a, '/v1/keychain/peer/enrol', late);
    expect(lateRes).toMatchObject({ status: 401, body: { error: 'clock_skew' } });
    expect(typeof lateRes.body['server_time']).toBe('string');
    const misaddressed = enrolRequest(h, craftedSite(), key, { to: 'B'.repeat(52) });
    expect(await send(a, '/v1/keychain/peer/enrol', misaddressed)).toMatchObject({
      status: 401,
      body: { error: 'wrong_recipient' },
    });
    // A pull by an install not on the roster.
    const stranger = craftedSite();
    const body = Buffer.from('{}');
    const pull = signRequest({
      method: 'POST',
      path: '/v1/keychain/peer/pull',
      query: '',
      body,
      keychainId: h.keychain_id,
      from: stranger.fp,
      to: h.home_fp,
      epoch: h.epoch,
      head: h.head,
      key: stranger.sigKey,
      keyid: stranger.fp,
      now: Date.now(),
    });
    expect(await send(a, '/v1/keychain/peer/pull', { body, headers: pull })).toMatchObject({
      status: 401,
      body: { error: 'unknown_peer' },
    });
    const big = Buffer.alloc(PEER_BODY_LIMIT + 1, 0x20);
    expect(await send(a, '/v1/keychain/peer/pull', { body: big, headers: pull })).toMatchObject({
      status: 413,
    });
    // Nothing refused was kept as a nonce: unsigned junk cannot fill the table.
    expect(nonceCount(a)).toBe(noncesBefore);
  }, 30_000);

  it('stops a site whose key pins another home, and records why', async () => {
    const other = craftedSite();
    const pinned = `skc1.${splitKey(keys[1]?.key ?? '').id}.${'A'.repeat(32)}.${other.fp}`;
    const c = await startInstall('dc-c', 'c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3', {
      SVC_KEYCHAIN_JOIN: a.url,
      SVC_KEYCHAIN_SITE_KEY: pinned,
    });
    await waitFor('C to give up', async () =>
      (await ledgerText(c)).includes('keychain.join_failed') ? true : null,
    );
    expect(await ledgerText(c)).toMatch(/keychain\.join_failed .*not the home this site key pins/);
    expect((await call(c, 'GET', '/v1/keychain')).body['role']).toBe('none');
    expect(c.output()).toMatch(/joining the home stopped/);
  }, 60_000);

  it('renames a member, lets one leave, and removes one, which then stops', async () => {
    const bFp = String((await call(b, 'GET', '/v1/keychain')).body['fingerprint']);
    expect(
      (
        await call(a, 'POST', '/v1/keychain/rename', {
          label: 'DC B (Frankfurt)',
          fingerprint: bFp,
        })
      ).status,
    ).toBe(200);
    await syncNow(b);
    expect((await call(b, 'GET', '/v1/keychain')).body['label']).toBe('DC B (Frankfurt)');
    // A member renames only itself (through the home: handover.int.test.ts).
    const homeFp = String((await call(a, 'GET', '/v1/keychain')).body['fingerprint']);
    expect(
      (await call(b, 'POST', '/v1/keychain/rename', { label: 'x', fingerprint: homeFp })).body[
        'error'
      ],
    ).toBe('not_home');

    // D joins with a new key, then leaves: the home is told and lists it no more.
    const made = await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['dc-d'] });
    const dKey = (made.body['keys'] as { key: string }[])[0]?.key ?? '';
    keys.push({ id: splitKey(dKey).id, label: 'dc-d', key: dKey });
    const d = await startInstall('dc-d', 'd4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4', {
      SVC_KEYCHAIN_JOIN: a.url,
      SVC_KEYCHAIN_SITE_KEY: dKey,
    });
    const dFp = await waitFor('D to enrol', async () => {
      const v = await call(d, 'GET', '/v1/keychain');
      return v.body['role'] === 'member' ? String(v.body['fingerprint']) : null;
    });
    const left = await call(d, 'POST', '/v1/keychain/leave');
    expect(left).toMatchObject({ status: 200, body: { role: 'none', members: [] } });
    const roster = (await call(a, 'GET', '/v1/keychain')).body['members'] as Json[];
    expect(roster.map((m) => m['fingerprint'])).not.toContain(dFp);
    expect(await ledgerText(d)).toMatch(/keychain\.left .*"home_informed":true/);
    expect(await ledgerText(a)).toMatch(/keychain\.member_removed .*"reason":"left"/);
    expect((await call(a, 'POST', '/v1/keychain/leave')).body['error']).toBe('home_cannot_leave');

    // B removed by the home: its next pull is refused with a signed 403, and it stops.
    // A pull first, so that D's leaving (a new part key too) is published before B goes.
    expect((await syncNow(b)).status).toBe(200);
    const policyAtRemoval = await lastPublished(a, 'policy');
    expect(
      (await call(a, 'POST', '/v1/keychain/members/remove', { fingerprint: bFp })).status,
    ).toBe(200);
    expect(
      await call(a, 'POST', '/v1/keychain/members/remove', { fingerprint: bFp }),
    ).toMatchObject({ status: 404 });
    const refused = await syncNow(b);
    expect(refused).toMatchObject({ status: 409, body: { error: 'pull_failed' } });
    expect(String(refused.body['message'])).toContain('removed this install');
    expect((await call(b, 'GET', '/v1/keychain')).body).toMatchObject({
      role: 'none',
      members: [],
    });
    expect(await ledgerText(b)).toMatch(/keychain\.left .*removed by the home/);
    // The policy it was given stays, now its own to change.
    expect(
      (await call(b, 'PUT', '/v1/policy', { grouping: { window_s: 60, by: [] } })).status,
    ).toBe(200);
    // Restarted with its old key still set, it is refused (not quietly taken back) and stops.
    await b.stop();
    b = await startInstall(
      'dc-b',
      'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2',
      { SVC_KEYCHAIN_JOIN: a.url, SVC_KEYCHAIN_SITE_KEY: keys[0]?.key ?? '' },
      b.dir,
    );
    await waitFor('B to be refused', async () =>
      (await ledgerText(b)).match(/keychain\.join_failed .*removed/) !== null ? true : null,
    );
    expect((await call(b, 'GET', '/v1/keychain')).body['role']).toBe('none');
    // A new site key brings it back, a member again.
    const again = await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['dc-b again'] });
    const bKey2 = (again.body['keys'] as { key: string }[])[0]?.key ?? '';
    keys.push({ id: splitKey(bKey2).id, label: 'dc-b again', key: bKey2 });
    await b.stop();
    b = await startInstall(
      'dc-b',
      'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2',
      { SVC_KEYCHAIN_JOIN: a.url, SVC_KEYCHAIN_SITE_KEY: bKey2 },
      b.dir,
    );
    await waitFor('B to be back', async () =>
      (await call(b, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null,
    );
    const back = ((await call(a, 'GET', '/v1/keychain')).body['members'] as Json[]).find(
      (m) => m['fingerprint'] === bFp,
    );
    expect(back).toMatchObject({ health: 'ok', via: `site_key:${splitKey(bKey2).id}` });
    // The part key B held went with its removal: the same policy is published under a new
    // digest, and B, back, applies it.
    expect((await syncNow(b)).status).toBe(200);
    const policyNow = await lastPublished(a, 'policy');
    expect(policyNow.sha256).not.toBe(policyAtRemoval.sha256);
    expect(policyNow.version).toBeGreaterThan(policyAtRemoval.version);
    const onA = (await call(a, 'GET', '/v1/policy')).body;
    expect((await call(b, 'GET', '/v1/policy')).body).toMatchObject({
      policy: onA['policy'],
      sha256: onA['sha256'],
    });

    // A site the home took and removed between two of B's pulls (B's roster never listed it,
    // B's log has both records), asking B which epoch it follows as a home would, is refused
    // as removed, whatever log it shows: it can settle no fork.
    const x = craftedSite();
    const xKey = splitKey(
      (
        (await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['x'] })).body['keys'] as {
          key: string;
        }[]
      )[0]?.key ?? '',
    );
    const h = await hello(a);
    expect((await send(a, '/v1/keychain/peer/enrol', enrolRequest(h, x, xKey))).status).toBe(200);
    expect(
      (await call(a, 'POST', '/v1/keychain/members/remove', { fingerprint: x.fp })).status,
    ).toBe(200);
    expect((await syncNow(b)).status).toBe(200);
    const bView = (await call(b, 'GET', '/v1/keychain')).body;
    const asked = Buffer.from(
      JSON.stringify({ epoch: 2, head: 'f'.repeat(64), records: [{ type: 'takeover' }] }),
    );
    const epochAsk = await send(b, '/v1/keychain/peer/epoch', {
      body: asked,
      headers: signRequest({
        method: 'POST',
        path: '/v1/keychain/peer/epoch',
        query: '',
        body: asked,
        keychainId: h.keychain_id,
        from: x.fp,
        to: bFp,
        epoch: 2,
        head: 'f'.repeat(64),
        key: x.sigKey,
        keyid: x.fp,
        now: Date.now(),
      }),
    });
    expect(epochAsk).toMatchObject({ status: 403, body: { error: 'member_removed' } });
    expect((await call(b, 'GET', '/v1/keychain')).body).toMatchObject({
      role: 'member',
      epoch: bView['epoch'],
      head: bView['head'],
    });
  }, 60_000);

  it('seals the parts into a file that sets up a new site once per version, never going back', async () => {
    const passphrase = 'a long sealed passphrase';
    const first = await call(a, 'POST', '/v1/keychain/seal', { passphrase });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      content_version: 1,
      parts: ['connections', 'mail', 'signin', 'people', 'policy', 'branding', 'numbers'],
    });
    const fileV1 = String(first.body['file']);
    expect(fileV1).not.toContain('Acme');
    const dir = mkdtempSync(join(tmpdir(), 'svc-kc-sealed-'));
    temps.push(dir);
    writeFileSync(join(dir, 'keychain.sealed'), fileV1);
    writeFileSync(join(dir, 'passphrase'), `${passphrase}\n`);
    const e = await startInstall('dc-e', 'e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5', {
      SVC_KEYCHAIN_FILE: join(dir, 'keychain.sealed'),
      SVC_KEYCHAIN_PASSPHRASE_FILE: join(dir, 'passphrase'),
    });
    await waitFor('E to apply the file', async () =>
      (await ledgerText(e)).includes('keychain.sealed_file_applied') ? true : null,
    );
    const aPolicy = (await call(a, 'GET', '/v1/policy')).body['policy'];
    expect((await call(e, 'GET', '/v1/policy')).body['policy']).toEqual(aPolicy);
    expect((await call(e, 'GET', '/v1/branding')).body).toMatchObject({ name: 'Acme Ops' });
    // The mail password travelled inside the file, and is E's own secret file now.
    expect(
      readFileSync(join(e.dir, 'data', 'secrets', 'keychain-mail-smtp-password'), 'utf8'),
    ).toBe(`${MAIL_PASSWORD}-2`);
    expect(fileV1).not.toContain(MAIL_PASSWORD);
    // The same file again is skipped; a newer one applies; the older one is then refused.
    expect(
      await call(e, 'POST', '/v1/keychain/unseal', { file: fileV1, passphrase }),
    ).toMatchObject({
      status: 200,
      body: { applied: [], skipped: 'this version was applied already' },
    });
    expect((await call(a, 'PUT', '/v1/branding', { name: 'Acme Ops 2' })).status).toBe(200);
    const fileV2 = String(
      (await call(a, 'POST', '/v1/keychain/seal', { passphrase })).body['file'],
    );
    expect(
      await call(e, 'POST', '/v1/keychain/unseal', { file: fileV2, passphrase }),
    ).toMatchObject({
      status: 200,
      body: {
        applied: ['connections', 'mail', 'signin', 'people', 'policy', 'branding', 'numbers'],
        content_version: 2,
      },
    });
    expect((await call(e, 'GET', '/v1/branding')).body).toMatchObject({ name: 'Acme Ops 2' });
    expect(
      await call(e, 'POST', '/v1/keychain/unseal', { file: fileV1, passphrase }),
    ).toMatchObject({
      status: 409,
      body: { error: 'sealed_rollback' },
    });
    const wrong = await call(e, 'POST', '/v1/keychain/unseal', {
      file: fileV2,
      passphrase: 'not the passphrase',
    });
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: 'sealed_unreadable', field: 'file' },
    });
    expect(await call(a, 'POST', '/v1/keychain/seal', { passphrase: 'short' })).toMatchObject({
      status: 400,
      body: { field: 'passphrase' },
    });
    for (const i of [a, e]) {
      const text = `${await ledgerText(i)}\n${i.output()}`;
      expect(text).not.toContain(passphrase);
    }
  }, 60_000);

  it('catches a member whose whole data folder was put back to an older copy (the witnesses)', async () => {
    const made = await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['dc-f'] });
    const fKey = (made.body['keys'] as { key: string }[])[0]?.key ?? '';
    keys.push({ id: splitKey(fKey).id, label: 'dc-f', key: fKey });
    const env = { SVC_KEYCHAIN_JOIN: a.url, SVC_KEYCHAIN_SITE_KEY: fKey };
    let f = await startInstall('dc-f', 'f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6', env);
    const fFp = await waitFor('F to enrol', async () => {
      const v = await call(f, 'GET', '/v1/keychain');
      return v.body['role'] === 'member' ? String(v.body['fingerprint']) : null;
    });
    expect((await call(f, 'POST', '/v1/keychain/pull')).status).toBe(200);
    // A backup of the whole folder (database, checkpoint file, keys) while F is stopped.
    await f.stop();
    const backup = mkdtempSync(join(tmpdir(), 'svc-kc-f-backup-'));
    temps.push(backup);
    cpSync(f.dir, backup, { recursive: true });
    f = await startInstall('dc-f', 'f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6', env, f.dir);
    for (let i = 0; i < 3; i++) {
      const posted = await call(f, 'POST', '/v1/events', {
        type: 'human.deploy',
        actor: 'ci',
        data: { service: 'pay', version: `1.0.${String(i)}` },
      });
      expect(posted.status).toBe(201);
    }
    expect((await call(f, 'POST', '/v1/keychain/pull')).status).toBe(200);
    const clean = await call(a, 'GET', '/v1/doctor?fresh=1');
    const witnessOk = (clean.body['checks'] as Json[]).find((c) => c['area'] === 'Keychain');
    expect(witnessOk).toMatchObject({ status: 'ok' });
    // Put the older copy back: F's own checks pass (its checkpoint file went back with it).
    await f.stop();
    rmSync(f.dir, { recursive: true, force: true });
    cpSync(backup, f.dir, { recursive: true });
    f = await startInstall('dc-f', 'f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6', env, f.dir);
    await call(f, 'POST', '/v1/keychain/pull');
    expect(await ledgerText(a)).toMatch(
      new RegExp(`keychain\\.witness_mismatch .*"fingerprint":"${fFp}".*"kind":"rolled_back"`),
    );
    const doctor = await call(a, 'GET', '/v1/doctor?fresh=1');
    const caught = (doctor.body['checks'] as Json[]).find((c) => c['area'] === 'Keychain');
    expect(caught).toMatchObject({ status: 'fail', check: 'Witnesses' });
    expect(String(caught?.['detail'])).toContain('rolled_back');
    await f.stop();
  }, 90_000);

  it('keeps every secret out of every ledger and log', async () => {
    for (const i of installs) {
      // A stopped install's log still counts; its ledger was read while it ran.
      const running = i.child.exitCode === null && i.child.signalCode === null;
      const text = `${running ? await ledgerText(i) : ''}\n${i.output()}`;
      for (const k of keys) {
        expect(text).not.toContain(splitKey(k.key).secret);
        expect(text).not.toContain(k.key);
      }
      expect(text).not.toContain(MAIL_PASSWORD);
      expect(text).not.toContain(CONNECTION_TOKEN);
      expect(text).not.toContain(SSO_SECRET);
    }
  });

  it('throttles hellos from one address (429 with Retry-After), not from another', async () => {
    const flooder = freshAddress();
    const answers: { status: number; headers: Record<string, string> }[] = [];
    for (let i = 0; i < 12; i++)
      answers.push(
        await send(a, '/v1/keychain/peer/hello', { body: Buffer.from('{}'), headers: {} }, flooder),
      );
    expect(answers.slice(0, 10).every((r) => r.status === 200)).toBe(true);
    expect(answers[10]?.status).toBe(429);
    expect(Number(answers[10]?.headers['retry-after'])).toBeGreaterThan(0);
    expect(
      (await send(a, '/v1/keychain/peer/hello', { body: Buffer.from('{}'), headers: {} })).status,
    ).toBe(200);
  });

  it('answers peer calls with random noise as refusals, never 500', async () => {
    for (const body of [
      Buffer.from('not json'),
      randomBytes(64),
      Buffer.from('{"sealed":{"alg":"x"}}'),
    ]) {
      for (const path of ['/v1/keychain/peer/pull', '/v1/keychain/peer/enrol']) {
        const res = await send(a, path, { body, headers: {} });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
    }
    // No body at all, with or without a content type.
    for (const path of [
      '/v1/keychain/peer/pull',
      '/v1/keychain/peer/leave',
      '/v1/keychain/peer/enrol',
    ]) {
      const res = await fetch(`${a.url}${path}`, { method: 'POST' });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
    }
    // A signed enrol whose sealed part opens to JSON null (the home's agreement key is public).
    const h = await hello(a);
    const site = craftedSite();
    const sealedNull = sealTo(
      importAgreementPublic(h.home_kx_pub),
      Buffer.from('null'),
      aadFor(ENROL_AAD, h.keychain_id, h.home_fp),
    );
    const req = enrolRequest(
      h,
      site,
      { id: 'AAAAAAAA', secret: 'A'.repeat(32) },
      {
        body: Buffer.from(JSON.stringify({ sig_pub: site.sigPub, sealed: sealedNull })),
      },
    );
    expect(await send(a, '/v1/keychain/peer/enrol', req)).toMatchObject({
      status: 400,
      body: { error: 'enrol_unreadable' },
    });
  });

  it('does not let made-up key ids fill the ledger', async () => {
    const count = async (type: string) =>
      ((await ledgerText(a)).match(new RegExp(`^${type} `, 'gm')) ?? []).length;
    const rejected = await count('keychain\\.site_key_rejected');
    const failed = await count('keychain\\.peer_auth_failed');
    const h = await hello(a);
    const from = freshAddress();
    for (let i = 0; i < 5; i++) {
      const id = randomBytes(5)
        .toString('hex')
        .toUpperCase()
        .replace(/[^A-Z2-7]/g, 'A')
        .slice(0, 8)
        .padEnd(8, 'A');
      const res = await send(
        a,
        '/v1/keychain/peer/enrol',
        enrolRequest(h, craftedSite(), { id, secret: 'A'.repeat(32) }),
        from,
      );
      expect(res).toMatchObject({ status: 401, body: { error: 'site_key_unknown' } });
    }
    expect(await count('keychain\\.site_key_rejected')).toBe(rejected);
    expect(await count('keychain\\.peer_auth_failed')).toBe(failed + 1);
  });
});
