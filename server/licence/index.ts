export { createLicenceStore, type LicenceStore } from './licence.store.js';
export {
  createLicenceService,
  TRIAL,
  type LicenceService,
  type LicenceView,
} from './licence.service.js';
export { licenceEvents, type LicenceEvents } from './licence.events.js';
export {
  kidOf,
  seal,
  spkiDer,
  type Envelope,
  type SignatureAlg,
  type Signer,
} from './document/envelope.js';
export {
  openEnvelope,
  readEnvelope,
  type DocumentCheck,
  type KeyStatement,
  type KeyUsage,
  type TrustContext,
  type TrustedRoot,
} from './document/trust.js';
export {
  LICENCE_FORMAT,
  verifyLicence,
  type LicenceInstall,
  type LicencePayload,
  type LicenceVerdict,
  type Tier,
} from './document/licence-doc.js';
export {
  EMPTY_REVOCATIONS,
  REVOCATIONS_FORMAT,
  revocationOf,
  verifyRevocations,
  type RevocationList,
} from './document/revocations-doc.js';
export { RELEASE_BUILD, TRUSTED_ROOTS } from './trust/trusted-roots.js';
export { stageOf, stageOperates, type LicenceStage, type StageView } from './stages.js';
export {
  AUTHORITY_LIMITS,
  bypassesProxy,
  chainPins,
  postToAuthority,
  spkiPinOf,
  trustedRoots,
  type AuthorityAnswer,
  type AuthorityCallOptions,
  type AuthorityFailure,
  type AuthorityFailureResult,
  type AuthorityResponse,
  type AuthorityRoute,
  type AuthorityTransportSettings,
} from './authority-transport.js';
export { licenceRoutes } from './licence.routes.js';
export { startLicenceSchedule, LICENCE_TICK_MS } from './licence.schedule.js';
export { lossesOf } from './losses.js';
export type { LicenceSettings, InstallOptions } from './licence.service.js';
