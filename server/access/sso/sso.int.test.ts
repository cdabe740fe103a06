// Single sign-on against a real OpenID Connect provider (the oidc-provider package) on
// loopback: the code flow with PKCE driven through the provider's login and consent forms,
// the callback, the one-time redeem code, refusals, and the settings routes.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  signInThrough,
  startOidcProvider,
  type OidcProvider,
} from '../../../e2e/lab/oidc-provider.js';
import { signInBench, TEST_ADMIN_TOKEN, type SignInBench } from '../../testing/access/ldap.js';
import { createSsoService, createSsoStore, ssoRoutes, type SsoStore } from './index.js';

const CLIENT_ID = 'svc-console';
const CLIENT_SECRET = 'oidc-Client-Secret-Value-99';
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** Real time plus a skew the tests move: the service's TTLs without waiting for them. */
let skew = 0;
const clock = {
  now: () => Date.now() + skew,
  nowIso: () => new Date(Date.now() + skew).toISOString(),
};

let dir: string;
let bench: SignInBench;
let provider: OidcProvider;
let base: string;
let redirectUri: string;
const answers: string[] = [];

async function call(
  method: string,
  url: string,
  payload?: unknown,
  headers: Record<string, string> = admin,
) {
  const res = await bench.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload !== undefined && { payload: payload as object }),
  });
  answers.push(res.body);
  return res;
}

/** Open a callback URL as the browser would (no redirects followed), with its cookies. */
async function openCallback(url: string, accept = '*/*', cookie = '') {
  const started = performance.now();
  const res = await fetch(url, {
    redirect: 'manual',
    headers: { accept, ...(cookie !== '' && { cookie }) },
  });
  const text = await res.text();
  answers.push(text);
  return {
    status: res.status,
    location: res.headers.get('location'),
    setCookie: res.headers.getSetCookie(),
    text,
    ms: performance.now() - started,
  };
}

/** POST /v1/auth/sso/redeem as the console does, with the browser's cookies. */
const redeem = (code: string, cookie = '') =>
  call('POST', '/v1/auth/sso/redeem', { code }, cookie === '' ? {} : { cookie });

