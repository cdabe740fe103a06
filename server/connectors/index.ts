// The connectors domain: kinds (kind.ts, kinds/), the registry and catalogue, documents with
// secret references, the store (a ledger projection), the runtime (limits and timeouts),
// the service (file mode, ledger events) and the routes.
export {
  CAPABILITIES,
  type Capability,
  type ConnectorClient,
  type ConnectorKind,
  type HealthResult,
  type ResolvedSettings,
  type SettingSpec,
} from './kind.js';
export { createRegistry, FRAMEWORK_SETTINGS, type Registry } from './registry.js';
/** Every kind this build knows (server/connectors/kinds/), for createRegistry(KINDS). */
export {
  KINDS,
  httpKind,
  ldapKind,
  prometheusKind,
  sshKind,
  webhookKind,
  RESOLVED_COUNT,
  type ResolvedCount,
} from './kinds/index.js';
export { readCaFile } from './kinds/settings.js';
export type { ConfigChanges } from './kinds/ssh.parse.js';
export { createKeypair } from './ssh-keys.js';
export {
  createConnectorsStore,
  CONNECTOR_REMOVED,
  CONNECTOR_SET,
  type ConnectorRow,
  type ConnectorsStore,
} from './connectors.store.js';
export {
  createConnectorRuntime,
  ConnectorCallError,
  type ConnectorCallErrorCode,
  type ConnectorEntry,
  type ConnectorRuntime,
  type ConnectorRuntimeDeps,
} from './runtime.js';
export {
  createConnectorsService,
  readConnectorsFile,
  ConnectorsFileError,
  type ConnectorsService,
  type ConnectorsServiceDeps,
} from './connectors.service.js';
export { connectorsRoutes } from './connectors.routes.js';
export { createLimiter, QueueFullError, DEFAULT_QUEUE_LIMIT, type Limiter } from './limiter.js';
export { secretFileOf } from './secret-files.js';
export {
  NAME_PATTERN,
  TIMEOUT_DEFAULT_S,
  type Catalogue,
  type ConnectorDocument,
  type ConnectorInput,
  type ConnectorList,
  type ConnectorView,
  type HealthView,
  type KindView,
  type LastHealth,
  type SecretRef,
  type SettingView,
  type TestInput,
} from './connectors.schemas.js';
export { checkAll, type ConnectionHealth } from './check-all.js';
export { createPoller, labelsFingerprint, type Poller } from './poller.js';
export { connectorEvents, type ConnectorEvents } from './connectors.events.js';
export { networkErrorText, readBodyLimited } from './kinds/settings.js';
