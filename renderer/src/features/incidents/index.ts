// The incidents feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Loaded on demand.
export const IncidentsPage = lazy(() =>
  import('./incidents.js').then((m) => ({ default: m.IncidentsPage })),
);
export { IncidentPage } from './incident.js';
export { incidentKeys } from './queries.js';
