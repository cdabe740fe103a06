// What svc-core builds around a runtime of an existing data folder: the configured
// connectors, the estate, a read-only diagnosis engine and the doctor. Built here, as the
// server is, so that compose is the one place that builds a domain's service; the commands
// only parse their arguments, call these and print.
import { join } from 'node:path';
import {
  createConnectorsService,
  createRegistry,
  KINDS,
  type ConnectionHealth,
  type ConnectorsService,
} from '../connectors/index.js';
import { createEstateService, type EstateService, type EstateView } from '../estate/index.js';
import { createEngine } from '../investigate/index.js';
import { demotionReader } from '../learning/index.js';
import type { Pack } from '../packs/index.js';
import { relationSuggestions } from '../ml/index.js';
import { withTimeout } from '../shared/timeout.js';
import { createStatusService } from '../status/index.js';
import { createCoreDoctor } from './doctor.js';
import type { Runtime } from './runtime.js';

/** The configured connectors of the data folder (or the SVC_CONNECTORS file); `env` is what
 * their `{env}` secret references read. */
export function buildToolConnectors(
  rt: Runtime,
  env: Readonly<Record<string, string | undefined>>,
): ConnectorsService {
  const service = createConnectorsService({
    registry: createRegistry(KINDS),
    store: rt.connectorsStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    log: rt.log,
    env,
    secretsDir: join(rt.config.dataDir, 'secrets'),
    secretRefs: rt.config.secretRefs,
    file: rt.config.files.connectors,
    defaultConcurrency: rt.config.connectorConcurrency,
  });
  service.runtime.rebuild();
  return service;
}

/** The estate: with connectors it can discover (`estate build` with the service stopped);
 * without, it only reads (resolve an alert, the view), and calls no connector. */
export function buildToolEstate(rt: Runtime, connectors?: ConnectorsService): EstateService {
  const common = {
    store: rt.estateStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    timeoutS: rt.config.discoverTimeoutS,
    episodes: rt.episodesStore,
    inferred: () => relationSuggestions(rt.ml.report()),
  };
  if (connectors === undefined)
    return createEstateService({
      ...common,
      connectors: () => [],
      call: () => Promise.reject(new Error('this estate calls no connector')),
    });
  return createEstateService({
    ...common,
    connectors: () => connectors.list().connectors,
    call: (name, op, args) => connectors.call(name, op, args),
    kinds: () => connectors.catalogue().kinds,
    log: rt.log,
  });
}

/** A diagnosis engine that writes nothing (`checks run`): the given packs and estate view,
 * each connector call bounded by the check's own timeout. */
export function buildToolEngine(
  rt: Runtime,
  packs: readonly Pack[],
  view: EstateView,
  connectors: ConnectorsService,
) {
  return createEngine({
    packs: () => packs,
    estate: () => view,
    connectors: () => connectors.list().connectors,
    call: (name, op, args, ms) =>
      withTimeout(
        connectors.call(name, op, args),
        ms / 1000,
        `connector ${name}: ${op}: no answer within ${String(Math.round(ms / 1000))} s`,
      ),
    clock: rt.clock,
    // What the server would hold back, svc-core checks holds back too.
    demoted: demotionReader(rt.learningStore),
  });
}

/** The doctor of `svc-core doctor`: the server's checks, with the connectors' health as
 * measured just now standing for a working connection. */
export function buildToolDoctor(
  rt: Runtime,
  connectors: ConnectorsService,
  health: readonly ConnectionHealth[],
) {
  const status = createStatusService({
    config: rt.config,
    fingerprint: rt.fingerprint,
    licence: rt.licence,
    ledgerStore: rt.ledgerStore,
    startedAt: rt.clock.nowIso(),
    hasWorkingConnection: () => health.some((h) => h.ok),
  });
  return createCoreDoctor(rt, status, undefined, () => connectors.list().connectors);
}
