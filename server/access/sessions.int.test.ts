// Sign-in and sessions against a real SQLite file and real Fastify with the real auth
// plugin: POST /v1/login, POST /v1/auth/logout, GET /v1/me, expiry, cleanup, the ledger.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventsService } from '../events/index.js';
import { auth, type SessionLookup } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import { createLogger } from '../logger.js';
import { createFakeClock } from '../shared/clock.js';
import { Secret } from '../shared/secret.js';
import {
  createSessionsService,
  createSessionsStore,
  hashSessionToken,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  sessionsRoutes,
} from './index.js';
import { openLedgerBench } from '../testing/ledger-bench.js';

const ADMIN_TOKEN = 'admin-token-for-session-tests-0123456789';
const INGEST_TOKEN = 'ingest-token-for-session-tests-0123456789';
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

let dir: string;
const closers: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sessions-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

interface ServeOptions {
  readonly loginDelayMs?: number;
  readonly log?: DestinationStream;
}

/** The store, ledger and service as the runtime builds them, and the routes on Fastify. */
async function serve(options: ServeOptions = {}) {
  const file = join(dir, 'svc.db');
  const clock = createFakeClock('2026-03-01T09:00:00.000Z');
  const { db, writer, ledgerStore, ledger } = openLedgerBench(file, clock);
  const sessions = createSessionsService({ store: createSessionsStore(db), ledger, writer, clock });
  const app = createHttpServer({
    log: createLogger(options.log ? 'trace' : 'silent', options.log),
  });
  await app.register(auth, {
    adminToken: new Secret(ADMIN_TOKEN),
    ingestToken: new Secret(INGEST_TOKEN),
    delayMs: 0,
    sessions: sessions satisfies SessionLookup,
  });
  await app.register(
    async (v1) => {
      await v1.register(sessionsRoutes, {
        sessions,
        adminToken: new Secret(ADMIN_TOKEN),
        delayMs: options.loginDelayMs ?? 0,
      });
      v1.get('/x', { onRequest: v1.requireRole('viewer') }, async (req) => ({
        actor: req.principal?.name,
      }));
    },
    { prefix: '/v1' },
  );
  await app.ready();
  closers.push(async () => {
    sessions.stop();
    await app.close();
    await writer.close();
    db.close();
  });

  const as = (token: string | null): Record<string, string> =>
    token === null ? {} : { authorization: `Bearer ${token}` };
  const login = (payload: unknown) =>
    app.inject({
      method: 'POST',
      url: '/v1/login',
      ...(payload !== undefined && {
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      }),
    });
  const signIn = async (): Promise<{ token: string; id: string }> => {
    const res = await login({ token: ADMIN_TOKEN });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ token: string; session: { id: string } }>();
    return { token: body.token, id: body.session.id };
  };
  const x = (token: string | null) =>
    app.inject({ method: 'GET', url: '/v1/x', headers: as(token) });
  const me = (token: string | null) =>
    app.inject({ method: 'GET', url: '/v1/me', headers: as(token) });
  const logout = (token: string | null) =>
    app.inject({ method: 'POST', url: '/v1/auth/logout', headers: as(token) });
  const events = () =>
    ledgerStore
      .range(0, ledgerStore.head().seq, 10_000)
      .map(({ hash: _hash, ...e }) => ({ ...e, data: JSON.parse(e.data) as unknown }));
  const rows = () =>
    db.prepare('SELECT * FROM sessions ORDER BY created_at, id').all() as Record<string, unknown>[];
  /** Let background writer jobs (a lazily ended session) commit. */
  const settle = async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };
  return {
    db,
    file,
    clock,
    writer,
    ledger,
    ledgerStore,
    sessions,
    app,
    login,
    signIn,
    x,
    me,
    logout,
    events,
    rows,
    settle,
  };
}

