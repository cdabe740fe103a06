// For the directory and single sign-on integration tests: a real SQLite file with every
// migration, the ledger with the people and connectors projections, the real sessions,
// people and sign-in throttle, and Fastify with the real auth plugin. Log lines are kept
// so that tests can look for secrets in them.
import { join } from 'node:path';
import {
  KINDS,
  createConnectorsService,
  createConnectorsStore,
  createRegistry,
} from '../../connectors/index.js';
import type { openDatabase } from '../../db/open.js';
import { type Writer } from '../../db/writer.js';
import { auth } from '../../http/auth.js';
import { createHttpServer } from '../../http/server.js';
import type { createProjections } from '../../ledger/index.js';
import { type LedgerService } from '../../ledger/index.js';
import { createPeopleService, createPeopleStore, type PeopleService } from '../../people/index.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { Secret } from '../../shared/secret.js';
import {
  createSessionsService,
  createSessionsStore,
  type SessionsService,
} from '../../access/index.js';
import { createIdentitiesStore, type IdentitiesStore } from '../../access/identities.js';
import { createSignInGuard, type SignInGuard } from '../../access/throttle.js';
import { openLedgerBench } from '../ledger-bench.js';
import { capturedLogger } from '../logger.js';

type App = ReturnType<typeof createHttpServer>;

export const TEST_ADMIN_TOKEN = 'admin-token-for-signin-tests-0123456789';

export interface SignInBench {
  readonly dir: string;
  readonly app: App;
  readonly ledger: LedgerService;
  readonly writer: Writer;
  readonly sessions: SessionsService;
  readonly people: PeopleService;
  readonly guard: SignInGuard;
  readonly identities: IdentitiesStore;
  readonly clock: Clock;
  readonly connectors: ReturnType<typeof createConnectorsService>;
  readonly db: ReturnType<typeof openDatabase>;
  /** Every ledger event so far, oldest first. */
  events(): { type: string; actor: string; data: Record<string, unknown> }[];
  /** Every log line so far. */
  logs(): string;
  close(): Promise<void>;
}

export async function signInBench(
  dir: string,
  register: (v1: App, bench: Omit<SignInBench, 'app' | 'close'>) => Promise<void>,
  options: {
    delayMs?: number;
    extraProjections?: (
      db: ReturnType<typeof openDatabase>,
    ) => Parameters<ReturnType<typeof createProjections>['register']>[0][];
  } = {},
): Promise<SignInBench> {
  const clock = systemClock;
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, `svc-${String(Date.now())}.db`),
    clock,
  );
  const { log, lines } = capturedLogger();
  const connectorsStore = createConnectorsStore(db);
  const peopleStore = createPeopleStore(db);
  projections.register(connectorsStore.projection);
  projections.register(peopleStore.projection);
  for (const p of options.extraProjections?.(db) ?? []) projections.register(p);
  const sessions = createSessionsService({
    store: createSessionsStore(db),
    ledger,
    writer,
    clock,
    log,
  });
  const people = createPeopleService({ store: peopleStore, ledger, writer, clock });
  const guard = createSignInGuard({
    clock,
    ...(options.delayMs !== undefined && { delayMs: options.delayMs }),
  });
  const connectors = createConnectorsService({
    registry: createRegistry(KINDS),
    store: connectorsStore,
    ledger,
    writer,
    clock,
    log,
    env: {},
    secretsDir: join(dir, 'secrets'),
    file: join(dir, 'no-connectors.json'),
    defaultConcurrency: 4,
  });
  connectors.start();
  const events = () =>
    ledgerStore.range(0, ledgerStore.head().seq, 10_000).map((e) => ({
      type: e.type,
      actor: e.actor,
      data: (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as Record<string, unknown>,
    }));
  const bench = {
    dir,
    ledger,
    writer,
    sessions,
    people,
    guard,
    identities: createIdentitiesStore(db),
    clock,
    connectors,
    db,
    events,
    logs: () => lines.join(''),
  };
  const app = createHttpServer({ log });
  await app.register(auth, {
    adminToken: new Secret(TEST_ADMIN_TOKEN),
    ingestToken: null,
    delayMs: 0,
    sessions,
  });
  await app.register(
    async (v1) => {
      await register(v1 as unknown as App, bench);
    },
    { prefix: '/v1' },
  );
  await app.ready();
  return {
    ...bench,
    app,
    async close() {
      await app.close();
      await connectors.close();
      await writer.close();
      db.close();
    },
  };
}
