// The sessions service with a fake clock, on the real store in an in-memory SQLite.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadMigrations, migrate } from '../db/migrate.js';
import { createWriter } from '../db/writer.js';
import { createLedgerService, createLedgerStore, createProjections } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import {
  createSessionsService,
  createSessionsStore,
  FIRST_OWNER,
  hashSessionToken,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  SESSION_SWEEP_MS,
  SESSION_TOUCH_MS,
  SignInMethod,
  type SessionsStore,
} from './index.js';
import { eventCatalogue } from '../compose/index.js';

const MIGRATIONS = fileURLToPath(new URL('../db/migrations/', import.meta.url));
const T0 = '2026-03-01T09:00:00.000Z';
const HOUR = 60 * 60 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

function build(options: { failTouch?: boolean } = {}) {
  const db = new Database(':memory:');
  migrate(db, loadMigrations(MIGRATIONS));
  const clock = createFakeClock(T0);
  const writer = createWriter(db);
  const ledgerStore = createLedgerStore(db);
  const ledger = createLedgerService({
    inTransaction: () => db.inTransaction,
    store: ledgerStore,
    writer,
    clock,
    projections: createProjections(),
    events: eventCatalogue(),
  });
  const real = createSessionsStore(db);
  const calls = { byTokenHash: 0, touch: 0, expiredOpen: 0 };
  const store: SessionsStore = {
    ...real,
    byTokenHash: (hash) => {
      calls.byTokenHash++;
      return real.byTokenHash(hash);
    },
    touch: (...args) => {
      calls.touch++;
      if (options.failTouch === true)
        throw Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' });
      real.touch(...args);
    },
    expiredOpen: (...args) => {
      calls.expiredOpen++;
      return real.expiredOpen(...args);
    },
  };
  const logged: { level: string; msg: string }[] = [];
  const log = {
    warn: (_obj: unknown, msg: string) => logged.push({ level: 'warn', msg }),
    error: (_obj: unknown, msg: string) => logged.push({ level: 'error', msg }),
  } as unknown as Pick<Logger, 'warn' | 'error'>;
  const sessions = createSessionsService({ store, ledger, writer, clock, log });
  const types = () => ledgerStore.range(0, ledgerStore.head().seq, 1000).map((e) => e.type);
  const settle = async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  };
  return { db, clock, writer, sessions, real, calls, logged, types, settle };
}

