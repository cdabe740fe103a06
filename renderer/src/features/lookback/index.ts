// The lookback feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Loaded on demand.
export const LookbackPage = lazy(() =>
  import('./lookback.js').then((m) => ({ default: m.LookbackPage })),
);
