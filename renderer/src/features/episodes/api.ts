// Episodes (GET /v1/episodes, GET /v1/episodes/<id>, POST .../team): wire shapes and calls.
import type {
  TeamAnswer,
  TeamBody,
  TimelineEvent,
} from '../../../../server/episodes/episodes.schemas.js';
import type {
  EpisodeDetail,
  EpisodeGroupRow,
  EpisodeListBody,
  EpisodeListRow,
  HistogramDay,
  Scorecard,
} from '../../../../server/episodes/episodes.wire.js';
import type { SearchFieldsBody } from '../../../../server/search/search.schemas.js';
import { call } from '../../shared/api.js';

/** A row of the list: a closed episode; grouped by incident, its incident's root with the rest. */
export type EpisodeRow = EpisodeListRow & Partial<Omit<EpisodeGroupRow, keyof EpisodeListRow>>;

/** GET /v1/episodes: its rows read as EpisodeRow, grouped or not. */
export type EpisodeList = Omit<EpisodeListBody, 'episodes'> & { episodes: EpisodeRow[] };

export type { HistogramDay, Scorecard, TimelineEvent };

/** GET /v1/episodes/<id>: its record when closed, its live view while running. */
export type Episode = EpisodeDetail;

export const episodesApi = {
  episodes: (query: string) =>
    call<EpisodeList>('GET', `/v1/episodes${query === '' ? '' : `?${query}`}`),
  episode: (id: string, afterSeq?: number) =>
    call<Episode>(
      'GET',
      `/v1/episodes/${encodeURIComponent(id)}${afterSeq === undefined ? '' : `?after_seq=${String(afterSeq)}`}`,
    ),
  /** GET /v1/search/fields: what the query language can name (the query bar's suggestions). */
  searchFields: () => call<SearchFieldsBody>('GET', '/v1/search/fields'),
  team: (id: string, verdict: TeamBody['verdict'], detail?: string) =>
    call<TeamAnswer>('POST', `/v1/episodes/${encodeURIComponent(id)}/team`, {
      verdict,
      ...(detail !== undefined && detail !== '' && { detail }),
    }),
};
