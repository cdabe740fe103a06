// The status feature as other folders see it: they import from here, never its files.
export { StatusPage } from './status.js';
export { statusApi, type LicenceStage, type StatusLicence } from './api.js';
export { statusKeys } from './queries.js';
export { useStatus } from './queries.js';
