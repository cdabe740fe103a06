export {
  createIncidentsStore,
  type IncidentsStore,
  type IncidentEpisodeCounts,
  type IncidentStatus,
  INCIDENT_STATUSES,
  INCIDENT_OPENED,
  INCIDENT_JOINED,
  INCIDENT_STATUS,
  INCIDENT_LINKED,
} from './incidents.store.js';
export {
  createIncidentsService,
  derivedStatus,
  newIncidentId,
  type IncidentsService,
  type IncidentPlacement,
  type IncidentMove,
} from './incidents.service.js';
export { incidentsRoutes } from './incidents.routes.js';
export { incidentEvents, type IncidentEvents } from './incidents.events.js';