describe('POST /v1/login with the admin token', () => {
  it('opens a session for the first owner whose token works on viewer routes and GET /v1/me', async () => {
    const { login, x, me } = await serve();
    const res = await login({ token: ADMIN_TOKEN });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<{ token: string; session: Record<string, unknown> }>();
    expect(body.token).toMatch(/^svs_[A-Za-z0-9_-]{43}$/);
    expect(body.session).toEqual({
      id: expect.stringMatching(/^ses-[0-9a-f]{16}$/) as unknown,
      user_id: 'owner',
      name: 'owner',
      role: 'owner',
      method: 'admin-token',
      created_at: '2026-03-01T09:00:00.000Z',
      expires_at: '2026-03-08T09:00:00.000Z',
      idle_expires_at: '2026-03-01T21:00:00.000Z',
    });

    const viewer = await x(body.token);
    expect(viewer.statusCode, viewer.body).toBe(200);
    expect(viewer.json()).toEqual({ actor: 'owner' });

    const who = await me(body.token);
    expect(who.statusCode, who.body).toBe(200);
    expect(who.json()).toEqual({
      name: 'owner',
      role: 'owner',
      user_id: 'owner',
      kind: 'session',
      session: {
        id: body.session['id'],
        // How it signed in: the console names this session for the token, not as a person.
        method: 'admin-token',
        created_at: '2026-03-01T09:00:00.000Z',
        expires_at: '2026-03-08T09:00:00.000Z',
        idle_expires_at: '2026-03-01T21:00:00.000Z',
      },
    });
  });

  it('stores only the SHA-256 of the token: the token is nowhere in the database files', async () => {
    const { signIn, x, rows, file } = await serve();
    const { token, id } = await signIn();
    expect((await x(token)).statusCode).toBe(200);
    const [row, ...more] = rows();
    expect(more).toEqual([]);
    expect(row).toMatchObject({ id, token_hash: hashSessionToken(token) });
    expect(Object.values(row ?? {})).not.toContain(token);

    const bytes = [file, `${file}-wal`, `${file}-shm`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f));
    expect(bytes.length).toBeGreaterThanOrEqual(2); // the file and its WAL
    const all = Buffer.concat(bytes);
    // Sanity: these are the files that hold the session.
    expect(all.includes(hashSessionToken(token))).toBe(true);
    expect(all.includes(token)).toBe(false);
    expect(all.includes(token.slice('svs_'.length))).toBe(false);
    expect(all.includes(Buffer.from(token, 'utf16le'))).toBe(false);
  });

  it('records auth.signed_in with the person as actor and no token in the ledger', async () => {
    const { signIn, events } = await serve();
    const { token, id } = await signIn();
    expect(events()).toEqual([
      {
        seq: 1,
        ts: '2026-03-01T09:00:00.000Z',
        type: 'auth.signed_in',
        actor: 'owner',
        data: { session_id: id, user_id: 'owner', role: 'owner', method: 'admin-token' },
        reason: null,
        trace_id: null,
      },
    ]);
    const text = JSON.stringify(events());
    expect(text).not.toContain(token);
    expect(text).not.toContain(hashSessionToken(token));
    expect(text).not.toContain(ADMIN_TOKEN);
  });

  it('answers a wrong token 401 bad_token after the 0.5 s wait, and writes nothing', async () => {
    const { login, rows, ledgerStore } = await serve({ loginDelayMs: 500 });
    const started = performance.now();
    const res = await login({ token: `${ADMIN_TOKEN}x` });
    const waited = performance.now() - started;
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      error: 'bad_token',
      message: expect.any(String) as unknown,
    });
    expect(waited).toBeGreaterThanOrEqual(480);
    expect(rows()).toEqual([]);
    expect(ledgerStore.head().seq).toBe(0);
  });

  it.each([
    ['the ingest token', { token: INGEST_TOKEN }],
    ['a session-looking token', { token: 'svs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
  ])('refuses %s with 401 bad_token', async (_what, payload) => {
    const { login, rows } = await serve();
    const res = await login(payload);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'bad_token' });
    expect(rows()).toEqual([]);
  });

  it('refuses a session token as the login token: only the admin token signs in here', async () => {
    const { login, signIn } = await serve();
    const { token } = await signIn();
    const res = await login({ token });
    expect(res.statusCode).toBe(401);
  });

  it.each([
    ['no body', undefined, 'token'],
    ['an empty object', {}, 'token'],
    ['an empty token', { token: '' }, 'token'],
    ['a token that is not text', { token: { value: ADMIN_TOKEN } }, 'token'],
    ['an unknown field', { token: ADMIN_TOKEN, by: 'alice' }, 'by'],
  ])('answers %s with 400 naming the field, and writes nothing', async (_what, payload, field) => {
    const { login, rows, ledgerStore } = await serve();
    const res = await login(payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field });
    expect(rows()).toEqual([]);
    expect(ledgerStore.head().seq).toBe(0);
  });

  it('gives concurrent sign-ins distinct sessions, each recorded', async () => {
    const { login, rows, events, x } = await serve();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => login({ token: ADMIN_TOKEN })),
    );
    const bodies = answers.map((r) => r.json<{ token: string; session: { id: string } }>());
    expect(new Set(bodies.map((b) => b.token)).size).toBe(8);
    expect(new Set(bodies.map((b) => b.session.id)).size).toBe(8);
    expect(rows()).toHaveLength(8);
    const signedIn = events().filter((e) => e.type === 'auth.signed_in');
    expect(new Set(signedIn.map((e) => (e.data as { session_id: string }).session_id))).toEqual(
      new Set(bodies.map((b) => b.session.id)),
    );
    for (const b of bodies) expect((await x(b.token)).statusCode).toBe(200);
  });

  it('never writes the token or the admin token to the logs', async () => {
    const lines: string[] = [];
    const { login, x, logout } = await serve({
      log: {
        write: (s: string) => {
          lines.push(s);
        },
      },
    });
    const res = await login({ token: ADMIN_TOKEN });
    const { token } = res.json<{ token: string }>();
    await x(token);
    await logout(token);
    await x(token);
    await login({ token: 'wrong-token' });
    expect(lines.length).toBeGreaterThan(0);
    const text = lines.join('');
    expect(text).not.toContain(token);
    expect(text).not.toContain(ADMIN_TOKEN);
    expect(text).not.toContain('wrong-token');
  });
});

