export { createLicenceStore, type LicenceStore } from './licence.store.js';
export {
  createLicenceService,
  TRIAL,
  type LicenceService,
  type LicenceView,
} from './licence.service.js';
export { licenceEvents, type LicenceEvents } from './licence.events.js';
