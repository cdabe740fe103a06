// The people feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// People, teams and "Me" load on demand: most visits never open them.
export const PeoplePage = lazy(() =>
  import('./people.js').then((m) => ({ default: m.PeoplePage })),
);
export const MePage = lazy(() => import('./me.js').then((m) => ({ default: m.MePage })));
export { peopleApi, type Me } from './api.js';
export { peopleKeys, useMe } from './queries.js';