const settings = (over: Record<string, unknown> = {}) => ({
  issuer: provider.issuer,
  client_id: CLIENT_ID,
  client_secret: { value: CLIENT_SECRET },
  redirect_uri: redirectUri,
  scopes: ['openid', 'email', 'profile', 'groups'],
  groups_claim: 'groups',
  enabled: true,
  ...over,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sso-'));
  let store: SsoStore | null = null;
  bench = await signInBench(
    dir,
    async (v1, deps) => {
      if (store === null) throw new Error('no sso store');
      const sso = createSsoService({
        ...deps,
        store,
        clock,
        secretsDir: join(dir, 'secrets'),
        env: { SSO_SECRET: CLIENT_SECRET },
      });
      await v1.register(ssoRoutes, { sso, mode: () => 'configuring' });
    },
    {
      extraProjections: (db) => {
        store = createSsoStore(db);
        return [store.projection];
      },
    },
  );
  await bench.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${String((bench.app.server.address() as AddressInfo).port)}`;
  redirectUri = `${base}/v1/auth/sso/callback`;
  provider = await startOidcProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri,
    accounts: [
      { id: 'alice', email: 'alice@lab.test', name: 'Alice Lab', groups: ['oncall', 'staff'] },
      { id: 'bob', email: 'bob@lab.test', name: 'Bob Lab', groups: ['finance'] },
      // Another account of the same provider that claims Alice's address.
      { id: 'mallory', email: 'alice@lab.test', name: 'Mallory', groups: ['oncall'] },
      {
        id: 'erin',
        email: 'erin@lab.test',
        name: 'Erin',
        groups: ['oncall'],
        emailVerified: false,
      },
      {
        id: 'frank',
        email: 'frank@lab.test',
        name: 'Frank',
        groups: ['oncall'],
        emailVerified: null,
      },
    ],
  });
  await bench.people.setAccess(
    { domains: [], directory_groups: [], sso_groups: ['oncall'], default_role: 'responder' },
    { actor: { name: 'admin-token' }, role: 'owner', userId: null },
  );
});

afterAll(async () => {
  await provider.stop();
  await bench.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('single sign-on settings', () => {
  it('refuses to start while single sign-on is off: 409', async () => {
    const res = await call('GET', '/v1/auth/sso/start', undefined, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'sso_not_configured', why: 'sso_disabled' });
  });

  it('saves the settings: a typed secret to a 0600 file, the ledger holds the reference only', async () => {
    const res = await call('PUT', '/v1/settings/sso', settings());
    expect(res.statusCode, res.body).toBe(200);
    const file = join(dir, 'secrets', 'sso-client_secret');
    expect(res.json()).toMatchObject({
      issuer: provider.issuer,
      client_secret: { file },
      enabled: true,
      set_by: 'admin-token',
    });
    expect(readFileSync(file, 'utf8')).toBe(CLIENT_SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const set = bench.events().find((e) => e.type === 'config.sso_set');
    expect(set?.data).toMatchObject({
      settings: { client_secret: { file }, client_id: CLIENT_ID },
    });
    expect((await call('GET', '/v1/settings/sso')).json()).toMatchObject({
      client_secret: { file },
    });
    // Admins only.
    expect((await call('GET', '/v1/settings/sso', undefined, {})).statusCode).toBe(401);
  });

  it('refuses a client_secret reference to the service’s own files or SVC_* variables (item 8)', async () => {
    for (const client_secret of [
      { file: join(dir, 'admin-token') },
      { file: join(dir, 'install-key.pem') },
      { env: 'SVC_ADMIN_TOKEN' },
    ]) {
      const res = await call('PUT', '/v1/settings/sso', settings({ client_secret }));
      expect(res.statusCode, JSON.stringify(client_secret)).toBe(400);
      expect(res.json()).toMatchObject({ field: 'client_secret' });
    }
    // Nothing changed: the typed secret saved before is still the one in use.
    expect((await call('GET', '/v1/settings/sso')).json()).toMatchObject({
      client_secret: { file: join(dir, 'secrets', 'sso-client_secret') },
    });
  });

  it('refuses an http:// issuer that is not on loopback', async () => {
    const res = await call(
      'PUT',
      '/v1/settings/sso',
      settings({ issuer: 'http://idp.example.com' }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ field: 'issuer' });
  });

  it('discovers what the provider offers', async () => {
    const res = await call('POST', '/v1/settings/sso/discover', { issuer: provider.issuer });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      ok: true,
      issuer: provider.issuer,
      pkce_s256: true,
      groups_claim_offered: true,
      token_endpoint: `${provider.issuer}/token`,
    });
    const none = await call('POST', '/v1/settings/sso/discover', { issuer: 'http://127.0.0.1:9' });
    expect(none.json()).toMatchObject({ ok: false });
    expect(none.json<{ detail: string }>().detail).toMatch(
      /cannot read the metadata of http:\/\/127\.0\.0\.1:9/,
    );
  });

  it('tests the client against the provider: accepted with the right secret, refused with a wrong one', async () => {
    const good = await call('POST', '/v1/settings/sso/test', {});
    expect(good.statusCode, good.body).toBe(200);
    expect(good.json()).toMatchObject({
      ok: true,
      checks: [
        { name: 'discovery', ok: true },
        { name: 'client', ok: true },
      ],
    });
    const bad = await call(
      'POST',
      '/v1/settings/sso/test',
      settings({ client_secret: { value: 'wrong-secret' } }),
    );
    expect(bad.json()).toMatchObject({
      ok: false,
      checks: [{ ok: true }, { name: 'client', ok: false }],
    });
    expect(bad.json<{ detail: string }>().detail).toMatch(/refused: invalid_client/);
    // A test body's typed secret is never written.
    expect(readFileSync(join(dir, 'secrets', 'sso-client_secret'), 'utf8')).toBe(CLIENT_SECRET);
    const env = await call(
      'POST',
      '/v1/settings/sso/test',
      settings({ client_secret: { env: 'SSO_SECRET' } }),
    );
    expect(env.json()).toMatchObject({ ok: true });
  });

  it('syncs honestly: metadata again, groups not re-read', async () => {
    const res = await call('POST', '/v1/settings/sso/sync');
    expect(res.json()).toMatchObject({ metadata_refreshed: true, groups_reread: false });
    expect(res.json<{ detail: string }>().detail).toMatch(/next sign-in/);
  });
});

describe('the code flow with PKCE', () => {
  const callbackPrefix = () => `${base}/v1/auth/sso/callback`;

  it('signs a person in: start → provider → callback → redeem → a session', async () => {
    const { callback, steps, cookie } = await signInThrough(
      `${base}/v1/auth/sso/start`,
      callbackPrefix(),
      'alice',
    );
    const auth = new URL(steps[1]?.url ?? '');
    expect(auth.origin).toBe(provider.issuer);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(auth.searchParams.get('state')).toBeTruthy();
    expect(auth.searchParams.get('nonce')).toBeTruthy();
    expect(auth.searchParams.get('scope')).toBe('openid email profile groups');

    const back = await openCallback(callback, '*/*', cookie);
    expect(back.status, back.text).toBe(302);
    const location = back.location ?? '';
    expect(location).toMatch(/^\/sign-in\?sso=[\w-]{43}$/);
    expect(location).not.toMatch(/svs_/);
    const code = new URL(location, base).searchParams.get('sso') ?? '';

    const redeemed = await redeem(code, cookie);
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    const body = redeemed.json<{
      token: string;
      session: { method: string; name: string; role: string };
    }>();
    expect(body.token).toMatch(/^svs_/);
    expect(body.session).toMatchObject({ method: 'sso', name: 'Alice Lab', role: 'responder' });
    expect(bench.sessions.lookup(body.token)).toMatchObject({ kind: 'session', name: 'Alice Lab' });
    expect(bench.people.byEmail('alice@lab.test')).toMatchObject({
      name: 'Alice Lab',
      role: 'responder',
    });

    // The code is good once.
    const again = await redeem(code, cookie);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ error: 'sso_bad_code' });
    // And the callback's state is good once.
    const replay = await openCallback(callback, '*/*', cookie);
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.text)).toMatchObject({ error: 'sso_bad_state' });

    const signedIn = bench.events().filter((e) => e.type === 'auth.signed_in');
    expect(signedIn.at(-1)?.data).toMatchObject({ method: 'sso' });
  });

  it('refuses a callback whose state it never gave out, after the wait', async () => {
    const { callback, cookie } = await signInThrough(
      `${base}/v1/auth/sso/start`,
      callbackPrefix(),
      'alice',
    );
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value');
    const res = await openCallback(forged.toString(), '*/*', cookie);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'sso_bad_state' });
    expect(res.ms).toBeGreaterThanOrEqual(495);
    expect(
      bench
        .events()
        .filter((e) => e.type === 'auth.sign_in_failed')
        .at(-1)?.data,
    ).toMatchObject({
      method: 'sso',
      why: 'bad_state',
    });
  });

  it('refuses a person none of whose groups may sign in: 403 sign_in_not_allowed; a browser goes to the sign-in page', async () => {
    const first = await signInThrough(`${base}/v1/auth/sso/start`, callbackPrefix(), 'bob');
    const res = await openCallback(first.callback, '*/*', first.cookie);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'sign_in_not_allowed' });
    expect(bench.people.byEmail('bob@lab.test')).toBeNull();
    const second = await signInThrough(`${base}/v1/auth/sso/start`, callbackPrefix(), 'bob');
    const browser = await openCallback(
      second.callback,
      'text/html,application/xhtml+xml',
      second.cookie,
    );
    expect(browser.status).toBe(302);
    expect(browser.location).toMatch(/^\/sign-in\?sso_error=sign_in_not_allowed&message=/);
    // The groups it saw are searchable, refused ones too.
    const groups = await call('GET', '/v1/settings/sso/groups?q=FIN');
    expect(groups.json()).toMatchObject({
      source: 'sign_ins',
      groups: [{ value: 'finance', sign_ins: 2 }],
    });
    const all = await call('GET', '/v1/settings/sso/groups');
    expect(all.json<{ groups: { value: string }[] }>().groups.map((g) => g.value)).toEqual([
      'finance',
      'oncall',
      'staff',
    ]);
  });

  it("shows the provider's own error when the person says no", async () => {
    const { callback, cookie } = await signInThrough(
      `${base}/v1/auth/sso/start`,
      callbackPrefix(),
      'alice',
      { consent: false },
    );
    const res = await openCallback(callback, '*/*', cookie);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toMatchObject({
      error: 'sso_provider_refused',
      message:
        'the identity provider did not sign you in: access_denied: End-User aborted interaction',
    });
  });

  it('answers clearly when the provider is unreachable', async () => {
    const res = await call(
      'PUT',
      '/v1/settings/sso',
      settings({ issuer: 'http://127.0.0.1:9', client_secret: undefined }),
    );
    expect(res.statusCode).toBe(200);
    const start = await call('GET', '/v1/auth/sso/start', undefined, {});
    expect(start.statusCode).toBe(503);
    expect(start.json()).toMatchObject({ error: 'sso_provider_unreachable' });
    expect(start.json<{ message: string }>().message).toMatch(
      /^cannot read the metadata of http:\/\/127\.0\.0\.1:9/,
    );
    // The secret file stays: the reference did not change.
    expect(existsSync(join(dir, 'secrets', 'sso-client_secret'))).toBe(true);
    await call('PUT', '/v1/settings/sso', settings({ client_secret: undefined }));
  });

  it('lets a redeem code go after 60 s and a started sign-in after 10 minutes', async () => {
    const late = await signInThrough(`${base}/v1/auth/sso/start`, callbackPrefix(), 'alice');
    const back = await openCallback(late.callback, '*/*', late.cookie);
    expect(back.status).toBe(302);
    const code = new URL(back.location ?? '', base).searchParams.get('sso') ?? '';
    skew += 61_000;
    try {
      const res = await redeem(code, late.cookie);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'sso_bad_code' });
    } finally {
      skew = 0;
    }
    const slow = await signInThrough(`${base}/v1/auth/sso/start`, callbackPrefix(), 'alice');
    skew += 10 * 60 * 1000 + 1000;
    try {
      const res = await openCallback(slow.callback, '*/*', slow.cookie);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toMatchObject({ error: 'sso_bad_state' });
    } finally {
      skew = 0;
    }
  });

  it('reads the groups from userinfo when the ID token does not carry them', async () => {
    const conform = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri,
      groupsIn: 'userinfo',
      accounts: [{ id: 'carol', email: 'carol@lab.test', name: 'Carol Lab', groups: ['oncall'] }],
    });
    try {
      expect(
        (await call('PUT', '/v1/settings/sso', settings({ issuer: conform.issuer }))).statusCode,
      ).toBe(200);
      const { callback, cookie } = await signInThrough(
        `${base}/v1/auth/sso/start`,
        callbackPrefix(),
        'carol',
      );
      const back = await openCallback(callback, '*/*', cookie);
      expect(back.status, back.text).toBe(302);
      const code = new URL(back.location ?? '', base).searchParams.get('sso') ?? '';
      const res = await redeem(code, cookie);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ session: { method: 'sso', name: 'Carol Lab' } });
    } finally {
      await conform.stop();
      await call('PUT', '/v1/settings/sso', settings({ client_secret: undefined }));
    }
  });

  /** Through the provider and the callback: the callback's answer and the browser's cookie. */
  async function through(account: string) {
    const { callback, cookie } = await signInThrough(
      `${base}/v1/auth/sso/start`,
      callbackPrefix(),
      account,
    );
    return { back: await openCallback(callback, '*/*', cookie), callback, cookie };
  }
  const codeOf = (back: { location: string | null }) =>
    new URL(back.location ?? '', base).searchParams.get('sso') ?? '';

  it('binds the sign-in to the browser that started it: a cookie checked at the callback and the redeem', async () => {
    const start = await call('GET', '/v1/auth/sso/start', undefined, {});
    const set = String(start.headers['set-cookie'] ?? '');
    expect(set).toMatch(
      /^svc_sso=[\w-]{43}; Path=\/v1\/auth\/sso; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );

    // A callback opened in another browser (no cookie, or another one) is refused.
    const lured = await signInThrough(`${base}/v1/auth/sso/start`, callbackPrefix(), 'alice');
    const elsewhere = await openCallback(lured.callback);
    expect(elsewhere.status).toBe(401);
    expect(JSON.parse(elsewhere.text)).toMatchObject({ error: 'sso_bad_state' });
    const other = await signInThrough(`${base}/v1/auth/sso/start`, callbackPrefix(), 'alice');
    const swapped = await openCallback(other.callback, '*/*', lured.cookie);
    expect(swapped.status).toBe(401);

    // The redeem code works only with the same cookie, and the cookie is then cleared.
    const { back, cookie } = await through('alice');
    expect(back.status, back.text).toBe(302);
    const code = codeOf(back);
    expect((await redeem(code)).statusCode).toBe(401);
    const { back: again, cookie: mine } = await through('alice');
    const stolen = await redeem(codeOf(again), cookie);
    expect(stolen.statusCode).toBe(401);
    expect(stolen.json()).toMatchObject({ error: 'sso_bad_code' });
    const { back: third, cookie: own } = await through('alice');
    const ok = await redeem(codeOf(third), own);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(String(ok.headers['set-cookie'])).toMatch(/^svc_sso=; Path=\/v1\/auth\/sso; Max-Age=0/);
    expect(mine).not.toBe(own);
  });

  it('binds a person to (issuer, subject) at first sign-in: another account claiming the address is refused', async () => {
    const { back } = await through('alice');
    expect(back.status, back.text).toBe(302);
    const alice = bench.people.byEmail('alice@lab.test');
    const boundTo = (subject: string) =>
      bench
        .events()
        .filter((e) => e.type === 'auth.identity_bound' && e.data['subject'] === subject);
    // Bound at her first sign-in (the first flow above), and only then.
    expect(boundTo('alice').map((e) => e.data)).toEqual([
      { user_id: alice?.id, provider: `oidc:${provider.issuer}`, subject: 'alice' },
    ]);

    const { back: impostor } = await through('mallory');
    expect(impostor.status).toBe(403);
    expect(JSON.parse(impostor.text)).toMatchObject({ error: 'sso_identity_mismatch' });
    expect(
      bench
        .events()
        .filter((e) => e.type === 'auth.sign_in_failed')
        .at(-1)?.data,
    ).toMatchObject({ method: 'sso', why: 'sso_identity_mismatch' });
    expect(boundTo('mallory')).toEqual([]);
  });

  it('requires email_verified: false or missing is refused', async () => {
    for (const account of ['erin', 'frank']) {
      const { back } = await through(account);
      expect(back.status, account).toBe(403);
      expect(JSON.parse(back.text)).toMatchObject({ error: 'sso_email_unverified' });
      expect(bench.people.byEmail(`${account}@lab.test`)).toBeNull();
    }
  });

  it('lets only the owner change the provider settings; an admin may change the rest', async () => {
    const ada = await bench.people.create(
      { email: 'ada@lab.test', name: 'Ada', role: 'admin' },
      { actor: { name: 'admin-token' }, role: 'owner', userId: null },
    );
    const { token } = await bench.sessions.signIn(bench.people.identity(ada), 'password');
    const asAda = { authorization: `Bearer ${token}` };
    for (const change of [
      { issuer: 'https://idp.example.test' },
      { client_id: 'another-client' },
      { client_secret: { value: 'another-secret-value' } },
      { redirect_uri: 'https://svc.example.test/v1/auth/sso/callback' },
    ]) {
      const res = await call(
        'PUT',
        '/v1/settings/sso',
        settings({ client_secret: undefined, ...change }),
        asAda,
      );
      expect(res.statusCode, JSON.stringify(change)).toBe(403);
      expect(res.json()).toMatchObject({ error: 'role_required', role: 'owner' });
    }
    expect((await call('GET', '/v1/settings/sso')).json()).toMatchObject({
      issuer: provider.issuer,
      client_id: CLIENT_ID,
    });
    const groups = await call(
      'PUT',
      '/v1/settings/sso',
      settings({ client_secret: undefined, groups_claim: 'roles' }),
      asAda,
    );
    expect(groups.statusCode, groups.body).toBe(200);
    const back = await call('PUT', '/v1/settings/sso', settings({ client_secret: undefined }));
    expect(back.statusCode).toBe(200);
  });

  it('never shows the client secret in an answer, a log line or a ledger event', () => {
    const everything = [...answers, bench.logs(), JSON.stringify(bench.events())].join('\n');
    expect(everything).not.toContain(CLIENT_SECRET);
  });
});
