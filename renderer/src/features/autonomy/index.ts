// The autonomy feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Loaded on demand: most visits never open it.
export const AutonomyPage = lazy(() =>
  import('./autonomy.js').then((m) => ({ default: m.AutonomyPage })),
);
// Small and static: the top bar's halt button and the banner are on every page.
export { autonomyApi } from './api.js';
export { autonomyKeys } from './queries.js';
export { HaltBanner, HaltButton, HaltForm } from './halt-button.js';
