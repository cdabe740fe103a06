// One incident (GET /v1/incidents/<id>): its wire shape and call.
import { call } from '../../shared/api.js';

export interface Incident {
  incident_id: string;
  status: string;
  root_episode_id: string;
  services: string[];
  lifecycle: { status: string; opened_at: string; resolved_at: string | null; duration_s: number };
  episodes: {
    episode_id: string;
    service: string;
    relation: string;
    status: string;
    t_open: string;
    t_close: string | null;
    alerts: string[];
    decision: string;
    outcome: string;
    result: string;
  }[];
  causes: { episode_id: string; cause: unknown }[];
  fixes: { episode_id: string; fix: string; action: string }[];
  history: {
    at: string;
    seq: number;
    event: string;
    episode_id?: string;
    service?: string;
    from?: string;
    to?: string;
    why?: string | null;
  }[];
}

export const incidentsApi = {
  incident: (id: string) => call<Incident>('GET', `/v1/incidents/${encodeURIComponent(id)}`),
};
