// The learning feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Read weekly, not at 3 am: loaded on demand.
export const LearningPage = lazy(() =>
  import('./learning.js').then((m) => ({ default: m.LearningPage })),
);
