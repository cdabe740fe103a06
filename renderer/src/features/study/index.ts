// The study feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Started now and then, followed while it runs: loaded on demand.
export const StudyPage = lazy(() => import('./study.js').then((m) => ({ default: m.StudyPage })));
