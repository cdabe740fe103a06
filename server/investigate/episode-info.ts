// What the orchestrator needs of an episode, read from the episodes store.
import type { EpisodesStore } from '../episodes/index.js';
import type { EpisodeInfo } from './orchestrator.js';

export const episodeLookup =
  (episodes: Pick<EpisodesStore, 'get'>) =>
  (id: string): EpisodeInfo | null => {
    const row = episodes.get(id);
    return row === null
      ? null
      : {
          episode_id: id,
          service: row.service,
          status: row.status,
          t_open: row.t_open,
          suppressed: row.suppressed !== '[]',
        };
  };
