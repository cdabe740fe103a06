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
