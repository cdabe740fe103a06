import { call } from '../../shared/api.js';

// Estate (docs/estate.md): services, links and how each was made, per-connector discovery
// status, the overrides document, suggested links, and discovery as a polled job.

/** How a service or link was made: a connector and how, or `{connector: null, how: 'override'}`. */
export interface EstateOrigin {
  connector: string | null;
  how: string;
}

export interface EstateService {
  name: string;
  kind: string | null;
  hosts: string[];
  origins: EstateOrigin[];
}

export interface EstateLink {
  from: string;
  to: string;
  origin: EstateOrigin;
}

export type EstateConnectorStatus = 'ok' | 'stale' | 'failed';

export interface Estate {
  services: EstateService[];
  links: EstateLink[];
  connectors: Record<string, { status: EstateConnectorStatus; at: string; detail: string | null }>;
  problems: { what: string; detail: string }[];
  unlinked: string[];
  /** Units seen running that listen on no port: services only if an override names them. */
  candidates?: { name: string; host: string; connector: string; how: string }[];
}

export interface EstateOverrides {
  services?: Record<string, { aliases: string[]; kind?: string }>;
  links?: { from: string; to: string }[];
  ignore?: string[];
}

export interface EstateOverridesView {
  overrides: Required<EstateOverrides>;
  set_by: string | null;
  set_at: string | null;
}

export interface EstateSuggestion {
  id: string;
  from: string;
  to: string;
  evidence: string;
  score: number;
}

export interface SuggestionDecided {
  id: string;
  from: string;
  to: string;
  status: 'confirmed' | 'dismissed';
  evidence: string;
  reason: string | null;
  link: EstateLink | null;
}

export interface DiscoverJob {
  id: string;
  kind: 'discover';
  status: 'running' | 'done' | 'failed';
  /** `step`: what the job did last, e.g. "ssh-web: ports". */
  progress: { done: number; total: number; step?: string };
  started_at: string;
  finished_at: string | null;
  result: {
    services: number;
    links: number;
    per_connector: Record<string, { status: 'ok' | 'failed'; detail: string | null }>;
  } | null;
}

export const estateApi = {
  view: () => call<Estate>('GET', '/v1/estate'),
  overrides: () => call<EstateOverridesView>('GET', '/v1/estate/overrides'),
  putOverrides: (body: EstateOverrides) =>
    call<EstateOverridesView>('PUT', '/v1/estate/overrides', body),
  suggestions: () => call<{ suggestions: EstateSuggestion[] }>('GET', '/v1/estate/suggestions'),
  confirm: (id: string) =>
    call<SuggestionDecided>('POST', '/v1/estate/suggestions/confirm', { id }),
  dismiss: (id: string) =>
    call<SuggestionDecided>('POST', '/v1/estate/suggestions/dismiss', { id }),
  discover: () => call<{ job_id: string }>('POST', '/v1/discover', {}),
  job: (id: string) => call<DiscoverJob>('GET', `/v1/jobs/${encodeURIComponent(id)}`),
};
