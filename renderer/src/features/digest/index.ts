// The digest feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Loaded on demand.
export const DigestPage = lazy(() =>
  import('./digest.js').then((m) => ({ default: m.DigestPage })),
);
