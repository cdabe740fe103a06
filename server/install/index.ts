export {
  computeFingerprint,
  fingerprintOf,
  type Fingerprint,
  type IdentitySources,
} from './fingerprint.js';
export {
  containerFacts,
  HOST_PATHS,
  imageBakedMachineId,
  type ContainerFacts,
  type ContainerPaths,
} from './container.js';
export { ensureDataDir, lockDataDir, lockHolder, databaseFile } from './data-dir.js';
export { createInstallStore, type InstallStore, type InstallState } from './install.projection.js';
export { createInstallService, type InstallService, type StartFacts } from './install.service.js';
export { installEvents, type InstallEvents } from './install.events.js';
