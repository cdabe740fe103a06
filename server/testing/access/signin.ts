// For the sign-in and mail integration tests: a real SQLite file with every migration, the
// ledger with the people projection, the real sessions, people, mail and sign-in services,
// and Fastify with the real auth plugin and the real routes. Every log line and every
// answer is kept, so that tests can search them for secrets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { auth } from '../../http/auth.js';
import { createHttpServer } from '../../http/server.js';
import { createMailService, createMailStore, mailRoutes } from '../../mail/index.js';
import { createPeopleService, createPeopleStore } from '../../people/index.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { Secret } from '../../shared/secret.js';
import { createSessionsService, createSessionsStore } from '../../access/index.js';
import { createSignInGuard, type ThrottleLimit } from '../../access/throttle.js';
import { CODE_REQUEST_LIMITS, createSignInService } from '../../access/signin/signin.service.js';
import { createSignInStore } from '../../access/signin/signin.store.js';
import { createPasswordsService } from '../../access/signin/passwords.service.js';
import { signInRoutes } from '../../access/signin/signin.routes.js';
import { openLedgerBench } from '../ledger-bench.js';
import { capturedLogger } from '../logger.js';

const OWNER_CALLER = { actor: { name: 'admin-token' }, role: 'owner', userId: null } as const;
export const BENCH_ADMIN_TOKEN = 'admin-token-for-signin-bench-0123456789';

export interface BenchOptions {
  readonly delayMs?: number;
  readonly perAddress?: ThrottleLimit;
  readonly perAccount?: ThrottleLimit;
  readonly requests?: { perAddress?: ThrottleLimit; perAccount?: ThrottleLimit };
  readonly env?: Record<string, string>;
  readonly clock?: Clock;
}

export async function signInBench(options: BenchOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-signin-'));
  const { log, lines } = capturedLogger();
  const clock = options.clock ?? systemClock;
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  const peopleStore = createPeopleStore(db);
  projections.register(peopleStore.projection);
  const sessions = createSessionsService({
    store: createSessionsStore(db),
    ledger,
    writer,
    clock,
    log,
  });
  const store = createSignInStore(db);
  const guard = createSignInGuard({
    clock,
    ...(options.delayMs !== undefined && { delayMs: options.delayMs }),
    ...(options.perAddress && { perAddress: options.perAddress }),
    ...(options.perAccount && { perAccount: options.perAccount }),
  });
  // Passwords first, handed to people (password_set, PUT /v1/me) and to sign-in, as compose does.
  const passwords = createPasswordsService({
    store,
    person: (id) => peopleStore.userById(id),
    sessions,
    ledger,
    writer,
    clock,
    guard,
    log,
  });
  const people = createPeopleService({
    store: peopleStore,
    ledger,
    writer,
    clock,
    hasPassword: passwords.hasPassword,
    setPassword: passwords.setPassword,
  });
  const mail = createMailService({
    store: createMailStore(db),
    ledger,
    writer,
    clock,
    secretsDir: join(dir, 'secrets'),
    env: options.env ?? {},
    log,
  });
  const requests = createSignInGuard({
    clock,
    delayMs: 0,
    perAddress: options.requests?.perAddress ?? CODE_REQUEST_LIMITS.perAddress,
    perAccount: options.requests?.perAccount ?? CODE_REQUEST_LIMITS.perAccount,
    accountWide: true,
  });
  const signIn = createSignInService({
    store,
    passwords,
    people,
    sessions,
    mail,
    ledger,
    writer,
    clock,
    guard,
    requests,
    log,
  });

  const app = createHttpServer({ log });
  await app.register(auth, {
    adminToken: new Secret(BENCH_ADMIN_TOKEN),
    ingestToken: null,
    sessions,
    ...(options.delayMs !== undefined && { delayMs: options.delayMs }),
  });
  await app.register(
    async (v1) => {
      await v1.register(signInRoutes, { signIn, guard });
      await v1.register(mailRoutes, { mail, mode: () => 'configuring' });
    },
    { prefix: '/v1' },
  );
  await app.ready();

  const answers: string[] = [];
  const events = () =>
    ledgerStore.range(0, ledgerStore.head().seq, 100_000).map((e) => ({
      type: e.type,
      actor: e.actor,
      data: (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as Record<string, unknown>,
    }));
  return {
    dir,
    db,
    app: app as unknown as FastifyInstance,
    ledger,
    writer,
    sessions,
    people,
    mail,
    signIn,
    guard,
    requests,
    events,
    logs: () => lines.join(''),
    /** Every answer body so far, with its headers. */
    answers: () => answers.join('\n'),
    /** app.inject that keeps the answer for the secrets search. */
    async call(opts: InjectOptions): Promise<LightMyRequestResponse> {
      const res = await app.inject(opts);
      answers.push(JSON.stringify(res.headers), res.body);
      return res;
    },
    /** A person, created through people as an admin would. */
    async person(email: string, role: 'viewer' | 'responder' | 'admin' | 'owner' = 'responder') {
      return people.create({ email, name: email.split('@')[0] ?? email, role }, OWNER_CALLER);
    },
    /** Let people of these domains sign in without being added (access settings). */
    async allowDomains(domains: string[]) {
      return people.setAccess(
        { domains, directory_groups: [], sso_groups: [], default_role: 'viewer' },
        OWNER_CALLER,
      );
    },
    async close() {
      await signIn.settled();
      await app.close();
      await writer.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type SignInBench = Awaited<ReturnType<typeof signInBench>>;