describe('session tokens', () => {
  it('are svs_ and 32 random bytes, stored as their SHA-256 hex', async () => {
    const { sessions, real } = build();
    const { token, session } = await sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    expect(token).toMatch(/^svs_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
    const hash = createHash('sha256').update(token).digest('hex');
    expect(hashSessionToken(token)).toBe(hash);
    expect(real.byTokenHash(hash)?.id).toBe(session.id);
  });

  it('look up to the principal of the session', async () => {
    const { sessions } = build();
    const { token } = await sessions.signIn(
      { userId: 'u-vera', name: 'vera', role: 'viewer' },
      SignInMethod.AdminToken,
    );
    expect(sessions.lookup(token)).toEqual({
      kind: 'session',
      name: 'vera',
      role: 'viewer',
      userId: 'u-vera',
    });
  });

  it('that do not start with svs_ are refused without a query', async () => {
    const { sessions, calls } = build();
    const { token } = await sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    expect(sessions.lookup(token.slice(4))).toBeNull();
    expect(sessions.lookup('admin-token-like-value')).toBeNull();
    expect(calls.byTokenHash).toBe(0);
    expect(sessions.lookup(`${token}x`)).toBeNull();
    expect(calls.byTokenHash).toBe(1);
  });
});

describe('the idle expiry', () => {
  it('slides with use, written at most once a minute', async () => {
    const { sessions, calls, clock, real } = build();
    const { token, session } = await sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    for (const at of [0, 1000, 30_000, SESSION_TOUCH_MS - 1]) {
      clock.set(new Date(Date.parse(T0) + at).toISOString());
      expect(sessions.lookup(token)).not.toBeNull();
    }
    expect(calls.touch).toBe(0);
    clock.set(new Date(Date.parse(T0) + SESSION_TOUCH_MS).toISOString());
    sessions.lookup(token);
    expect(calls.touch).toBe(1);
    expect(real.byId(session.id)).toMatchObject({
      last_seen_at: '2026-03-01T09:01:00.000Z',
      idle_expires_at: '2026-03-01T21:01:00.000Z',
    });
    clock.advance(SESSION_TOUCH_MS - 1);
    sessions.lookup(token);
    expect(calls.touch).toBe(1);
    clock.advance(1);
    sessions.lookup(token);
    expect(calls.touch).toBe(2);
  });

  it('never passes the absolute expiry', async () => {
    const { sessions, clock, real } = build();
    const { token, session } = await sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    for (let t = 6 * HOUR; t <= SESSION_MAX_MS - 6 * HOUR; t += 6 * HOUR) {
      clock.set(new Date(Date.parse(T0) + t).toISOString());
      expect(sessions.lookup(token)).not.toBeNull();
    }
    expect(real.byId(session.id)?.idle_expires_at).toBe(session.expires_at);
    expect(sessions.current(token)?.idle_expires_at).toBe('2026-03-08T09:00:00.000Z');
  });

  it('is kept when activity cannot be written: the session still works', async () => {
    const { sessions, clock, logged } = build({ failTouch: true });
    const { token } = await sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    clock.advance(HOUR);
    expect(sessions.lookup(token)).not.toBeNull();
    expect(logged).toEqual([{ level: 'warn', msg: 'could not record session activity' }]);
  });
});

describe('an expired session', () => {
  it('is refused at its idle expiry and ended once, however often it is tried', async () => {
    const { sessions, clock, real, types, settle } = build();
    const { token, session } = await sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    clock.advance(SESSION_IDLE_MS - 1);
    expect(sessions.current(token)).not.toBeNull(); // current() reads, it does not slide
    clock.advance(1);
    for (let i = 0; i < 5; i++) expect(sessions.lookup(token)).toBeNull();
    expect(sessions.current(token)).toBeNull();
    await settle();
    expect(real.byId(session.id)).toMatchObject({
      ended_at: session.idle_expires_at,
      ended_why: 'expired',
    });
    expect(types()).toEqual(['auth.signed_in', 'auth.signed_out']);
    expect(sessions.lookup(token)).toBeNull();
    await settle();
    expect(types()).toEqual(['auth.signed_in', 'auth.signed_out']);
  });

  it('cannot be signed out again', async () => {
    const { sessions, clock, types } = build();
    const { token } = await sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    expect(await sessions.signOut(token)).toBe(true);
    expect(await sessions.signOut(token)).toBe(false);
    clock.advance(SESSION_MAX_MS);
    expect(await sessions.sweep()).toEqual({ expired: 0, removed: 0 });
    expect(types()).toEqual(['auth.signed_in', 'auth.signed_out']);
  });
});

describe('GET /v1/me', () => {
  it('shows the admin token as the owner without a session', () => {
    const { sessions } = build();
    expect(
      sessions.me({ kind: 'admin-token', name: 'admin-token', role: 'owner' }, 'whatever'),
    ).toEqual({
      name: 'admin-token',
      role: 'owner',
      user_id: null,
      kind: 'admin-token',
      session: null,
    });
  });
});

describe('the cleanup timer', () => {
  it('runs at start and hourly until stopped, on a timer that does not hold the process', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { sessions, calls, settle } = build();
    sessions.start();
    await settle();
    expect(calls.expiredOpen).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(SESSION_SWEEP_MS);
    await settle();
    expect(calls.expiredOpen).toBe(2);
    sessions.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(3 * SESSION_SWEEP_MS);
    await settle();
    expect(calls.expiredOpen).toBe(2);
  });

  it('sets an unref-ed interval', () => {
    const unref = vi.fn();
    const spy = vi
      .spyOn(globalThis, 'setInterval')
      .mockReturnValue({ unref } as unknown as ReturnType<typeof setInterval>);
    const clear = vi.spyOn(globalThis, 'clearInterval').mockImplementation(() => undefined);
    const { sessions } = build();
    sessions.start();
    expect(spy).toHaveBeenCalledWith(expect.any(Function), SESSION_SWEEP_MS);
    expect(unref).toHaveBeenCalled();
    sessions.stop();
    expect(clear).toHaveBeenCalled();
    spy.mockRestore();
    clear.mockRestore();
  });

  it('reports a failed run instead of throwing (the writer is closed)', async () => {
    const { sessions, writer, logged, settle } = build();
    await writer.close();
    sessions.start();
    sessions.stop();
    await settle();
    expect(logged).toEqual([{ level: 'error', msg: 'session cleanup failed' }]);
  });
});
