// The autonomy feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Loaded on demand: most visits never open it.
export const AutonomyPage = lazy(() =>
  import('./autonomy.js').then((m) => ({ default: m.AutonomyPage })),
);
export { autonomyApi, autonomyKey } from './autonomy-queries.js';
export { HaltBanner, HaltButton, HaltForm } from './halt-button.js';
