// The runtime phase of the composition root: opens the store and builds the ledger, every
// domain's store and projection, by hand, in dependency order. The server (app.ts) and the
// svc-core CLI both start here.
import type { KeyObject } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { openDatabase } from '../db/open.js';
import { loadMigrations, migrate, migrationState } from '../db/migrate.js';
import { createWriter } from '../db/writer.js';
import { createWalSync } from '../db/wal-sync.js';
import { createCheckpointer } from '../db/checkpointer.js';
import {
  computeFingerprint,
  databaseFile,
  ensureDataDir,
  createInstallStore,
} from '../install/index.js';
import {
  createLedgerListStore,
  createLedgerReader,
  createLedgerService,
  createLedgerStore,
  createProjections,
  createSealer,
  keyFingerprint as keyFingerprintOf,
  loadOrCreateInstallKey,
  publicKeyFromDataDir,
  checkLedgerAtStart,
  checkpointFileOf,
  createThreadRunner,
} from '../ledger/index.js';
import { createBrandingStore } from '../branding/index.js';
import { createConnectorsStore } from '../connectors/index.js';
import { createEpisodesStore } from '../episodes/index.js';
import { createEstateStore } from '../estate/index.js';
import { createSnapshotsStore } from '../snapshots/index.js';
import { createPeopleStore } from '../people/index.js';
import { createSsoStore } from '../access/index.js';
import { createImpactStore } from '../impact/index.js';
import { createLearningStore } from '../learning/index.js';
import { createMlArtefacts } from '../ml/index.js';
import { createLookbackStore } from '../lookback/index.js';
import { createStudyStore } from '../study/index.js';
import { createKeychainStore, importSigPub } from '../keychain/index.js';
import { createIncidentsStore } from '../incidents/index.js';
import { createIntakeStore, SIGNAL_FIRED, SIGNAL_RESOLVED } from '../intake/index.js';
import {
  createConfirmation,
  createCoverage,
  createCoverageStore,
  createExchangeStore,
  createInstallExchange,
  createLicenceService,
  createLicenceStore,
  INSTALL_HISTORY_PREFIX,
  createRedeemer,
  createUsage,
  installPubOf,
  spkiDer,
  type Coverage,
  type UsageKeys,
} from '../licence/index.js';
import { createPolicyStore } from '../policy/index.js';
import { createInvestigationsStore } from '../investigate/index.js';
import { createApprovalsStore } from '../approvals/index.js';
import { createAutonomyStore } from '../autonomy/index.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { EPISODE_INPUTS, eventCatalogue } from './event-catalogue.js';

