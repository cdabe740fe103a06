// People, teams and access settings against a real SQLite file, the real ledger, the real
// sessions and the real auth plugin on Fastify: roles and their limits, the last owner,
// sessions that follow a role change at once, team leads, admission, PUT /v1/me, rebuild.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSessionsService, createSessionsStore, sessionsRoutes } from '../access/index.js';
import { auth } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import { dumpProjections, replayLedger } from '../ledger/index.js';
import { createLogger } from '../logger.js';
import { createFakeClock } from '../shared/clock.js';
import type { Role } from '../shared/roles.js';
import { Secret } from '../shared/secret.js';
import { createPeopleService, createPeopleStore, peopleRoutes, type User } from './index.js';
import { openLedgerBench } from '../testing/ledger-bench.js';

const ADMIN_TOKEN = 'admin-token-for-people-tests-0123456789';

let dir: string;
const closers: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-people-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

interface ErrorBody {
  error: string;
  message: string;
  field?: string;
  role?: string;
  why?: string;
}

async function serve() {
  const clock = createFakeClock('2026-11-22T09:00:00.000Z');
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  const store = createPeopleStore(db);
  projections.register(store.projection);
  const sessions = createSessionsService({ store: createSessionsStore(db), ledger, writer, clock });
  const passwords = new Map<string, string>();
  const people = createPeopleService({
    store,
    ledger,
    writer,
    clock,
    sessions,
    hasPassword: (id) => passwords.has(id),
    setPassword: async (id, password, current) => {
      const had = passwords.get(id);
      if (had !== undefined && had !== current) {
        const { UnauthenticatedError } = await import('../shared/errors.js');
        throw new UnauthenticatedError('bad_password', 'the current password is not right');
      }
      passwords.set(id, password);
    },
  });
  const app = createHttpServer({ log: createLogger('silent') });
  await app.register(auth, {
    adminToken: new Secret(ADMIN_TOKEN),
    ingestToken: null,
    delayMs: 0,
    sessions,
  });
  await app.register(
    async (v1) => {
      await v1.register(sessionsRoutes, {
        sessions,
        adminToken: new Secret(ADMIN_TOKEN),
        delayMs: 0,
        profile: people.profile,
      });
      await v1.register(peopleRoutes, { people, sessions, mode: () => 'configuring' });
    },
    { prefix: '/v1' },
  );
  await app.ready();
  closers.push(async () => {
    await app.close();
    await writer.close();
    db.close();
  });

  const as = (token: string | null): Record<string, string> =>
    token === null ? {} : { authorization: `Bearer ${token}` };
  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    token: string | null,
    payload?: unknown,
  ) =>
    app.inject({
      method,
      url: `/v1${url}`,
      headers: as(token),
      ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
    });
  const events = (type?: string) =>
    ledgerStore
      .range(0, ledgerStore.head().seq, 10_000)
      .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }))
      .filter((e) => type === undefined || e.type === type);
  /** A person made with the admin token, and a session of theirs. */
  const person = async (email: string, role: Role, name = email.split('@')[0] ?? '') => {
    const res = await call('POST', '/users', ADMIN_TOKEN, { email, name, role });
    expect(res.statusCode, res.body).toBe(201);
    const user = res.json<User>();
    const { token } = await sessions.signIn(people.identity(user), 'admin-token');
    return { user, token };
  };
  return {
    db,
    clock,
    ledgerStore,
    projections,
    store,
    people,
    sessions,
    passwords,
    call,
    events,
    person,
  };
}

