// The episodes feature as other folders see it: they import from here, never its files.
export { EpisodePage } from './episode.js';
export { EpisodesPage } from './episodes.js';
export { episodesApi } from './api.js';
export { episodeKeys } from './queries.js';
export { causeName } from './causes.js';
