import { call } from '../../shared/api.js';
import type {
  EstateLink,
  EstateOverridesInput,
  EstateService,
  EstateView,
  JobAccepted,
  JobView,
  Origin,
  OverridesView,
  Suggestion,
  SuggestionDecided,
  SuggestionList,
} from '../../../../server/estate/estate.schemas.js';

// Estate (docs/estate.md): services, links and how each was made, per-connector discovery
// status, the overrides document, suggested links, and discovery as a polled job. The shapes
// are the server's own (server/estate/estate.schemas.ts).

/** How a service or link was made: a connector and how, or `{connector: null, how: 'override'}`. */
export type EstateOrigin = Origin;
export type { EstateLink, EstateService, SuggestionDecided };
export type Estate = EstateView;
/** PUT /v1/estate/overrides: any section may be left out. */
export type EstateOverrides = EstateOverridesInput;
export type EstateOverridesView = OverridesView;
export type EstateSuggestion = Suggestion;
export type DiscoverJob = JobView;

export const estateApi = {
  view: () => call<Estate>('GET', '/v1/estate'),
  overrides: () => call<EstateOverridesView>('GET', '/v1/estate/overrides'),
  putOverrides: (body: EstateOverrides) =>
    call<EstateOverridesView>('PUT', '/v1/estate/overrides', body),
  suggestions: () => call<SuggestionList>('GET', '/v1/estate/suggestions'),
  confirm: (id: string) =>
    call<SuggestionDecided>('POST', '/v1/estate/suggestions/confirm', { id }),
  dismiss: (id: string) =>
    call<SuggestionDecided>('POST', '/v1/estate/suggestions/dismiss', { id }),
  discover: () => call<JobAccepted>('POST', '/v1/discover', {}),
  job: (id: string) => call<DiscoverJob>('GET', `/v1/jobs/${encodeURIComponent(id)}`),
};
