export { createLicenceStore, type LicenceStore } from './licence.store.js';
export {
  createCoverageStore,
  type CoverageInputs,
  type CoverageStore,
  type SeenService,
} from './coverage.store.js';
export {
  COUNTED_DAYS,
  coverageOf,
  createCoverage,
  type Coverage,
  type CoverageState,
} from './coverage.js';
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
export { licenceUsageRoutes } from './usage.routes.js';
export { createExchangeStore, type ExchangeStore } from './installs/exchange.store.js';
export { createInstallExchange, type InstallExchange } from './installs/exchange.js';
export { INSTALL_HISTORY_PREFIX } from './installs/exchange-state.js';
export { installExchangeRoutes } from './installs/exchange.routes.js';
export {
  createUsage,
  hashedServiceId,
  sha256OfStatement,
  USAGE_FORMAT,
  verifyUsageStatement,
  type Usage,
  type UsageKeys,
  type UsageVerdict,
} from './usage.js';
export { startLicenceSchedule, LICENCE_TICK_MS } from './licence.schedule.js';
export { lossesOf } from './losses.js';
export { readDocumentFile } from './licence-files.js';
export { PACK_CLOSED, noLicenceOpener, packOpener, type PackOpening } from './pack-opening.js';
export {
  activeLicenceFile,
  heldClockMark,
  heldRevocations,
  inspectLicence,
  type HeldRevocations,
  type InspectCheck,
  type LicenceFiles,
  type LicenceReport,
} from './licence-inspect.js';
export type { LicenceSettings, InstallOptions } from './licence.service.js';
export {
  ARMOUR_LABELS,
  MAX_ARMOUR_BYTES,
  MAX_GRANT_ARMOUR_BYTES,
  readArmour,
  writeArmour,
  type Armoured,
  type ArmourLabel,
} from './installs/armour.js';
export { codeMatches, installCode } from './installs/code.js';
export { installKeyFromPub, installPubOf } from './installs/install-pub.js';
export {
  armourRequest,
  buildRequest,
  examineRequest,
  parseRequest,
  FINGERPRINT_KINDS,
  PURPOSES,
  REQUEST_FORMAT,
  type BuiltRequest,
  type FingerprintKind,
  type Purpose,
  type RequestPayload,
  type SignedRequest,
} from './installs/request.js';
export {
  examine,
  lookAt,
  isInstallFingerprint,
  LOOK_CHECKS,
  type Examined,
  type LookAnswer,
  type LookCheck,
  type LookContext,
  type Route,
  type Would,
} from './installs/look.js';
export {
  acceptGrant,
  buildGrant,
  roleFor,
  GRANT_FORMAT,
  type AcceptContext,
  type GrantAcceptance,
  type GrantPayload,
  type GrantRefusal,
} from './installs/grant.js';
export {
  buildForward,
  readForward,
  FORWARD_FORMAT,
  MAX_FORWARD_ARMOUR_BYTES,
  type ForwardPayload,
  type ForwardRead,
} from './installs/forward.js';
export {
  decideVouch,
  MAX_CODE_MISMATCHES,
  type RequestRecord,
  type VouchContext,
  type VouchResult,
} from './installs/vouch.js';
export { effectiveCheckMode, STRICT_UNCONFIRMED_MS, type CheckMode } from './check-mode.js';
export {
  CHECK_FORMAT,
  CONFIRM_FORMAT,
  createConfirmation,
  type CheckOutcome,
  type Confirmation,
} from './confirm.js';
export { startConfirmSchedule, CONFIRM_EVERY_MS } from './confirm.schedule.js';
export { confirmRoutes } from './confirm.routes.js';
export { createRedeemer, type Redeemer } from './redeem.js';
export {
  TRIAL_CODE_FORMAT,
  TRIAL_CODE_PREFIX,
  encodeTrialCode,
  openTrialCode,
  type TrialToken,
} from './trial-code.js';
