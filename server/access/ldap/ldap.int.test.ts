// Directory sign-in against Debian's slapd on loopback: the ldap connector kind itself
// (health, authenticate, search_groups, LDAP injection, an unreachable server) and
// POST /v1/auth/ldap with the real people, sessions, throttle and ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlapd, type Slapd } from '../../../e2e/lab/slapd.js';
import { ldapKind, type ConnectorClient } from '../../connectors/index.js';
import { Secret } from '../../shared/secret.js';
import { createLdapSignIn, ldapRoutes } from './index.js';
import { signInBench, type SignInBench } from '../../testing/access/ldap.js';

const SERVICE_PASSWORD = 'svc-Directory-Secret-71';
const ALICE_PASSWORD = 'alice-Correct-Horse-42';
const BOB_PASSWORD = 'bob-Battery-Staple-43';
const CAROL_PASSWORD = 'carol-Stapler-44';
const MALLORY_PASSWORD = 'mallory-Impostor-45';

let dir: string;
let slapd: Slapd;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ldap-'));
  slapd = await startSlapd({
    servicePassword: SERVICE_PASSWORD,
    people: [
      { uid: 'alice', password: ALICE_PASSWORD, name: 'Alice Lab', mail: 'Alice@Lab.Test' },
      { uid: 'bob', password: BOB_PASSWORD, name: 'Bob Lab', mail: 'bob@lab.test' },
      { uid: 'carol', password: CAROL_PASSWORD, name: 'Carol Lab', mail: 'carol@lab.test' },
      // Another entry that carries Alice's address.
      { uid: 'mallory', password: MALLORY_PASSWORD, name: 'Mallory', mail: 'alice@lab.test' },
    ],
    groups: [
      { cn: 'responders', members: ['alice', 'carol', 'mallory'] },
      { cn: 'finance', members: ['bob'] },
      { cn: 'resp-leads', members: ['carol'] },
    ],
  });
});

afterAll(async () => {
  await slapd.stop();
  rmSync(dir, { recursive: true, force: true });
});

const settings = (over: Record<string, unknown> = {}) => ({
  url: slapd.url,
  bind_dn: slapd.serviceDn,
  bind_password: new Secret(SERVICE_PASSWORD),
  user_base: slapd.peopleBase,
  group_base: slapd.groupsBase,
  ...over,
});
const signal = () => AbortSignal.timeout(10_000);
const secrets = [SERVICE_PASSWORD, ALICE_PASSWORD, BOB_PASSWORD, CAROL_PASSWORD, MALLORY_PASSWORD];

