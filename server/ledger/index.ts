export {
  createLedgerService,
  type CommitListener,
  type DomainLedger,
  type LedgerService,
} from './ledger.service.js';
export { createLedgerStore, type LedgerStore } from './ledger.store.js';
export {
  createLedgerListStore,
  LEDGER_QUERY_FIELDS,
  type LedgerListStore,
} from './ledger-list.store.js';
export {
  createProjections,
  projectionOf,
  reactionTo,
  type Reaction,
  type Projection,
  type ProjectionHandlers,
  type Projections,
} from './projections.js';
export {
  base32,
  INSTALL_KEY_FILE,
  keyFingerprint,
  loadOrCreateAgreementKey,
  loadOrCreateInstallKey,
  publicKeyFromDataDir,
} from './install-key.js';
export { checkLedgerAtStart, checkpointFileOf } from './checkpoint-file.js';
export { createThreadRunner } from './verify-threads.js';
export { createSealer, SEGMENT_SIZE, SEALED_TYPE, type Sealer } from './sealer.js';
export { verifyLedger, type VerifyReport } from './verify.js';
export { categoryOf, type AppendInput, type LedgerEvent } from './ledger.types.js';
export { createLedgerReader, type LedgerReader } from './ledger-read.service.js';
export { ledgerRoutes } from './ledger.routes.js';
export {
  dumpProjections,
  rebuildProjections,
  replayLedger,
  type RebuildResult,
} from './rebuild.js';
export { ledgerEvents, type LedgerEvents } from './ledger.events.js';
export {
  createEventRegistry,
  EventRefused,
  type Catalogue,
  type CatalogueEntry,
  type EventAppender,
  type EventRegistry,
  type EventsOf,
  type EventType,
  type ReadonlyDeep,
} from './catalogue.js';