describe('POST /v1/auth/logout', () => {
  it('ends the session: the token is refused at once, and auth.signed_out is recorded', async () => {
    const { signIn, logout, x, me, rows, events, clock } = await serve();
    const { token, id } = await signIn();
    clock.advance(5 * 60 * 1000);
    const res = await logout(token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ended: true });

    for (const call of [x, me, logout]) {
      const refused = await call(token);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ error: 'bad_token' });
    }
    expect(rows()[0]).toMatchObject({
      id,
      ended_at: '2026-03-01T09:05:00.000Z',
      ended_why: 'logout',
    });
    const out = events().filter((e) => e.type === 'auth.signed_out');
    expect(out).toEqual([
      expect.objectContaining({
        actor: 'owner',
        data: { session_id: id, why: 'logout' },
        ts: '2026-03-01T09:05:00.000Z',
      }),
    ]);
    expect(JSON.stringify(events())).not.toContain(token);
  });

  it('ends only the calling session', async () => {
    const { signIn, logout, x } = await serve();
    const a = await signIn();
    const b = await signIn();
    expect((await logout(a.token)).statusCode).toBe(200);
    expect((await x(a.token)).statusCode).toBe(401);
    expect((await x(b.token)).statusCode).toBe(200);
  });

  it('answers the admin token 409 no_session, the ingest token 403, no credential 401', async () => {
    const { logout, ledgerStore } = await serve();
    const admin = await logout(ADMIN_TOKEN);
    expect(admin.statusCode).toBe(409);
    expect(admin.json()).toMatchObject({ error: 'no_session', why: 'not_a_session' });
    const ingest = await logout(INGEST_TOKEN);
    expect(ingest.statusCode).toBe(403);
    expect(ingest.json()).toMatchObject({ error: 'role_required', role: 'viewer' });
    const none = await logout(null);
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ error: 'no_credentials' });
    expect(ledgerStore.head().seq).toBe(0);
  });
});

describe('GET /v1/me', () => {
  it('describes the admin token without a session; refuses the ingest token and nobody', async () => {
    const { me } = await serve();
    const admin = await me(ADMIN_TOKEN);
    expect(admin.statusCode).toBe(200);
    expect(admin.json()).toEqual({
      name: 'admin-token',
      role: 'owner',
      user_id: null,
      kind: 'admin-token',
      session: null,
    });
    const ingest = await me(INGEST_TOKEN);
    expect(ingest.statusCode).toBe(403);
    expect(ingest.json()).toMatchObject({ error: 'role_required', role: 'viewer' });
    expect((await me(null)).statusCode).toBe(401);
    expect((await me('svs_not-a-session')).json()).toMatchObject({ error: 'bad_token' });
  });
});

