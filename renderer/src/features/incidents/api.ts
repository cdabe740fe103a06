// Incidents (GET /v1/incidents, GET /v1/incidents/<id>): wire shapes and calls.
import type {
  IncidentDetail,
  IncidentListBody,
  IncidentStatus,
} from '../../../../server/incidents/incidents.schemas.js';
import { call } from '../../shared/api.js';

export type { IncidentStatus };

/** GET /v1/incidents/<id>: lifecycle, episodes, causes, fixes, history. */
export type Incident = IncidentDetail;
/** GET /v1/incidents: a page of incidents, newest first. */
export type IncidentList = IncidentListBody;

export const incidentsApi = {
  list: (query: string) => call<IncidentList>('GET', `/v1/incidents?${query}`),
  incident: (id: string) => call<Incident>('GET', `/v1/incidents/${encodeURIComponent(id)}`),
};
