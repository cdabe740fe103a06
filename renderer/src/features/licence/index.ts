// The licence feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Opened at set-up and at renewal, rarely otherwise: loaded on demand.
export const LicencePage = lazy(() =>
  import('./licence.js').then((m) => ({ default: m.LicencePage })),
);
export { daysLeftText } from './words.js';
export { licenceKeys } from './keys.js';
