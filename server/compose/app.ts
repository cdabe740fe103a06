// The server: the runtime plus HTTP routes, registered explicitly, in dependency order.
import { join } from 'node:path';
import swagger from '@fastify/swagger';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { brandingRoutes, createBrandingService } from '../branding/index.js';
import {
  connectorsRoutes,
  createConnectorsService,
  createPoller,
  createRegistry,
  KINDS,
} from '../connectors/index.js';
import { consoleDir, consoleRoutes } from '../console/index.js';
import { createCoreDoctor } from './doctor.js';
import {
  buildKeychain,
  carrierOf,
  peoplePart,
  signinPart,
  type KeychainOptions,
} from './keychain.js';
import { buildLiveHub, type LiveStreamOptions } from './live.js';
import { buildDeciding, buildInvestigation } from './acting.js';
import { doctorRoutes, escalationCheck, snapshotsCheck } from '../doctor/index.js';
import { createSnapshotsService } from '../snapshots/index.js';
import { createPeopleService, peopleRoutes } from '../people/index.js';
import { createEventsService, eventsRoutes } from '../events/index.js';
import {
  createEpisodeList,
  createEpisodesService,
  EPISODE_JOINED,
  EPISODE_OPENED,
  episodesRoutes,
  liveStreamRoutes,
  type ListJob,
  type ListPage,
} from '../episodes/index.js';
import { createReadPool } from '../db/read-pool.js';
import { workerScript } from '../db/worker-script.js';
import { createDiscoverySchedule, createEstateService, estateRoutes } from '../estate/index.js';
import { createIncidentsService, incidentsRoutes } from '../incidents/index.js';
import { createImpactService, impactRoutes } from '../impact/index.js';
import { digestRoutes } from '../digest/index.js';
import { lookbackRoutes } from '../lookback/index.js';
import { buildLookback } from './lookback.js';
import { createDigestSource } from './digest.js';
import { buildStudy, type StudyOptions } from './study.js';
import { studyRoutes } from '../study/index.js';
import { createIntakeService, intakeRoutes } from '../intake/index.js';
import { auth } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import {
  createInstallService,
  ensureDataDir,
  lockDataDir,
  type InstallService,
} from '../install/index.js';
import { categoryOf, ledgerRoutes, SEALED_TYPE } from '../ledger/index.js';
import {
  confirmRoutes,
  licenceRoutes,
  licenceUsageRoutes,
  installExchangeRoutes,
  startConfirmSchedule,
  startLicenceSchedule,
} from '../licence/index.js';
import { createMetrics, metricsRoutes } from '../metrics/index.js';
import {
  createSessionsService,
  createSessionsStore,
  loadOrCreateAdminToken,
  sessionsRoutes,
  CODE_REQUEST_LIMITS,
  createLdapSignIn,
  createIdentitiesStore,
  createSignInGuard,
  createSignInService,
  createPasswordsService,
  createSignInStore,
  createSsoService,
  ldapRoutes,
  signInRoutes,
  ssoRoutes,
} from '../access/index.js';
import { createMailService, createMailStore, environmentMail, mailRoutes } from '../mail/index.js';
import { createNoiseControl, createPolicyService, policyRoutes } from '../policy/index.js';
import type { LocalModel } from '../investigate/index.js';
import { createRuntime, type Runtime } from './runtime.js';
import type { ListWorkerData } from './list-worker.js';
import { searchRoutes } from '../search/index.js';
import { relationSuggestions } from '../ml/index.js';
import type { Clock } from '../shared/clock.js';
import { createStatusService, healthRoutes, statusRoutes } from '../status/index.js';
import { createSyslogForwarder } from '../syslog/index.js';

export interface AppOptions {
  readonly log: Logger;
  readonly clock?: Clock;
  /** Wait before answering a wrong credential (0.5 s; tests may shorten it). */
  readonly wrongCredentialDelayMs?: number;
  /** The environment that connectors' `{env}` secret references read (process.env in production). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The local model runtime, loaded by the caller (startServer's option); closed by it too. */
  readonly localModel?: LocalModel;
  /** The orchestrator's safety-net poll in ms (1 s by default; tests lengthen it). */
  readonly orchestratorPollMs?: number;
  /** The live stream's heartbeat, coalescing and caps (tests shorten them). */
  readonly liveStream?: LiveStreamOptions;
  /** The keychain's pull and health timers (tests shorten them). */
  readonly keychain?: KeychainOptions;
  /** The study's readings window and step (tests shorten them). */
  readonly study?: StudyOptions;
}

