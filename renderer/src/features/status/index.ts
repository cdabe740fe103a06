// The status feature as other folders see it: they import from here, never its files.
export { StatusPage } from './status.js';
export { type LicenceStage, type StatusLicence } from './api.js';
export { statusKeys, useStatus } from './queries.js';