describe('session lifetime', () => {
  it('ends a session after 12 idle hours, records it as expired, and refuses the token', async () => {
    const { signIn, x, clock, rows, events, settle } = await serve();
    const { token, id } = await signIn();
    clock.advance(SESSION_IDLE_MS - 1);
    expect((await x(token)).statusCode).toBe(200); // used: the idle expiry slides
    clock.advance(SESSION_IDLE_MS);
    const refused = await x(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'bad_token' });
    await settle();
    // Ended when its (slid) idle expiry passed: 12 h after the last use.
    expect(rows()[0]).toMatchObject({
      id,
      ended_why: 'expired',
      ended_at: '2026-03-02T08:59:59.999Z',
    });
    expect(events().filter((e) => e.type === 'auth.signed_out')).toEqual([
      expect.objectContaining({ actor: 'owner', data: { session_id: id, why: 'expired' } }),
    ]);
    // Refused again: no second event.
    expect((await x(token)).statusCode).toBe(401);
    await settle();
    expect(events().filter((e) => e.type === 'auth.signed_out')).toHaveLength(1);
  });

  it('slides the idle expiry with use, shown in GET /v1/me', async () => {
    const { signIn, me, clock, x } = await serve();
    const { token } = await signIn();
    clock.advance(6 * HOUR);
    const at6h = await me(token);
    expect(at6h.json()).toMatchObject({
      session: { idle_expires_at: '2026-03-02T03:00:00.000Z' },
    });
    clock.advance(11 * HOUR); // 17 h after sign-in, 11 h after the last use
    expect((await x(token)).statusCode).toBe(200);
  });

  it('ends a session 7 days after sign-in however busy it is', async () => {
    const { signIn, x, me, clock, settle, rows } = await serve();
    const { token, id } = await signIn();
    for (let t = 6 * HOUR; t < SESSION_MAX_MS; t += 6 * HOUR) {
      clock.set(new Date(Date.parse('2026-03-01T09:00:00.000Z') + t).toISOString());
      expect((await x(token)).statusCode, `at ${String(t / HOUR)} h`).toBe(200);
    }
    // The idle expiry never passes the absolute one.
    expect((await me(token)).json()).toMatchObject({
      session: {
        expires_at: '2026-03-08T09:00:00.000Z',
        idle_expires_at: '2026-03-08T09:00:00.000Z',
      },
    });
    clock.set('2026-03-08T09:00:00.000Z');
    expect((await x(token)).statusCode).toBe(401);
    await settle();
    expect(rows()[0]).toMatchObject({
      id,
      ended_at: '2026-03-08T09:00:00.000Z',
      ended_why: 'expired',
    });
  });

  it('cleans up: ends expired sessions nobody used again, removes rows ended 30 days ago', async () => {
    const { signIn, sessions, clock, rows, events, logout } = await serve();
    const idle = await signIn();
    const loggedOut = await signIn();
    expect((await logout(loggedOut.token)).statusCode).toBe(200);
    clock.advance(SESSION_IDLE_MS + 1);
    const fresh = await signIn();

    expect(await sessions.sweep()).toEqual({ expired: 1, removed: 0 });
    expect(Object.fromEntries(rows().map((r) => [r['id'], r['ended_why']]))).toEqual({
      [idle.id]: 'expired',
      [loggedOut.id]: 'logout',
      [fresh.id]: null,
    });
    expect(
      events()
        .filter((e) => e.type === 'auth.signed_out')
        .map((e) => e.data),
    ).toEqual([
      { session_id: loggedOut.id, why: 'logout' },
      { session_id: idle.id, why: 'expired' },
    ]);

    // 30 days on: the first two ended over 30 days ago; the fresh one has expired since.
    clock.advance(30 * DAY);
    expect(await sessions.sweep()).toEqual({ expired: 1, removed: 2 });
    expect(rows()).toEqual([expect.objectContaining({ id: fresh.id, ended_why: 'expired' })]);
    clock.advance(30 * DAY);
    expect(await sessions.sweep()).toEqual({ expired: 0, removed: 1 });
    expect(rows()).toEqual([]);
    // The ledger keeps every sign-in and sign-out.
    expect(events().map((e) => e.type)).toEqual([
      'auth.signed_in',
      'auth.signed_in',
      'auth.signed_out',
      'auth.signed_in',
      'auth.signed_out',
      'auth.signed_out',
    ]);
  });

  it('starts the cleanup at once and stops it', async () => {
    const { signIn, sessions, clock, rows, settle } = await serve();
    await signIn();
    clock.advance(SESSION_MAX_MS);
    sessions.start();
    sessions.start(); // idempotent
    await settle();
    expect(rows()[0]).toMatchObject({ ended_why: 'expired' });
    sessions.stop();
    sessions.stop();
  });
});

describe('auth.* events', () => {
  it('cannot be posted through POST /v1/events: the prefix is not an ingest prefix', async () => {
    const { ledger, writer, ledgerStore } = await serve();
    const events = createEventsService({ ledger, writer, reserved: () => false });
    for (const type of ['auth.signed_in', 'auth.signed_out']) {
      await expect(
        events.ingest({ type, actor: 'mallory', data: { session_id: 'ses-0' } }),
      ).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'type' } });
    }
    expect(ledgerStore.head().seq).toBe(0);
  });
});
