export {
  createEstateStore,
  type EstateStore,
  ESTATE_DISCOVERED,
  ESTATE_DISCOVER_FAILED,
  ESTATE_OVERRIDES_SET,
  ESTATE_SUGGESTION_CONFIRMED,
  ESTATE_SUGGESTION_DISMISSED,
} from './estate.store.js';
export {
  createEstateService,
  checkOverrides,
  JOBS_KEPT,
  type EstateService,
  type DiscoverySource,
} from './estate.service.js';
export {
  resolveService,
  createResolver,
  findingsFromTargets,
  buildEstate,
  hostOf,
  overridesOf,
  NO_OVERRIDES,
  type Resolution,
  type TargetLike,
} from './estate.model.js';
export {
  findingsFromSsh,
  findingsFromHttp,
  findingsFromDiscover,
  findingsFromPrometheus,
  guessKind,
  readerOf,
  type Findings,
  type KindInfo,
} from './discovery-sources.js';
export { suggestionId, type StudiedRelation, type Suggestion } from './suggestions.js';
export { createDiscoverySchedule } from './discovery-schedule.js';
export type {
  Overrides,
  EstateView,
  JobView,
  OverridesView,
  SuggestionList,
  SuggestionDecided,
} from './estate.schemas.js';
export { estateRoutes } from './estate.routes.js';
export { estateEvents, type EstateEvents } from './estate.events.js';
