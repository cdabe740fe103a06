// The packs domain: signed check packs, their schema, loading and the doctor check.
export type {
  ConnectorKindName,
  Finding,
  Glob,
  LoadedPack,
  Pack,
  PackCall,
  PackCause,
  PackCheck,
  PackCondition,
  PackFindingRule,
  PackFix,
  PackMatch,
  PackValue,
  PackVerify,
  RefusedPack,
  PackGate,
  Risk,
  ConditionOp,
  SignedPack,
} from './pack.types.js';
export {
  PackSchema,
  SignedPackEnvelope,
  validatePack,
  describeProblems,
  type PackProblem,
  type PackValidation,
} from './pack.schema.js';
export { checkPathSyntax, PATH_AGGREGATES, type PathAggregate } from './path-syntax.js';
export {
  signPack,
  verifyPack,
  trustedKey,
  packKeyId,
  type TrustedKey,
  type SignedEnvelope,
  type VerifyResult,
} from './signing.js';
export { TRUSTED_PACK_KEYS, DEV_PACK_PUBLIC_KEY_PEM } from './trust.js';
export {
  loadPacks,
  builtInPacksDir,
  packDirs,
  MAX_PACK_BYTES,
  PACK_SUFFIX,
  type LoadOptions,
  type LoadResult,
  type PackDir,
} from './loader.js';
export {
  createPacksService,
  summarise,
  type PacksService,
  type PacksServiceDeps,
  type PackSummary,
  type ClosedPack,
} from './packs.service.js';
export { packsCheck, packsLicenceCheck, type PacksCheckDeps } from './packs-check.js';
export {
  asText,
  fillArgs,
  fillCall,
  fillText,
  fillValue,
  lookupIn,
  placeholders,
  type Escape,
  type Filled,
  type Lookup,
} from './templates.js';
export { escaperFor, queryLanguageOfKind, type QueryLanguage } from './query-escape.js';