/** A list read may run this long (from its arrival) before it is a 503 and its worker is replaced. */
const READ_TIMEOUT_MS = 30_000;
/** List reads that may wait for a free worker. */
const READ_QUEUE = 64;
/** How long a worker may wait for its snapshot to show the seq committed before the request. */
const READ_BEHIND_MS = 5_000;

/** The episode list's read workers (server/compose/list-worker.ts), started on the first read. */
function listReads(rt: Runtime, workers: number, log: Logger) {
  const script = workerScript(import.meta.url, 'list-worker');
  if (script === null) throw new Error('list-worker.mjs is missing beside the bundle');
  return createReadPool<ListJob, ListPage>({
    script,
    size: workers,
    workerData: { file: rt.db.name, behindMs: READ_BEHIND_MS } satisfies ListWorkerData,
    timeoutMs: READ_TIMEOUT_MS,
    maxQueue: READ_QUEUE,
    onProblem: (what, err) => {
      log.warn({ err }, `episode list: ${what}; starting another worker`);
    },
  });
}

/** The install fingerprint last recorded (first start, or the last move) before this start. */
function recordedFingerprint(rt: Runtime): { fingerprint: string | null; source: string } {
  const moves = rt.reader.list({ type: 'system.installed,licence.install.moved', limit: 1 }).events;
  // This start's own system.installed (a first start) is the newest: then nothing moved.
  const last = moves[0];
  const data = (last?.data ?? {}) as { fingerprint?: unknown; to?: unknown };
  const fp = last?.type === 'licence.install.moved' ? data.to : data.fingerprint;
  return {
    fingerprint: typeof fp === 'string' ? fp : null,
    source: rt.fingerprint.ok ? rt.fingerprint.source : '',
  };
}

/** The start's events, the trial and the policy: one transaction, before anything serves. */
function recordStart(rt: Runtime, install: InstallService, loadPolicy: () => void): void {
  const { config, licence, fingerprint } = rt;
  rt.writer.transactNow(() => {
    install.recordStart({
      instance: config.instance,
      version: config.version,
      key_fingerprint: rt.keyFingerprint,
      fingerprint: fingerprint.ok ? fingerprint.fingerprint : null,
      pid: process.pid,
    });
    if (config.trial)
      licence.startTrialIfNone('system', fingerprint.ok ? fingerprint.fingerprint : null);
    loadPolicy();
  });
}