describe('people over HTTP', () => {
  it('creates a person with the admin token: e-mail lower-cased, access.user_created, 201', async () => {
    const { call, events } = await serve();
    const res = await call('POST', '/users', ADMIN_TOKEN, {
      email: '  Alice@Example.COM ',
      name: 'Alice',
      role: 'responder',
      handles: { slack: '@alice', phone: '+44 20 7946 0000' },
      by: 'carol',
    });
    expect(res.statusCode, res.body).toBe(201);
    const alice = res.json<User>();
    expect(alice).toEqual({
      id: expect.stringMatching(/^usr-[0-9a-f]{16}$/) as unknown,
      email: 'alice@example.com',
      name: 'Alice',
      role: 'responder',
      handles: { slack: '@alice', phone: '+44 20 7946 0000' },
      teams: [],
      disabled: false,
      password_set: false,
      created_at: '2026-11-22T09:00:00.000Z',
      updated_at: '2026-11-22T09:00:00.000Z',
      last_sign_in_at: null,
    });
    const [made, ...more] = events('access.user_created');
    expect(more).toEqual([]);
    // `by` counts with the admin token.
    expect(made).toMatchObject({
      actor: 'carol',
      data: { via: 'admin-token', user: { id: alice.id } },
    });
    const list = await call('GET', '/users', ADMIN_TOKEN);
    expect(list.json()).toEqual({ users: [alice] });
  });

  it.each([
    ['a bad e-mail', { email: 'not-an-address' }, 'email'],
    ['an e-mail with a space', { email: 'a b@example.com' }, 'email'],
    ['no e-mail', { name: 'x' }, 'email'],
    ['an unknown role', { email: 'a@example.com', role: 'god' }, 'role'],
    ['a bad phone', { email: 'a@example.com', handles: { phone: 'call me' } }, 'handles.phone'],
    ['an unknown handle', { email: 'a@example.com', handles: { icq: '1' } }, 'handles.icq'],
    ['a name with a control character', { email: 'a@example.com', name: 'a\u0007' }, 'name'],
    ['an unknown field', { email: 'a@example.com', colour: 'red' }, 'colour'],
  ])('answers %s with 400 naming the field, and changes nothing', async (_what, body, field) => {
    const { call, ledgerStore } = await serve();
    const before = ledgerStore.head().seq;
    const res = await call('POST', '/users', ADMIN_TOKEN, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<ErrorBody>()).toMatchObject({ error: 'invalid_input', field });
    expect(ledgerStore.head().seq).toBe(before);
  });

  it('refuses a second person with the same e-mail (any case): 409 email_taken', async () => {
    const { call } = await serve();
    expect(
      (await call('POST', '/users', ADMIN_TOKEN, { email: 'bob@example.com' })).statusCode,
    ).toBe(201);
    const res = await call('POST', '/users', ADMIN_TOKEN, { email: 'BOB@example.com' });
    expect(res.statusCode).toBe(409);
    expect(res.json<ErrorBody>()).toMatchObject({ error: 'email_taken', why: 'email_taken' });
  });

  it('an admin cannot make an owner, nor change or delete one: 403 naming owner', async () => {
    const { call, person } = await serve();
    const owner = await person('olive@example.com', 'owner');
    const admin = await person('adam@example.com', 'admin');
    const grant = await call('POST', '/users', admin.token, {
      email: 'x@example.com',
      role: 'owner',
    });
    expect(grant.statusCode).toBe(403);
    expect(grant.json<ErrorBody>()).toMatchObject({ error: 'role_required', role: 'owner' });
    expect(grant.json<ErrorBody>().message).toContain('owner');
    const promote = await call('PUT', `/users/${admin.user.id}`, admin.token, { role: 'owner' });
    expect(promote.json<ErrorBody>()).toMatchObject({ role: 'owner' });
    for (const [method, body] of [
      ['PUT', { name: 'Olive O.' }],
      ['PUT', { disabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `/users/${owner.user.id}`, admin.token, body);
      expect(res.statusCode, `${method} ${JSON.stringify(body)}`).toBe(403);
      expect(res.json<ErrorBody>().role).toBe('owner');
    }
    // An owner may.
    const ok = await call('PUT', `/users/${admin.user.id}`, owner.token, { role: 'owner' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json<User>().role).toBe('owner');
  });

  it('never demotes, disables or deletes the last owner: 409 last_owner', async () => {
    const { call, person, ledgerStore } = await serve();
    const owner = await person('olive@example.com', 'owner');
    const before = ledgerStore.head().seq;
    for (const [method, body] of [
      ['PUT', { role: 'admin' }],
      ['PUT', { disabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `/users/${owner.user.id}`, ADMIN_TOKEN, body);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json<ErrorBody>()).toMatchObject({ error: 'last_owner', why: 'last_owner' });
    }
    expect(ledgerStore.head().seq).toBe(before);
    // With a second owner, the first may go.
    await person('otto@example.com', 'owner');
    expect(
      (await call('PUT', `/users/${owner.user.id}`, ADMIN_TOKEN, { role: 'admin' })).statusCode,
    ).toBe(200);
  });

  it('a role change reaches the open sessions at once, recorded as access.role_changed', async () => {
    const { call, person, events } = await serve();
    const rita = await person('rita@example.com', 'responder');
    expect((await call('GET', '/users', rita.token)).statusCode).toBe(403);
    const up = await call('PUT', `/users/${rita.user.id}`, ADMIN_TOKEN, { role: 'admin' });
    expect(up.statusCode, up.body).toBe(200);
    expect((await call('GET', '/users', rita.token)).statusCode).toBe(200);
    const me = await call('GET', '/me', rita.token);
    expect(me.json()).toMatchObject({ role: 'admin', email: 'rita@example.com' });
    const down = await call('PUT', `/users/${rita.user.id}`, ADMIN_TOKEN, { role: 'viewer' });
    expect(down.statusCode).toBe(200);
    const refused = await call('GET', '/users', rita.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json<ErrorBody>().role).toBe('admin');
    expect(events('access.role_changed').map((e) => e.data)).toEqual([
      {
        id: rita.user.id,
        email: 'rita@example.com',
        from: 'responder',
        to: 'admin',
        sessions: 1,
      },
      {
        id: rita.user.id,
        email: 'rita@example.com',
        from: 'admin',
        to: 'viewer',
        sessions: 1,
      },
    ]);
  });

  it('disabling a person ends their sessions and refuses their sign-in', async () => {
    const { call, person, events, people } = await serve();
    const dan = await person('dan@example.com', 'responder');
    const res = await call('PUT', `/users/${dan.user.id}`, ADMIN_TOKEN, { disabled: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<User>().disabled).toBe(true);
    expect((await call('GET', '/me', dan.token)).statusCode).toBe(401);
    expect(events('auth.signed_out').map((e) => e.data['why'])).toEqual(['disabled']);
    expect(events('access.user_updated').at(-1)?.data).toMatchObject({
      changed: ['disabled'],
      ended_sessions: 1,
    });
    await expect(people.admit({ email: 'dan@example.com', via: 'code' })).rejects.toMatchObject({
      code: 'account_disabled',
    });
  });

  it('deleting a person ends their sessions and takes them out of their teams', async () => {
    const { call, person, events } = await serve();
    const dan = await person('dan@example.com', 'responder');
    const team = await call('POST', '/teams', ADMIN_TOKEN, { name: 'SRE', leads: [dan.user.id] });
    expect(team.statusCode, team.body).toBe(201);
    const res = await call('DELETE', `/users/${dan.user.id}`, ADMIN_TOKEN);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deleted: true, id: dan.user.id, ended_sessions: 1 });
    expect((await call('GET', '/me', dan.token)).statusCode).toBe(401);
    expect(events('auth.signed_out').map((e) => e.data['why'])).toEqual(['deleted']);
    const teams = await call('GET', '/teams', ADMIN_TOKEN);
    expect(teams.json()).toMatchObject({
      teams: [{ name: 'SRE', leads: [], members: [] }],
      people: [],
    });
    expect((await call('DELETE', `/users/${dan.user.id}`, ADMIN_TOKEN)).statusCode).toBe(404);
  });

  it('`by` counts only with the admin token', async () => {
    const { call, person, events } = await serve();
    const admin = await person('adam@example.com', 'admin');
    await call('POST', '/users', admin.token, { email: 'e@example.com', by: 'mallory' });
    expect(events('access.user_created').at(-1)?.actor).toBe('adam');
  });
});

describe('teams', () => {
  it('viewers see teams and names, not e-mails or handles', async () => {
    const { call, person } = await serve();
    const vic = await person('vic@example.com', 'viewer');
    const made = await call('POST', '/teams', ADMIN_TOKEN, {
      name: 'Payments',
      members: [vic.user.id],
    });
    expect(made.statusCode, made.body).toBe(201);
    const res = await call('GET', '/teams', vic.token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      teams: [
        {
          id: expect.stringMatching(/^team-[0-9a-f]{16}$/) as unknown,
          name: 'Payments',
          leads: [],
          members: [vic.user.id],
          created_at: '2026-11-22T09:00:00.000Z',
          updated_at: '2026-11-22T09:00:00.000Z',
        },
      ],
      people: [{ id: vic.user.id, name: 'vic' }],
    });
    expect(res.body).not.toContain('vic@example.com');
    const me = await call('GET', '/me', vic.token);
    expect(me.json()).toMatchObject({ teams: [made.json<{ id: string }>().id] });
  });

  it('a lead changes and deletes their own team; others get 403 naming admin and the team', async () => {
    const { call, person, events } = await serve();
    const lea = await person('lea@example.com', 'viewer');
    const vic = await person('vic@example.com', 'responder');
    const team = (
      await call('POST', '/teams', ADMIN_TOKEN, { name: 'SRE', leads: [lea.user.id] })
    ).json<{
      id: string;
    }>();
    const other = (await call('POST', '/teams', ADMIN_TOKEN, { name: 'DBA' })).json<{
      id: string;
    }>();

    const refused = await call('PUT', `/teams/${team.id}`, vic.token, { name: 'Mine' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json<ErrorBody>()).toMatchObject({ error: 'role_required', role: 'admin' });
    expect(refused.json<ErrorBody>().message).toContain('admin or a lead of team SRE');

    const changed = await call('PUT', `/teams/${team.id}`, lea.token, { members: [vic.user.id] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      leads: [lea.user.id],
      members: [lea.user.id, vic.user.id].sort(),
    });
    expect(events('access.team_updated').at(-1)?.actor).toBe('lea');
    // Not the other team.
    expect((await call('DELETE', `/teams/${other.id}`, lea.token)).statusCode).toBe(403);
    // A lead may add a team, and leads it.
    const added = await call('POST', '/teams', lea.token, { name: 'On-call' });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ leads: [lea.user.id] });
    // Someone who leads nothing may not.
    expect(
      (await call('POST', '/teams', vic.token, { name: 'Nope' })).json<ErrorBody>(),
    ).toMatchObject({
      role: 'admin',
    });
    expect((await call('DELETE', `/teams/${team.id}`, lea.token)).json()).toEqual({
      deleted: true,
      id: team.id,
    });
    // No such team: 403 for a non-admin, 404 for an admin.
    expect((await call('DELETE', `/teams/${team.id}`, lea.token)).statusCode).toBe(403);
    expect((await call('DELETE', `/teams/${team.id}`, ADMIN_TOKEN)).statusCode).toBe(404);
  });

  it('400 for an unknown member, 409 for a taken name', async () => {
    const { call } = await serve();
    const bad = await call('POST', '/teams', ADMIN_TOKEN, { name: 'SRE', members: ['usr-nobody'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<ErrorBody>()).toMatchObject({ field: 'members' });
    expect((await call('POST', '/teams', ADMIN_TOKEN, { name: 'SRE' })).statusCode).toBe(201);
    const taken = await call('POST', '/teams', ADMIN_TOKEN, { name: 'sre' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json<ErrorBody>()).toMatchObject({ why: 'name_taken' });
    const blank = await call('POST', '/teams', ADMIN_TOKEN, { name: '  ' });
    expect(blank.json<ErrorBody>()).toMatchObject({ field: 'name' });
  });
});

describe('access settings and admission', () => {
  it('GET answers the defaults; PUT validates, lower-cases and records access.access_settings_set', async () => {
    const { call, events } = await serve();
    expect((await call('GET', '/settings/access', ADMIN_TOKEN)).json()).toEqual({
      domains: [],
      directory_groups: [],
      sso_groups: [],
      default_role: 'viewer',
      set_by: null,
      set_at: null,
    });
    const bad = await call('PUT', '/settings/access', ADMIN_TOKEN, {
      domains: ['ok.example', 'no domain'],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<ErrorBody>().field).toBe('domains.1');
    const res = await call('PUT', '/settings/access', ADMIN_TOKEN, {
      domains: ['@Example.COM', 'example.com'],
      directory_groups: ['sre'],
      sso_groups: ['incident-responders'],
      default_role: 'responder',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      domains: ['example.com'],
      directory_groups: ['sre'],
      sso_groups: ['incident-responders'],
      default_role: 'responder',
      set_by: 'admin-token',
      set_at: '2026-11-22T09:00:00.000Z',
    });
    expect(events('access.access_settings_set')).toHaveLength(1);
    const owner = await call('PUT', '/settings/access', ADMIN_TOKEN, { default_role: 'admin' });
    expect(owner.json<ErrorBody>().field).toBe('default_role');
  });

  it('admits by domain, directory group (DN or cn) and SSO group; refuses anyone else', async () => {
    const { call, people, events } = await serve();
    await call('PUT', '/settings/access', ADMIN_TOKEN, {
      domains: ['example.com'],
      directory_groups: ['sre'],
      sso_groups: ['ir'],
    });
    const a = await people.admit({ email: 'Ann@Example.com', via: 'code' });
    expect(a).toMatchObject({ email: 'ann@example.com', role: 'viewer', name: '' });
    expect(people.identity(a)).toEqual({ userId: a.id, name: 'ann@example.com', role: 'viewer' });
    // Known: the same person, name filled.
    const again = await people.admit({ email: 'ann@example.com', name: 'Ann', via: 'password' });
    expect(again).toMatchObject({ id: a.id, name: 'Ann' });
    await expect(people.admit({ email: 'eve@evil.example', via: 'code' })).rejects.toMatchObject({
      code: 'sign_in_not_allowed',
      message: expect.stringContaining('eve@evil.example may not sign in') as unknown,
      details: {},
    });
    const d = await people.admit({
      email: 'dora@corp.example',
      via: 'ldap',
      groups: ['CN=SRE,OU=Groups,DC=corp,DC=example'],
    });
    expect(d.role).toBe('viewer');
    await expect(
      people.admit({ email: 'x@corp.example', via: 'ldap', groups: ['cn=dba,dc=corp'] }),
    ).rejects.toMatchObject({ code: 'sign_in_not_allowed' });
    expect((await people.admit({ email: 's@idp.example', via: 'sso', groups: ['ir'] })).role).toBe(
      'viewer',
    );
    await expect(
      people.admit({ email: 't@idp.example', via: 'sso', groups: ['IR'] }),
    ).rejects.toMatchObject({ code: 'sign_in_not_allowed' });
    expect(events('access.user_created').map((e) => e.data['via'])).toEqual([
      'code',
      'ldap',
      'sso',
    ]);
  });

  it('bootstrapOwner makes a person owner, creating or re-enabling them', async () => {
    const { people, call, person } = await serve();
    const made = await people.bootstrapOwner(
      { email: 'Root@Example.com' },
      { name: 'admin-token' },
    );
    expect(made).toMatchObject({ email: 'root@example.com', role: 'owner', disabled: false });
    const vic = await person('vic@example.com', 'viewer');
    await call('PUT', `/users/${vic.user.id}`, ADMIN_TOKEN, { disabled: true });
    const up = await people.bootstrapOwner({ email: 'vic@example.com' }, { name: 'admin-token' });
    expect(up).toMatchObject({ id: vic.user.id, role: 'owner', disabled: false });
  });

  it('noteSignIn records the last sign-in outside the ledger', async () => {
    const { people, person, clock, ledgerStore } = await serve();
    const vic = await person('vic@example.com', 'viewer');
    const head = ledgerStore.head().seq;
    clock.set('2026-11-22T10:00:00.000Z');
    await people.noteSignIn(vic.user.id);
    expect(people.byId(vic.user.id)?.last_sign_in_at).toBe('2026-11-22T10:00:00.000Z');
    expect(ledgerStore.head().seq).toBe(head);
    expect(people.byEmail('VIC@example.com')?.id).toBe(vic.user.id);
  });
});

describe('PUT /v1/me', () => {
  it('changes your own name and handles; GET /v1/me shows them, and the session name follows', async () => {
    const { call, person, events } = await serve();
    const vic = await person('vic@example.com', 'viewer');
    const res = await call('PUT', '/me', vic.token, {
      name: 'Victoria',
      handles: { mattermost: '@vic', phone: '+1 555 0100' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Victoria',
      role: 'viewer',
      user_id: vic.user.id,
      kind: 'session',
      email: 'vic@example.com',
      handles: { mattermost: '@vic', phone: '+1 555 0100' },
      teams: [],
    });
    const me = await call('GET', '/me', vic.token);
    expect(me.json()).toMatchObject({ name: 'Victoria', handles: { mattermost: '@vic' } });
    // null removes a handle.
    const cleared = await call('PUT', '/me', vic.token, { handles: { phone: null } });
    expect(cleared.json<{ handles: unknown }>().handles).toEqual({ mattermost: '@vic' });
    expect(events('access.user_updated').at(-1)).toMatchObject({ actor: 'Victoria' });
  });

  it('never changes the role; a bad handle is 400; the admin token is 409 not_a_person', async () => {
    const { call, person } = await serve();
    const vic = await person('vic@example.com', 'viewer');
    const role = await call('PUT', '/me', vic.token, { role: 'owner' });
    expect(role.statusCode).toBe(400);
    expect(role.json<ErrorBody>().field).toBe('role');
    const phone = await call('PUT', '/me', vic.token, { handles: { phone: 'x' } });
    expect(phone.json<ErrorBody>().field).toBe('handles.phone');
    const admin = await call('PUT', '/me', ADMIN_TOKEN, { name: 'x' });
    expect(admin.statusCode).toBe(409);
    expect(admin.json<ErrorBody>()).toMatchObject({ why: 'not_a_person' });
    expect((await call('PUT', '/me', null, { name: 'x' })).statusCode).toBe(401);
  });

  it('sets a password through the sign-in domain; a wrong current one changes nothing', async () => {
    const { call, person, passwords, people } = await serve();
    const vic = await person('vic@example.com', 'viewer');
    expect((await call('PUT', '/me', vic.token, { password: 'correct horse' })).statusCode).toBe(
      200,
    );
    expect(people.byId(vic.user.id)?.password_set).toBe(true);
    const wrong = await call('PUT', '/me', vic.token, {
      password: 'other',
      current_password: 'nope',
      name: 'V',
    });
    expect(wrong.statusCode).toBe(401);
    expect(passwords.get(vic.user.id)).toBe('correct horse');
    expect(people.byId(vic.user.id)?.name).toBe('vic');
  });
});

describe('rebuild', () => {
  it('replaying the ledger gives the same people, teams and settings', async () => {
    const { call, person, db, ledgerStore, projections } = await serve();
    const lea = await person('lea@example.com', 'viewer');
    const vic = await person('vic@example.com', 'responder');
    const gone = await person('gone@example.com', 'admin');
    const team = (
      await call('POST', '/teams', ADMIN_TOKEN, {
        name: 'SRE',
        leads: [lea.user.id],
        members: [gone.user.id],
      })
    ).json<{ id: string }>();
    await call('PUT', `/teams/${team.id}`, lea.token, {
      name: 'SRE core',
      members: [vic.user.id, gone.user.id],
    });
    await call('POST', '/teams', ADMIN_TOKEN, { name: 'Doomed' }).then(async (r) =>
      call('DELETE', `/teams/${r.json<{ id: string }>().id}`, ADMIN_TOKEN),
    );
    await call('PUT', `/users/${vic.user.id}`, ADMIN_TOKEN, {
      role: 'admin',
      name: 'Vic',
      handles: { slack: 'U1' },
    });
    await call('PUT', `/users/${lea.user.id}`, ADMIN_TOKEN, { disabled: true });
    await call('DELETE', `/users/${gone.user.id}`, ADMIN_TOKEN);
    await call('PUT', '/settings/access', ADMIN_TOKEN, { domains: ['example.com'] });

    const live = dumpProjections(db, projections);
    expect(Object.keys(live)).toEqual(['people', 'teams', 'team_members', 'access_settings']);
    expect(live['people']).toHaveLength(2);
    expect(live['team_members']).toHaveLength(2);
    db.transaction(() => replayLedger(db, ledgerStore, projections))();
    expect(dumpProjections(db, projections)).toEqual(live);
  });
});
