export {
  createEpisodesStore,
  type EpisodesStore,
  EPISODE_OPENED,
  EPISODE_JOINED,
  EPISODE_CLOSED,
} from './episodes.store.js';
export {
  createEpisodesService,
  newEpisodeId,
  FLAP_HOLD_MS,
  type EpisodesService,
  type Placement,
} from './episodes.service.js';
export { episodesRoutes } from './episodes.routes.js';
export { liveStreamRoutes } from './live.routes.js';
export {
  createLiveHub,
  LIVE_STREAM_DEFAULTS,
  StreamLimitError,
  type LiveHub,
  type LiveHubOptions,
} from './live-stream.js';
export { createEpisodeIndex, FACETS, type EpisodeIndex } from './list.index.js';
export { createEpisodeListStore, EPISODE_QUERY_FIELDS } from './list.query.js';
export {
  createEpisodeList,
  createListReader,
  type EpisodeList,
  type ListJob,
  type ListPage,
} from './list.service.js';
export { type EpisodeSignal, type NoiseControl, type Suppression } from './episodes.service.js';
export * as enumerations from './enumerations.js';
export { ACTIONS, DECISIONS, OUTCOMES, RESULTS } from './enumerations.js';
export { episodeEvents, type EpisodeEvents } from './episodes.events.js';
export { type EpisodeInputs, type EpisodeInputTypes } from './episodes.inputs.js';