describe('the ldap kind against slapd', () => {
  let client: ConnectorClient;
  beforeAll(() => {
    client = ldapKind.create(settings());
  });

  it('checks health with a service bind and a base search', async () => {
    const h = await client.health(signal());
    expect(h).toMatchObject({ ok: true });
    expect(h.detail).toMatch(
      /^bound as cn=svc,ou=services,dc=lab,dc=test, ou=people,dc=lab,dc=test readable, in \d+ ms$/,
    );
  });

  it('authenticates a person and reads their groups', async () => {
    expect(
      await client.call('authenticate', { username: 'alice', password: ALICE_PASSWORD }, signal()),
    ).toEqual({
      ok: true,
      dn: 'uid=alice,ou=people,dc=lab,dc=test',
      email: 'alice@lab.test',
      name: 'Alice Lab',
      groups: ['cn=responders,ou=groups,dc=lab,dc=test'],
      group_names: ['responders'],
    });
    // By e-mail too (the default filter), case as typed.
    const byMail = (await client.call(
      'authenticate',
      { username: 'carol@lab.test', password: CAROL_PASSWORD },
      signal(),
    )) as { groups: string[] };
    expect([...byMail.groups].sort()).toEqual([
      'cn=resp-leads,ou=groups,dc=lab,dc=test',
      'cn=responders,ou=groups,dc=lab,dc=test',
    ]);
  });

  it('refuses a wrong password, an unknown person and an empty password (no anonymous bind)', async () => {
    const auth = (username: string, password: string) =>
      client.call('authenticate', { username, password }, signal());
    expect(await auth('alice', 'wrong')).toEqual({ ok: false, why: 'wrong_password' });
    expect(await auth('alice', BOB_PASSWORD)).toEqual({ ok: false, why: 'wrong_password' });
    expect(await auth('nobody', 'x')).toEqual({ ok: false, why: 'unknown_user' });
    expect(await auth('alice', '')).toEqual({ ok: false, why: 'empty_password' });
    expect(await auth('', ALICE_PASSWORD)).toEqual({ ok: false, why: 'unknown_user' });
  });

  it('escapes the user name, so LDAP injection finds nobody', async () => {
    const auth = (username: string, password: string) =>
      client.call('authenticate', { username, password }, signal());
    for (const attempt of [
      '*)(uid=*',
      '*',
      'alice)(|(uid=*',
      'a*',
      '*)(|(objectClass=*)',
      'alice\\',
      'alice)(uid=bob',
    ]) {
      expect(await auth(attempt, ALICE_PASSWORD), attempt).toEqual({
        ok: false,
        why: 'unknown_user',
      });
    }
    // The search slapd ran is the escaped one.
    expect(slapd.output()).toContain(
      'filter="(|(uid=\\2A\\29\\28uid=\\2A)(mail=\\2A\\29\\28uid=\\2A))"',
    );
  });

  it('searches groups by part of their name, escaped', async () => {
    expect(await client.call('search_groups', { q: 'resp' }, signal())).toEqual({
      groups: [
        { dn: 'cn=resp-leads,ou=groups,dc=lab,dc=test', cn: 'resp-leads' },
        { dn: 'cn=responders,ou=groups,dc=lab,dc=test', cn: 'responders' },
      ],
    });
    expect(await client.call('search_groups', { q: '*' }, signal())).toEqual({ groups: [] });
    const all = (await client.call('search_groups', {}, signal())) as { groups: unknown[] };
    expect(all.groups).toHaveLength(3);
  });

  it('says clearly when the service account is refused, without its password', async () => {
    const bad = ldapKind.create(settings({ bind_password: new Secret('not-the-password') }));
    await expect(bad.health(signal())).rejects.toThrow(
      /refused the service account cn=svc,ou=services,dc=lab,dc=test/,
    );
    await expect(
      bad.call('authenticate', { username: 'alice', password: ALICE_PASSWORD }, signal()),
    ).rejects.toThrow(/refused the service account/);
  });

  it('checks its settings when built', () => {
    expect(() => ldapKind.create(settings({ url: 'http://h' }))).toThrow(/ldap:\/\/ or ldaps:\/\//);
    expect(() => ldapKind.create(settings({ url: 'ldap://h/dc=x' }))).toThrow(/host\[:port\] only/);
    expect(() => ldapKind.create(settings({ user_filter: '(uid=x)' }))).toThrow(/\{username\}/);
    expect(() => ldapKind.create(settings({ user_filter: '(uid={username}' }))).toThrow(
      /not a valid LDAP filter/,
    );
    expect(() => ldapKind.create(settings({ bind_password: undefined }))).toThrow(
      /bind_password is required/,
    );
    expect(() => ldapKind.create(settings({ url: 'ldaps://h', starttls: true }))).toThrow(
      /starttls/,
    );
  });
});

/** A TCP server that accepts and never answers: a directory that hangs. */
async function blackhole(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `ldap://127.0.0.1:${String(port)}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('POST /v1/auth/ldap', () => {
  const bodies: string[] = [];
  let bench: SignInBench;

  async function serve(delayMs?: number): Promise<SignInBench> {
    const b = await signInBench(
      dir,
      async (v1, deps) => {
        const ldap = createLdapSignIn({ ...deps, connectors: deps.connectors });
        await v1.register(ldapRoutes, { ldap });
      },
      delayMs === undefined ? {} : { delayMs },
    );
    await b.people.setAccess(
      { domains: [], directory_groups: ['responders'], sso_groups: [], default_role: 'responder' },
      { actor: { name: 'admin-token' }, role: 'owner', userId: null },
    );
    return b;
  }
  const connect = (b: SignInBench, name: string, over: Record<string, unknown> = {}) => {
    const { timeout_s: timeoutS, ...given } = over;
    return b.connectors.put(
      name,
      {
        kind: 'ldap',
        settings: {
          url: slapd.url,
          bind_dn: slapd.serviceDn,
          bind_password: { value: SERVICE_PASSWORD },
          user_base: slapd.peopleBase,
          group_base: slapd.groupsBase,
          ...given,
        },
        ...(timeoutS === undefined ? {} : { timeout_s: timeoutS }),
      },
      { name: 'admin-token' },
    );
  };
  const signIn = async (b: SignInBench, username: string, password: string) => {
    const started = performance.now();
    const res = await b.app.inject({
      method: 'POST',
      url: '/v1/auth/ldap',
      payload: { username, password },
    });
    bodies.push(res.body);
    return { res, ms: performance.now() - started };
  };

  beforeAll(async () => {
    bench = await serve();
    await connect(bench, 'directory');
  });
  afterAll(async () => {
    await bench.close();
  });

  it('signs a person in by group: a session with method ldap, the person admitted', async () => {
    const { res } = await signIn(bench, 'alice', ALICE_PASSWORD);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<{
      token: string;
      session: { method: string; name: string; role: string; user_id: string };
    }>();
    expect(body.token).toMatch(/^svs_/);
    expect(body.session).toMatchObject({ method: 'ldap', name: 'Alice Lab', role: 'responder' });
    expect(bench.people.byEmail('alice@lab.test')).toMatchObject({
      id: body.session.user_id,
      name: 'Alice Lab',
    });
    expect(bench.sessions.lookup(body.token)).toMatchObject({ kind: 'session', name: 'Alice Lab' });
    const types = bench.events().map((e) => e.type);
    expect(types).toContain('access.user_created');
    expect(bench.events().find((e) => e.type === 'auth.signed_in')?.data).toMatchObject({
      method: 'ldap',
    });
  });

  it('binds a person to their directory DN at first sign-in: another entry with the address is refused', async () => {
    const alice = bench.people.byEmail('alice@lab.test');
    expect(
      bench
        .events()
        .filter((e) => e.type === 'auth.identity_bound')
        .map((e) => e.data),
    ).toEqual([
      { user_id: alice?.id, provider: 'ldap', subject: 'uid=alice,ou=people,dc=lab,dc=test' },
    ]);
    const { res } = await signIn(bench, 'mallory', MALLORY_PASSWORD);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'ldap_identity_mismatch' });
    expect(bench.events().at(-1)).toMatchObject({
      type: 'auth.sign_in_failed',
      data: { method: 'ldap', account: 'mallory', why: 'ldap_identity_mismatch' },
    });
    // Alice herself still signs in, as herself.
    const again = await signIn(bench, 'alice', ALICE_PASSWORD);
    expect(again.res.statusCode).toBe(200);
    expect(again.res.json()).toMatchObject({ session: { user_id: alice?.id } });
  });

  it('answers a wrong password 401 after 0.5 s, without holding up anyone else', async () => {
    const [wrong, right] = await Promise.all([
      signIn(bench, 'carol', 'not-carols-password'),
      (async () => {
        await new Promise((r) => setTimeout(r, 50));
        return signIn(bench, 'alice', ALICE_PASSWORD);
      })(),
    ]);
    expect(wrong.res.statusCode).toBe(401);
    expect(wrong.res.json()).toEqual({
      error: 'bad_credentials',
      message: 'the user name or password is wrong',
    });
    expect(wrong.ms).toBeGreaterThanOrEqual(495);
    expect(right.res.statusCode).toBe(200);
    expect(right.ms).toBeLessThan(400);
    const failed = bench.events().filter((e) => e.type === 'auth.sign_in_failed');
    expect(failed.at(-1)?.data).toEqual({
      method: 'ldap',
      account: 'carol',
      address: '127.0.0.1',
      why: 'wrong_password',
    });
  });

  it('answers an unknown person and an injection attempt the same way: 401 after the wait', async () => {
    for (const username of ['nobody', '*)(uid=*', '*']) {
      const { res, ms } = await signIn(bench, username, ALICE_PASSWORD);
      expect(res.statusCode, username).toBe(401);
      expect(res.json()).toMatchObject({ error: 'bad_credentials' });
      expect(ms).toBeGreaterThanOrEqual(495);
    }
    const failed = bench
      .events()
      .filter((e) => e.type === 'auth.sign_in_failed')
      .slice(-3);
    expect(failed.map((e) => e.data['why'])).toEqual([
      'unknown_user',
      'unknown_user',
      'unknown_user',
    ]);
    expect(failed.map((e) => e.data['account'])).toEqual(['nobody', '*)(uid=*', '*']);
  });

  it('refuses a person none of whose groups may sign in: 403 sign_in_not_allowed', async () => {
    const { res, ms } = await signIn(bench, 'bob', BOB_PASSWORD);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'sign_in_not_allowed' });
    expect(ms).toBeLessThan(400);
    expect(bench.people.byEmail('bob@lab.test')).toBeNull();
    expect(
      bench
        .events()
        .filter((e) => e.type === 'auth.sign_in_failed')
        .at(-1)?.data,
    ).toMatchObject({
      account: 'bob',
      why: 'sign_in_not_allowed',
    });
  });

  it('refuses a missing or empty password by schema (400)', async () => {
    const res = await bench.app.inject({
      method: 'POST',
      url: '/v1/auth/ldap',
      payload: { username: 'alice', password: '' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ field: 'password' });
    const none = await bench.app.inject({ method: 'POST', url: '/v1/auth/ldap' });
    expect(none.statusCode).toBe(400);
  });

  it('throttles repeated failures per account: 429 with retry_after_s', async () => {
    const quick = await serve(20);
    try {
      await connect(quick, 'directory');
      // Reserved before the bind: of 10 concurrent guesses, at most 3 (the in-flight cap) bind.
      const tries = await Promise.all(
        Array.from({ length: 10 }, () => signIn(quick, 'Carol', 'guess')),
      );
      const codes = tries.map((t) => t.res.statusCode);
      expect(codes.filter((c) => c === 401).length).toBeLessThanOrEqual(3);
      expect(codes.filter((c) => c !== 401)).toEqual(
        Array(codes.length - codes.filter((c) => c === 401).length).fill(429),
      );
      for (let i = codes.filter((c) => c === 401).length; i < 10; i++)
        expect((await signIn(quick, 'Carol', 'guess')).res.statusCode).toBe(401);
      const { res } = await signIn(quick, 'carol', CAROL_PASSWORD);
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({
        error: 'too_many_attempts',
        retry_after_s: expect.any(Number) as number,
      });
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      // Another account from the same address still may.
      expect((await signIn(quick, 'alice', ALICE_PASSWORD)).res.statusCode).toBe(200);
    } finally {
      await quick.close();
    }
  });

  it('says clearly when the directory is down or hangs, within the timeout', async () => {
    const down = await serve(0);
    const hole = await blackhole();
    try {
      await connect(down, 'a-down', { url: 'ldap://127.0.0.1:9' });
      const refused = await signIn(down, 'alice', ALICE_PASSWORD);
      expect(refused.res.statusCode).toBe(503);
      expect(refused.res.json()).toMatchObject({ error: 'directory_unavailable' });
      expect(refused.res.json<{ message: string }>().message).toMatch(/ECONNREFUSED|connect/i);
      await down.connectors.remove('a-down', { name: 'admin-token' });
      await connect(down, 'hangs', { url: hole.url, timeout_s: 2 });
      const hung = await signIn(down, 'alice', ALICE_PASSWORD);
      expect(hung.res.statusCode).toBe(503);
      expect(hung.res.json<{ message: string }>().message).toMatch(/timed out after 2 s/);
      expect(hung.ms).toBeLessThan(3500);
      expect(
        down
          .events()
          .filter((e) => e.type === 'auth.sign_in_failed')
          .map((e) => e.data['why']),
      ).toEqual(['directory_unavailable', 'directory_unavailable']);
    } finally {
      await hole.close();
      await down.close();
    }
  });

  it('answers 409 when no ldap connector is set up', async () => {
    const bare = await serve(0);
    try {
      const { res } = await signIn(bare, 'alice', ALICE_PASSWORD);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error: 'ldap_not_configured', why: 'no_ldap_connector' });
    } finally {
      await bare.close();
    }
  });

  it('never shows a password in an answer, a log line or a ledger event', () => {
    const everything = [...bodies, bench.logs(), JSON.stringify(bench.events())].join('\n');
    for (const s of secrets) expect(everything).not.toContain(s);
    // slapd's own log does not carry them either (binds are logged by DN only).
    for (const s of secrets) expect(slapd.output()).not.toContain(s);
  });
});