export async function buildApp(config: Config, options: AppOptions) {
  const { log } = options;
  ensureDataDir(config.dataDir);
  // Typed-in secrets of connectors, mail and SSO: 0600 files in one 0700 folder.
  const secretsDir = join(config.dataDir, 'secrets');
  const unlock = lockDataDir(config.dataDir);
  let rt: Runtime;
  try {
    rt = createRuntime(config, { log, ...(options.clock && { clock: options.clock }) });
  } catch (err) {
    unlock();
    throw err;
  }
  const startedAt = rt.clock.nowIso();
  const admin = loadOrCreateAdminToken(config.dataDir, config.tokens.admin);
  if (admin.created)
    log.info({ file: admin.file }, 'admin token generated (owner rights); read it from this file');

  const metrics = createMetrics();
  const syslog = createSyslogForwarder(config.syslog, { instance: config.instance, log });
  rt.ledger.onCommit((event) => {
    metrics.ledgerAppends.inc({ category: categoryOf(event.type) });
    metrics.ledgerSeq.set(event.seq);
    if (event.type === SEALED_TYPE) metrics.ledgerSealedSeq.set(Number(event.data['last_seq']));
    syslog.forward(event);
  });
  rt.writer.onBatch((size, ms) => {
    metrics.writerBatch.observe(size);
    metrics.writerCommit.observe(ms / 1000);
    metrics.writerQueue.set(rt.writer.depth());
    rt.sealer?.afterBatch();
  });

  let policy: ReturnType<typeof createPolicyService>;
  let connectors: ReturnType<typeof createConnectorsService>;
  try {
    // A policy file that does not read refuses the start, naming the file and the field.
    policy = createPolicyService({
      store: rt.policyStore,
      ledger: rt.ledger,
      writer: rt.writer,
      clock: rt.clock,
      file: config.files.policy,
      carriedBy: () => carrierOf(rt, 'policy'),
    });
    // A connectors file that does not read refuses the start too.
    connectors = createConnectorsService({
      registry: createRegistry(KINDS),
      store: rt.connectorsStore,
      ledger: rt.ledger,
      writer: rt.writer,
      clock: rt.clock,
      log,
      env: options.env ?? {},
      secretsDir,
      secretRefs: config.secretRefs,
      file: config.files.connectors,
      defaultConcurrency: config.connectorConcurrency,
      carriedBy: () => carrierOf(rt, 'connections'),
    });
  } catch (err) {
    rt.close();
    unlock();
    throw err;
  }
  const install = createInstallService({
    store: rt.installStore,
    ledger: rt.ledger,
    lastEventType: () => {
      const last = rt.ledgerStore.head().seq;
      return last > 0 ? rt.ledgerStore.range(last - 1, last, 1)[0]?.type : undefined;
    },
  });
  recordStart(rt, install, () => {
    policy.load();
  });
  // The signed licence, revocations and stages: after the start events, before serving.
  await rt.licence.start(recordedFingerprint(rt));
  const stopLicence = startLicenceSchedule(
    {
      tick: async () => {
        await rt.licence.tick();
        await rt.coverage.tick();
      },
    },
    log,
  );
  const stopConfirm = startConfirmSchedule(rt.confirm, log);
  connectors.start();
  rt.sealer?.sealNow();
  rt.sealer?.start();
  metrics.ledgerSeq.set(rt.ledgerStore.head().seq);
  metrics.ledgerSealedSeq.set(rt.ledgerStore.lastSegment()?.last_seq ?? 0);
  metrics.onScrape(() => {
    metrics.writerQueue.set(rt.writer.depth());
    metrics.syslogDropped.set(syslog.stats().dropped);
  });

  const impact = createImpactService({
    store: rt.impactStore,
    ledger: rt.ledger,
    writer: rt.writer,
    carriedBy: () => carrierOf(rt, 'numbers'),
  });
  const branding = createBrandingService({
    store: rt.brandingStore,
    ledger: rt.ledger,
    writer: rt.writer,
    carriedBy: () => carrierOf(rt, 'branding'),
  });
  // Packs, models, approvals and autonomy need only stores, the policy and the connectors;
  // people (an approver changed) and status (the models) are built on them below.
  const deciding = buildDeciding({
    config,
    rt,
    log,
    policy: () => policy.current(),
    call: (name, op, args) => connectors.call(name, op, args),
    ...(options.localModel && { localModel: options.localModel }),
  });
  const sessions = createSessionsService({
    store: createSessionsStore(rt.db),
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    log,
  });
  sessions.start();
  const mail = createMailService({
    store: createMailStore(rt.db),
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    secretsDir,
    secretRefs: config.secretRefs,
    env: options.env ?? {},
    log,
    environment: environmentMail(config.mail, options.env ?? {}, config.instance),
    carriedBy: () => carrierOf(rt, 'mail'),
  });
  // One guard for every sign-in method: failures per address and per account add up.
  const signInGuard = createSignInGuard({
    clock: rt.clock,
    ...(options.wrongCredentialDelayMs !== undefined && {
      delayMs: options.wrongCredentialDelayMs,
    }),
  });
  const signInStore = createSignInStore(rt.db);
  const passwords = createPasswordsService({
    store: signInStore,
    person: (id) => rt.peopleStore.userById(id),
    sessions,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    guard: signInGuard,
    log,
  });
  const people = createPeopleService({
    store: rt.peopleStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    sessions,
    // Passwords are built before people and handed to both people and sign-in.
    hasPassword: passwords.hasPassword,
    setPassword: passwords.setPassword,
    // A disabled, demoted or deleted approver: their pending approvals are withdrawn.
    personChanged: (id, actor) => {
      deciding.approvals.personChangedIn(id, actor);
    },
    signinCarriedBy: () => carrierOf(rt, 'signin'),
    peopleCarriedBy: () => carrierOf(rt, 'people'),
  });
  const signIn = createSignInService({
    store: signInStore,
    passwords,
    people,
    sessions,
    mail,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    guard: signInGuard,
    requests: createSignInGuard({ clock: rt.clock, delayMs: 0, ...CODE_REQUEST_LIMITS }),
    log,
  });
  const identities = createIdentitiesStore(rt.db);
  const ldapSignIn = createLdapSignIn({
    connectors,
    people,
    sessions,
    guard: signInGuard,
    identities,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
  });
  const sso = createSsoService({
    store: rt.ssoStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    people,
    sessions,
    guard: signInGuard,
    identities,
    secretsDir,
    env: options.env ?? {},
    secretRefs: config.secretRefs,
    log,
    carriedBy: () => carrierOf(rt, 'signin'),
    ownCallback:
      config.http.consoleUrl === null
        ? null
        : `${config.http.consoleUrl.replace(/\/+$/, '')}/v1/auth/sso/callback`,
  });

  const status = createStatusService({
    impactSet: impact.isSet,
    config,
    fingerprint: rt.fingerprint,
    licence: rt.licence,
    ledgerStore: rt.ledgerStore,
    startedAt,
    hasWorkingConnection: connectors.hasWorkingConnection,
    models: deciding.models,
    // The sign-in methods on offer, from the services built above.
    auth: () => {
      const ssoOn = sso.publicInfo().enabled;
      const ldap = connectors.list().connectors.some((c) => c.kind === 'ldap');
      return {
        sso: ssoOn,
        methods: [
          'token',
          'password',
          ...(mail.isConfigured() ? ['code'] : []),
          ...(ldap ? ['ldap'] : []),
          ...(ssoOn ? ['sso'] : []),
        ],
      };
    },
  });
  const estate = createEstateService({
    store: rt.estateStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    connectors: () => connectors.list().connectors,
    kinds: () => connectors.catalogue().kinds,
    call: (name, op, args) => connectors.call(name, op, args),
    timeoutS: config.discoverTimeoutS,
    episodes: rt.episodesStore,
    inferred: () => relationSuggestions(rt.ml.report()),
    // Source (c) of the suggestions: the last study's relations.
    relations: () => rt.studyStore.relations(),
    log,
  });
  // Discovery by itself: after the first working connection, then hourly.
  const discovery = createDiscoverySchedule({
    discover: () => estate.discover({ name: 'system' }),
    working: () => status.mode() === 'operating',
    lastRun: () => estate.lastDiscovered(),
    now: () => rt.clock.now(),
    log,
  });
  const doctor = createCoreDoctor(rt, status, undefined, () => connectors.list().connectors);
  const snapshots = createSnapshotsService({
    store: rt.snapshotsStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    // The connectors whose kind lists the setup operation.
    sources: () => {
      const kinds = connectors.catalogue().kinds;
      return connectors
        .list()
        .connectors.filter((c) =>
          kinds.some((k) => k.kind === c.kind && k.operations.includes('setup')),
        );
    },
    call: (name, op, args) => connectors.call(name, op, args),
    intervalS: config.snapshotS,
    log,
  });
  snapshots.start();
  discovery.start();
  doctor.register(snapshotsCheck(() => snapshots.freshness()));
  doctor.register(
    escalationCheck({
      steps: () => policy.current().escalation.steps,
      connections: () => connectors.list().connectors,
      notifyKinds: () =>
        connectors
          .catalogue()
          .kinds.filter((k) => k.capabilities.includes('notify'))
          .map((k) => k.kind),
    }),
  );
  const incidents = createIncidentsService({
    store: rt.incidentsStore,
    ledger: rt.ledger,
    clock: rt.clock,
    episodesOf: rt.episodesStore.ofIncident,
  });
  const acting = buildInvestigation(
    {
      config,
      rt,
      log,
      doctor,
      policy: () => policy.current(),
      connectors: () => connectors.list().connectors,
      call: (name, op, args) => connectors.call(name, op, args),
      estate: () => estate.view(),
      snapshots: (since) => snapshots.changesSince(since),
      incidents,
      mode: () => status.mode(),
      ...(options.orchestratorPollMs !== undefined && {
        orchestratorPollMs: options.orchestratorPollMs,
      }),
    },
    deciding,
  );
  const study = buildStudy(
    rt,
    config,
    log,
    {
      estate: () => estate.view(),
      packs: () => deciding.packs.packs().map((p) => p.pack),
      connectors: () => connectors.list().connectors,
      call: (name, op, args) => connectors.call(name, op, args),
    },
    options.study,
  );
  // A study the last process left running is shown interrupted, not running for ever.
  await study.recover();
  // Commits wake the orchestrator: an episode opened or joined starts its investigation at
  // once, after the commit (never inside it); the orchestrator's poll stays as a safety net.
  rt.ledger.onCommit((event) => {
    if (event.type === EPISODE_OPENED || event.type === EPISODE_JOINED)
      acting.investigation.orchestrator.wake();
  });
  const events = createEventsService({
    ledger: rt.ledger,
    writer: rt.writer,
    reserved: (type) => rt.projections.owns(type),
  });
  const episodes = createEpisodesService({
    store: rt.episodesStore,
    incidents,
    noise: createNoiseControl({
      policy,
      clock: rt.clock,
      firing: () => rt.intakeStore.firing(),
    }),
    ledger: rt.ledger,
    reader: rt.reader,
    writer: rt.writer,
    clock: rt.clock,
    closing: acting.investigation.closing,
    investigation: acting.investigation.view,
    attention: acting.investigation.attention,
    worstSeverity: (keys) => rt.intakeStore.worstSeverity(keys),
    labelled: (id, verdict, actor) => {
      acting.learning.fromTeam(id, verdict, actor);
    },
  });
  // Quiet episodes close after the flap hold; checked every 15 s and once at start.
  const closeQuiet = (): void => {
    episodes.closeQuiet().catch((err: unknown) => {
      log.error({ err }, 'closing quiet episodes failed');
    });
  };
  closeQuiet();
  const closer = setInterval(closeQuiet, 15_000);
  closer.unref();
  const reads = listReads(rt, config.reads.workers, log);
  const list = createEpisodeList({
    read: (job) => reads.run(job),
    clock: rt.clock,
    impact: () => {
      const current = impact.get();
      return current.set ? current.figures : null;
    },
    headSeq: () => rt.ledger.headSeq(),
    running: () => episodes.live().running,
  });
  const intake = createIntakeService({
    resolveService: (labels) => estate.resolve(labels)?.service ?? null,
    store: rt.intakeStore,
    episodes,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    onSignal: (source, outcome) => {
      metrics.intakeSignals.inc({ source, outcome });
    },
  });

  const poller = createPoller({
    sources: () =>
      connectors
        .list()
        .connectors.filter(
          (c) => c.problem === null && (c.kind === 'alertmanager' || c.kind === 'prometheus'),
        ),
    call: (name, op, args) => connectors.call(name, op, args),
    receive: (body) => intake.receive('alertmanager', body, {}),
    intervalS: config.poll.intervalS,
    workers: config.poll.workers,
    clock: rt.clock,
    log,
  });
  poller.start();

  const liveHub = buildLiveHub(rt, options.liveStream);
  const keychain = buildKeychain(
    rt,
    log,
    {
      policy,
      branding,
      numbers: impact,
      mail,
      connections: connectors,
      signin: signinPart(sso, people),
      people: peoplePart(rt, people),
    },
    options.keychain,
  );
  doctor.register(keychain.witnessCheck);
  const app = createHttpServer({ log, trustProxy: config.http.trustProxy });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Incident response service', version: config.version },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(auth, {
    adminToken: admin.token,
    ingestToken: config.tokens.ingest,
    sessions,
    ...(options.wrongCredentialDelayMs !== undefined && {
      delayMs: options.wrongCredentialDelayMs,
    }),
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
  await app.register(healthRoutes);
  await app.register(consoleRoutes, { dir: consoleDir() });
  await app.register(metricsRoutes, { metrics });
  await app.register(
    async (v1) => {
      await v1.register(statusRoutes, { status });
      // Sign-in works in every mode: a person must be able to reach the set-up.
      await v1.register(sessionsRoutes, {
        sessions,
        profile: people.profile,
        loginGuard: signIn,
        adminToken: admin.token,
        ...(options.wrongCredentialDelayMs !== undefined && {
          delayMs: options.wrongCredentialDelayMs,
        }),
      });
      await v1.register(peopleRoutes, { people, sessions, mode: status.mode });
      await v1.register(signInRoutes, { signIn, guard: signInGuard });
      await v1.register(mailRoutes, { mail, mode: status.mode });
      await v1.register(ldapRoutes, { ldap: ldapSignIn });
      await v1.register(ssoRoutes, { sso, mode: status.mode });
      await v1.register(doctorRoutes, { doctor });
      await v1.register(licenceRoutes, { licence: rt.licence, exchange: rt.exchange });
      await v1.register(installExchangeRoutes, { exchange: rt.exchange });
      await v1.register(licenceUsageRoutes, { coverage: rt.coverage, usage: rt.usage });
      await v1.register(confirmRoutes, { confirm: rt.confirm, redeemer: rt.redeemer });
      await v1.register(ledgerRoutes, { reader: rt.reader });
      await v1.register(eventsRoutes, { events, mode: status.mode });
      await v1.register(intakeRoutes, { intake, mode: status.mode });
      await v1.register(episodesRoutes, { episodes, list, mode: status.mode });
      await v1.register(liveStreamRoutes, { hub: liveHub, mode: status.mode });
      await v1.register(incidentsRoutes, { incidents, mode: status.mode });
      await v1.register(searchRoutes, {
        mode: status.mode,
        eventTypes: rt.ledger.events.entries().map((e) => e.type),
      });
      await v1.register(brandingRoutes, { branding, mode: status.mode });
      await v1.register(connectorsRoutes, { connectors, mode: status.mode });
      await v1.register(estateRoutes, { estate, mode: status.mode });
      await v1.register(impactRoutes, { impact, mode: status.mode });
      await v1.register(studyRoutes, { study, mode: status.mode });
      const digestSource = createDigestSource(rt);
      await v1.register(digestRoutes, { digest: (o) => digestSource.digest(o), mode: status.mode });
      const lookback = buildLookback(rt, connectors);
      await v1.register(lookbackRoutes, { lookback, mode: status.mode });
      await keychain.routes(v1);
      await v1.register(policyRoutes, { policy, mode: status.mode });
      await acting.routes(v1, status.mode);
      v1.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: '/v1' },
  );

  await acting.start();
  keychain.start();

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    closing ??= (async () => {
      clearInterval(closer);
      keychain.stop();
      stopLicence();
      await stopConfirm();
      await acting.stop();
      await study.close();
      sessions.stop();
      await poller.stop();
      await snapshots.stop();
      await discovery.stop();
      // Open streams never end by themselves: end them, or closing the server waits on them.
      liveHub.close();
      // Before the HTTP server: a read in flight is answered 503 now rather than holding
      // the close until it ends.
      await reads.close();
      await app.close();
      await signIn.settled();
      await connectors.close();
      await rt.writer.close();
      await rt.stopBackground();
      try {
        rt.writer.transactNow(() => {
          install.recordStop(config.version);
        });
      } catch (err) {
        log.error({ err }, 'could not record the stop');
      }
      rt.sealer?.stop();
      await syslog.close();
      rt.close();
      unlock();
    })();
    return closing;
  }

  return {
    app,
    runtime: rt,
    metrics,
    status,
    doctor,
    episodes,
    liveHub,
    poller,
    snapshots,
    sessions,
    people,
    adminToken: admin.token,
    acting,
    study,
    close,
  };
}
export type BuiltApp = Awaited<ReturnType<typeof buildApp>>;