/** Migrations sit beside the source in development and beside the bundle in dist/. */
function migrationsDir(): string {
  for (const rel of ['../db/migrations/', './migrations/', '../migrations/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new Error('cannot find the SQL migrations folder');
}

export interface RuntimeOptions {
  readonly log: Logger;
  readonly clock?: Clock;
  /** Verifiers and read-only tools must never create a data folder or keys. */
  readonly mustExist?: boolean;
  /**
   * Read commands of svc-core: open the database read-only and never migrate it (implies
   * mustExist); an older schema is refused, naming the migration it lacks.
   */
  readonly readOnly?: boolean;
}

export function createRuntime(config: Config, options: RuntimeOptions) {
  const { log } = options;
  const clock = options.clock ?? systemClock;
  const file = databaseFile(config.dataDir);
  const readOnly = options.readOnly === true;
  const mustExist = readOnly || options.mustExist === true;
  if (mustExist && !existsSync(file)) {
    throw new Error(`no ledger at ${file}: SVC_DATA (${config.dataDir}) has never been started`);
  }
  if (!readOnly) ensureDataDir(config.dataDir);
  // Owner-only from the first byte; SQLite gives its -wal and -shm files the same mode.
  if (!existsSync(file)) writeFileSync(file, '', { mode: 0o600 });
  const db: Database = openDatabase(file, { readonly: readOnly, syncedByWriter: !readOnly });
  // Commits do not sync; the writer flushes the WAL off the event loop before it answers.
  const walSync = readOnly ? null : createWalSync(file);
  try {
    if (readOnly) {
      const { pending } = migrationState(db, loadMigrations(migrationsDir()));
      if (pending.length > 0) {
        throw new Error(
          `the database ${file} needs migration ${pending.map((m) => m.id).join(', ')} (this build's schema); read commands never change it: start the service once to migrate it`,
        );
      }
    } else {
      // A consistent copy, written before the first pending migration runs (VACUUM INTO is
      // synchronous, unlike the driver's backup()).
      const applied = migrate(db, loadMigrations(migrationsDir()), (d) => {
        d.prepare('VACUUM INTO ?').run(`${file}.before-migration-${String(Date.now())}`);
      });
      if (applied.length > 0) log.info({ applied }, 'database migrations applied');
      walSync?.syncNow();
    }
  } catch (err) {
    walSync?.close();
    db.close();
    throw err;
  }

  const writer = createWriter(db, walSync === null ? {} : { durability: walSync });
  // The write connection never checkpoints itself: a thread copies the WAL back after
  // commits. Where no thread can start, the connection does it in its commits as before.
  const checkpointer = readOnly ? null : createCheckpointer(file, log);
  if (checkpointer !== null) writer.onBatch(() => checkpointer.nudge());
  else if (!readOnly) db.pragma('wal_autocheckpoint = 1000');
  const projections = createProjections();
  const installStore = createInstallStore(db);
  const licenceStore = createLicenceStore(db);
  // Coverage notes the day each service was seen from intake's signal events.
  const coverageStore = createCoverageStore(db, { signals: [SIGNAL_FIRED, SIGNAL_RESOLVED] });
  const exchangeStore = createExchangeStore(db);
  const intakeStore = createIntakeStore(db);
  const episodesStore = createEpisodesStore(db, EPISODE_INPUTS);
  const impactStore = createImpactStore(db);
  const learningStore = createLearningStore(db);
  const lookbackStore = createLookbackStore(db);
  const studyStore = createStudyStore(db);
  const incidentsStore = createIncidentsStore(db, episodesStore);
  const policyStore = createPolicyStore(db);
  const brandingStore = createBrandingStore(db);
  const connectorsStore = createConnectorsStore(db);
  const estateStore = createEstateStore(db);
  const snapshotsStore = createSnapshotsStore(db);
  const peopleStore = createPeopleStore(db);
  const ssoStore = createSsoStore(db);
  const investigationsStore = createInvestigationsStore(db, {
    episodes: episodesStore,
    signals: intakeStore,
  });
  const approvalsStore = createApprovalsStore(db);
  const autonomyStore = createAutonomyStore(db);
  const keychainStore = createKeychainStore(db);
  projections.register(installStore.projection);
  projections.register(licenceStore.projection);
  projections.register(coverageStore.projection);
  projections.register(exchangeStore.projection);
  projections.register(intakeStore.projection);
  projections.register(episodesStore.projection);
  projections.register(impactStore.projection);
  projections.register(learningStore.projection);
  projections.register(lookbackStore.projection);
  projections.register(studyStore.projection);
  projections.register(incidentsStore.projection);
  projections.register(policyStore.projection);
  projections.register(brandingStore.projection);
  projections.register(connectorsStore.projection);
  projections.register(estateStore.projection);
  projections.register(snapshotsStore.projection);
  projections.register(peopleStore.projection);
  projections.register(ssoStore.projection);
  projections.register(investigationsStore.projection);
  projections.register(approvalsStore.projection);
  projections.register(autonomyStore.projection);
  projections.register(keychainStore.projection);

  const ledgerStore = createLedgerStore(db);
  const ledger = createLedgerService({
    inTransaction: () => db.inTransaction,
    store: ledgerStore,
    writer,
    clock,
    projections,
    events: eventCatalogue(),
  });
  const installKey = mustExist
    ? null
    : loadOrCreateInstallKey(config.dataDir, { fips: config.fips, name: 'pending' });
  // Read-only tools never create keys: they take the fingerprint from the public key.
  const keyFingerprint =
    installKey?.fingerprint ?? keyFingerprintOf(publicKeyFromDataDir(config.dataDir, 'ed25519'));
  // The key name and origin follow the install key, not the instance name, which may change.
  const keyName = `svc-ledger-${keyFingerprint.slice(0, 16).toLowerCase()}`;
  const sealKey = installKey === null ? null : { ...installKey, name: keyName };
  // Public seal keys by algorithm, read from the data folder once (seals made before
  // SVC_FIPS=1 was set keep verifying with the Ed25519 key).
  const publicKeys = new Map<string, KeyObject | null>();
  if (sealKey !== null) publicKeys.set(sealKey.algorithm, sealKey.publicKey);
  const keyFor = (algorithm: string): KeyObject | null => {
    let key = publicKeys.get(algorithm);
    if (key === undefined) {
      try {
        key = publicKeyFromDataDir(
          config.dataDir,
          algorithm === 'ecdsa-p256' ? 'ecdsa-p256' : 'ed25519',
        );
      } catch {
        key = null;
      }
      publicKeys.set(algorithm, key);
    }
    return key;
  };
  const runner = createThreadRunner(file, keyName, keyFor);
  const checkpointFile = checkpointFileOf(config.dataDir);
  const reader = createLedgerReader({
    ...(runner !== undefined && { runner }),
    checkpointFile,
    store: ledgerStore,
    list: createLedgerListStore(db),
    clock,
    keyFor,
    keyName,
    algorithm: config.fips ? 'ecdsa-p256' : 'ed25519',
    keyFingerprint,
  });
  const sealer =
    sealKey === null
      ? null
      : createSealer({
          store: ledgerStore,
          ledger,
          writer,
          clock,
          key: sealKey,
          origin: keyName,
          log,
          checkpointFile,
        });
  if (!mustExist) {
    // The server: before anything is appended, refuse a swapped key or a database behind its
    // saved checkpoint (a lost tail, an older file restored).
    try {
      checkLedgerAtStart({
        store: ledgerStore,
        keyFor,
        keyName,
        keyFingerprint,
        dataDir: config.dataDir,
        log,
      });
    } catch (err) {
      db.close();
      throw err;
    }
  }
  const fingerprint = computeFingerprint(config.identity);
  const headSeq = ledgerStore.head().seq;
  const newestTs = headSeq > 0 ? ledgerStore.range(headSeq - 1, headSeq, 1)[0]?.ts : undefined;
  const licence = createLicenceService({
    store: licenceStore,
    ledger,
    writer,
    clock,
    settings: {
      check: config.licence.check,
      fips: config.fips,
      licenceFile: config.files.licence,
      dataDir: config.dataDir,
      revocationFile: config.licence.revocationFile,
      clockToleranceS: config.licence.clockToleranceS,
    },
    fingerprint: fingerprint.ok ? fingerprint.fingerprint : null,
    newestEventMs: newestTs === undefined ? 0 : Date.parse(newestTs),
    log,
    servicesUsed: () => coverage.used(),
    installsUsed: () => exchange.installsUsed(),
    // Members paired into this home's keychain and approved hold seats too (joins/approve),
    // but one the licence lists, or that holds a grant from here, is counted there already.
    keychainSeats: () => {
      const counted = exchange.seatKeys();
      return keychainStore
        .members()
        .filter((m) => m.role === 'member' && m.licensed === 1)
        .filter((m) => {
          const key = importSigPub(m.sig_pub);
          return key === null || !counted.has(installPubOf(key));
        }).length;
    },
  });
  const coverage: Coverage = createCoverage({
    store: coverageStore,
    ledger,
    writer,
    now: () => licence.effectiveNow(),
    limit: () => licence.view()?.services ?? null,
  });
  // The install's raw Ed25519 public key, as licences list it (install_pub).
  const identityKey = keyFor('ed25519');
  const installPub = identityKey === null ? null : installPubOf(identityKey);
  const thisInstall = {
    fingerprint: fingerprint.ok ? fingerprint.fingerprint : null,
    installPub,
    version: config.version,
  };
  // SVC_LICENCE_CHECK, SVC_AUTHORITY_URL/_PINS, SVC_CA_BUNDLE, HTTPS_PROXY and NO_PROXY.
  const confirm = createConfirmation({
    licence,
    ledger,
    writer,
    clock,
    settings: config.licence,
    ...thisInstall,
    log,
    servicesCounted: () => coverage.used(),
  });
  const redeemer = createRedeemer({
    licence,
    store: licenceStore,
    ledger,
    writer,
    settings: config.licence,
    ...thisInstall,
  });
  // The install exchange (§3.7): requests and grants are signed with the Ed25519 identity key.
  const exchange = createInstallExchange({
    licence,
    licenceStore,
    store: exchangeStore,
    ledger,
    writer,
    identity: fingerprint.ok
      ? { fingerprint: fingerprint.fingerprint, kind: fingerprint.source }
      : null,
    installKey: () => installKey?.identityKey ?? null,
    version: config.version,
    clockToleranceS: config.licence.clockToleranceS,
    authority: { mode: confirm.mode, transport: confirm.transport, post: confirm.post },
    history: (limit) => reader.list({ type: INSTALL_HISTORY_PREFIX, limit }).events,
  });
  // The usage statement is signed by the install key (P-256 under FIPS, as seals are); the
  // Ed25519 key stays the install's identity, the one the licence lists as install_pub.
  let usageKeys: UsageKeys | null | undefined;
  const usage = createUsage({
    licence,
    coverage,
    store: coverageStore,
    ledger,
    writer,
    clock,
    keys: () => {
      if (usageKeys !== undefined) return usageKeys;
      if (installKey === null || installPub === null) return (usageKeys = null);
      usageKeys = {
        signing: installKey.privateKey,
        installPub,
        installPubP256: config.fips ? spkiDer(installKey.publicKey).toString('base64url') : null,
      };
      return usageKeys;
    },
    fingerprint: fingerprint.ok ? fingerprint.fingerprint : null,
    version: config.version,
    installs: () => exchange.usageInstalls(),
    eventsSince: (type, since) => reader.list({ type, since, limit: 2000 }).events,
    ledgerHead: () => {
      const head = ledgerStore.head();
      return {
        seq: head.seq,
        hash: head.hash?.toString('hex') ?? null,
        sealed_through: ledgerStore.lastSegment()?.last_seq ?? 0,
      };
    },
  });

  return {
    config,
    log,
    clock,
    db,
    writer,
    projections,
    installStore,
    intakeStore,
    episodesStore,
    investigationsStore,
    approvalsStore,
    autonomyStore,
    impactStore,
    learningStore,
    lookbackStore,
    studyStore,
    incidentsStore,
    policyStore,
    brandingStore,
    connectorsStore,
    estateStore,
    snapshotsStore,
    peopleStore,
    ssoStore,
    ledgerStore,
    ledger,
    reader,
    sealer,
    licence,
    coverage,
    coverageStore,
    confirm,
    redeemer,
    usage,
    exchange,
    fingerprint,
    keyFingerprint,
    keyName,
    keyFor,
    /** SVC_ML_DIR's artefacts, each used only when signed by this install (and SVC_ML_TRUST). */
    ml: createMlArtefacts({
      dir: config.ml.dir,
      installKey: () => keyFor('ed25519'),
      trust: config.ml.trust,
    }),
    installKeyCreated: installKey?.created ?? false,
    /** The Ed25519 install key (private), null in read-only tools: keychain peers pin it. */
    identityKey: installKey?.identityKey ?? null,
    keychainStore,
    checkpointer,
    /** Stop the checkpoint thread, waiting for a checkpoint under way (before close). */
    async stopBackground(): Promise<void> {
      await checkpointer?.close();
    },
    close(): void {
      sealer?.stop();
      void checkpointer?.close();
      void runner?.close();
      if (db.open) db.close();
      walSync?.close();
    },
  };
}
export type Runtime = ReturnType<typeof createRuntime>;
