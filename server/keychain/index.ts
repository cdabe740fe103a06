export { createKeychainStore, type KeychainStore } from './keychain.store.js';
export {
  createKeychainService,
  type KeychainService,
  type Identity,
  KEYCHAIN_PARTS,
} from './keychain.service.js';
export { keychainEvents, type KeychainEvents } from './keychain.events.js';
export { keychainRoutes } from './keychain.routes.js';
export { keychainPeerRoutes } from './peer.routes.js';
export { attemptJoin, runJoin, type JoinState } from './join.js';
export { createMemberSync, PULL_EVERY_S } from './member-sync.js';
export { createHealthWatch } from './health.js';
export { exportSigPub, importSigPub } from './authority-log.js';
export { exportAgreementPublic } from './crypto/sealed-box.js';
export { createPartsHome, CARRIED_PARTS, derivePartKey, type PartAdapter } from './parts.js';
export { createSealing, type Sealing } from './sealing.js';
export { createPairingHome, type PairingHome } from './pairing.js';
export { createPairingJoiner, type PairingJoiner } from './pairing-joiner.js';
export { createHandover, type Handover } from './handover.js';
export { createDivergentCopies, DIVERGENT_DIR } from './divergent.js';
export { createTakeover, HOME_ALIVE_MS, TAKEOVER_SILENCE_MS, type Takeover } from './takeover.js';
export {
  createLicenceSeatHome,
  createLicenceSeatMember,
  type LicenceSeatMember,
  type SeatAnswer,
} from './licence-seat.js';
export type { PeerAnswer } from './peer-client.js';
