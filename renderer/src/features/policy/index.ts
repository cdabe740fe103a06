// The policy feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Loaded on demand: most visits never open it.
export const PolicyPage = lazy(() =>
  import('./policy.js').then((m) => ({ default: m.PolicyPage })),
);
export { policyKeys } from './queries.js';
