// For the integration tests of approvals and autonomy: a real SQLite file with the
// migrations, the real ledger, people, sessions, link signer, connectors (optional) and the
// real auth plugin and error handler on Fastify, listening on a loopback port (real HTTP).
// The clock and the timers are the test's, so it decides when escalation steps fall due.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createSessionsService, createSessionsStore } from '../../access/index.js';
import {
  createLinkSigner,
  createLinkUseStore,
  loadOrCreateLinkKey,
  type LinkSigner,
} from '../../channels/index.js';
import {
  createConnectorsService,
  createConnectorsStore,
  createRegistry,
  type ConnectorKind,
  type ConnectorsService,
} from '../../connectors/index.js';
import { auth } from '../../http/auth.js';
import { createHttpServer } from '../../http/server.js';
import { createLogger } from '../../logger.js';
import {
  createPeopleService,
  createPeopleStore,
  peopleRoutes,
  type User,
} from '../../people/index.js';
import { createFakeClock } from '../../shared/clock.js';
import type { Mode } from '../../shared/mode.js';
import type { Role } from '../../shared/roles.js';
import { Secret } from '../../shared/secret.js';
import {
  autonomyRoutes,
  createAutonomyService,
  createAutonomyStore,
} from '../../autonomy/index.js';
import { approvalsRoutes } from '../../approvals/approvals.routes.js';
import {
  createApprovalsService,
  type ApprovalsService,
} from '../../approvals/approvals.service.js';
import { createApprovalsStore } from '../../approvals/approvals.store.js';
import {
  createEscalation,
  type EscalationStepRef,
  type Every,
} from '../../approvals/escalation.js';
import { createLabApprover, type After } from '../../approvals/lab-approver.js';
import { openLedgerBench } from '../ledger-bench.js';

export const ADMIN_TOKEN = 'admin-token-for-approvals-tests-0123456789';
export const START = '2026-11-22T09:00:00.000Z';

export interface HarnessOptions {
  readonly dir: string;
  readonly steps?: readonly EscalationStepRef[];
  /** connector kinds built from <dir>/connectors.json when it exists */
  readonly kinds?: readonly ConnectorKind[];
  readonly labApprover?: boolean;
  readonly mode?: () => Mode;
}

export interface Timers {
  /** run every interval timer once */
  readonly tickAll: () => void;
  /** run every one-shot timer now */
  readonly fireAll: () => void;
  readonly every: Every;
  readonly after: After;
}

export function manualTimers(): Timers {
  const intervals = new Set<() => void>();
  const once = new Set<() => void>();
  return {
    every: (_ms, fn) => {
      intervals.add(fn);
      return () => intervals.delete(fn);
    },
    after: (_ms, fn) => {
      const f = () => {
        once.delete(f);
        fn();
      };
      once.add(f);
      return () => once.delete(f);
    },
    tickAll: () => {
      for (const f of [...intervals]) f();
    },
    fireAll: () => {
      for (const f of [...once]) f();
    },
  };
}

export async function serveApprovals(options: HarnessOptions) {
  const { dir } = options;
  mkdirSync(join(dir, 'secrets'), { recursive: true, mode: 0o700 });
  const clock = createFakeClock(START);
  const log = createLogger('silent');
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  const peopleStore = createPeopleStore(db);
  const approvalsStore = createApprovalsStore(db);
  const autonomyStore = createAutonomyStore(db);
  const connectorsStore = createConnectorsStore(db);
  projections.register(peopleStore.projection);
  projections.register(approvalsStore.projection);
  projections.register(autonomyStore.projection);
  projections.register(connectorsStore.projection);

  const sessions = createSessionsService({ store: createSessionsStore(db), ledger, writer, clock });
  const links: LinkSigner = createLinkSigner({
    key: loadOrCreateLinkKey(dir),
    clock,
    used: createLinkUseStore(db),
  });
  const approvals: ApprovalsService = createApprovalsService({
    store: approvalsStore,
    ledger,
    writer,
    clock,
    links,
    log,
    people: () => peopleStore.users(),
  });
  // People after approvals: a person's change reaches them inside its own transaction.
  const people = createPeopleService({
    store: peopleStore,
    ledger,
    writer,
    clock,
    sessions,
    personChanged: (id, actor) => {
      approvals.personChangedIn(id, actor);
    },
  });
  const autonomy = createAutonomyService({
    store: autonomyStore,
    ledger,
    writer,
    clock,
    approvals,
    people: () => peopleStore.users(),
    log,
  });
  let connectors: ConnectorsService | null = null;
  if (options.kinds !== undefined) {
    connectors = createConnectorsService({
      registry: createRegistry(options.kinds),
      store: connectorsStore,
      ledger,
      writer,
      clock,
      log,
      env: {},
      secretsDir: join(dir, 'secrets'),
      file: join(dir, 'connectors.json'),
      defaultConcurrency: 4,
    });
    connectors.start();
  }
  const timers = manualTimers();
  let base = 'http://127.0.0.1:0';
  const escalation = createEscalation({
    approvals,
    steps: () => options.steps ?? [],
    call: (name, op, args) => {
      if (connectors === null) return Promise.reject(new Error(`no connector ${name}`));
      return connectors.call(name, op, args);
    },
    links,
    people: () => peopleStore.users(),
    baseUrl: () => base,
    clock,
    every: timers.every,
    log,
  });
  const labApprover = createLabApprover({
    approvals,
    enabled: options.labApprover ?? false,
    after: timers.after,
    log,
  });

  const app = createHttpServer({ log });
  await app.register(auth, {
    adminToken: new Secret(ADMIN_TOKEN),
    ingestToken: null,
    delayMs: 0,
    sessions,
  });
  const mode = options.mode ?? ((): Mode => 'configuring');
  await app.register(
    async (v1) => {
      await v1.register(approvalsRoutes, { approvals, mode });
      await v1.register(autonomyRoutes, { autonomy, mode });
      await v1.register(peopleRoutes, { people, sessions, mode });
    },
    { prefix: '/v1' },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${String(address.port)}`;

  /** A real HTTP request; the answer's status and JSON body. */
  async function call(
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    token: string | null,
    payload?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> & { error?: string; why?: string } }> {
    const headers: Record<string, string> = {};
    if (token !== null) headers['authorization'] = `Bearer ${token}`;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}/v1${url}`, {
      method,
      headers,
      ...(payload !== undefined && { body: JSON.stringify(payload) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
    };
  }

  const events = (type?: string) =>
    ledgerStore
      .range(0, ledgerStore.head().seq, 10_000)
      .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }))
      .filter((e) => type === undefined || e.type === type);

  /** A person made through the people service, and a session of theirs. */
  async function person(
    email: string,
    role: Role,
    name = email.split('@')[0] ?? '',
  ): Promise<{ user: User; token: string; name: string }> {
    const user = await people.create(
      { email, name, role, handles: {} },
      { actor: { name: 'admin-token' }, role: 'owner', userId: null },
    );
    const { token } = await sessions.signIn(people.identity(user), 'password');
    return { user, token, name: people.identity(user).name };
  }

  async function close(): Promise<void> {
    labApprover.stop();
    await escalation.stop();
    await app.close();
    await connectors?.close();
    await writer.close();
    db.close();
  }

  return {
    db,
    clock,
    writer,
    ledger,
    ledgerStore,
    projections,
    approvals,
    approvalsStore,
    autonomy,
    autonomyStore,
    escalation,
    labApprover,
    links,
    sessions,
    timers,
    base: () => base,
    call,
    events,
    person,
    close,
  };
}
export type Harness = Awaited<ReturnType<typeof serveApprovals>>;
